// The seam between scheduling code and the world. The simulator (sim::SimBackend) and a static
// snapshot (SnapshotBackend) implement it today; a real cluster's API backend is planned
// (issue 16). Policies never know which one they run on.
//
// The backend owns the scheduler's view of the cluster (a ClusterState kept current by events)
// and carries out actions. Actions are asynchronous in general: their effect is confirmed by an
// event delivered later to every listener (synchronously for SnapshotBackend). The contracts every
// backend satisfies are tested by the BackendConformance suite (tests/framework):
//
//   bind(p, n)        → kPodBound, or kPodBindFailed (the backend has unassigned p again)
//   delete_pod(p)     → kPodTerminating (if p had started), then kPodDeleted; or kPodDeleteFailed
//   create_pod(pod)   → kPodAdded (the PodId is known only then)
//   update_pod(p, u)  → kPodUpdated (in place), or kPodDeleted + kPodAdded of the replacement
//                       where the world can only re-create the pod (update_pod returns false)
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cluster_state.h"

namespace orrery::fw {

enum class EventKind : uint8_t {
  kNodeAdded,
  kNodeUpdated,
  kNodeRemoved,
  kPodAdded,         // a new pod exists (pending, or already bound if node != kNoNode)
  kPodBound,         // the binding of pod to node took effect
  kPodBindFailed,    // the binding was rejected; the scheduler must forget the assumption
  kPodRunning,       // containers started
  kPodFinished,      // phase became Succeeded or Failed (resources released)
  kPodDeleted,       // the pod is gone (after eviction, deletion, or node loss)
  kPodUpdated,       // labels, annotations, images, requests or scheduling gates changed
  kPodTerminating,   // deletion started (deletionTimestamp set); it still holds its node's room
  kPodDeleteFailed,  // a deletion was refused (e.g. a PodDisruptionBudget: HTTP 429); see reason
};
std::string_view to_string(EventKind k);

struct ClusterEvent {
  EventKind kind;
  int64_t time_us = 0;
  NodeId node = kNoNode;
  PodId pod = kNoPod;
  uint64_t pod_serial = 0;  // identifies the pod even after its PodId is reused
  // Why it happened, when the world says: a refusal's reason (kPodBindFailed, kPodDeleteFailed).
  // Valid only while the event is being delivered.
  std::string_view reason = {};
};

// Deletion reasons with a meaning for everyone who watches: a pod deleted with a reason that
// starts with kMigrationReason is being moved (its replacement is the same replica, migrated), so
// controllers and recorders count a migration, not a failure or restart.
inline constexpr std::string_view kMigrationReason = "migration";
inline bool is_migration(std::string_view reason) {
  return reason.substr(0, kMigrationReason.size()) == kMigrationReason;
}

// A change to a pod. `spec` edits a copy of the pod's spec (labels, annotations, container images,
// requests); the backend finalizes it. `scheduling_gates` replaces the pod's gates.
struct PodUpdate {
  std::function<void(PodSpec&)> spec;
  std::optional<std::vector<std::string>> scheduling_gates;
};

// Refusals a world may answer actions with. A real API server refuses a bind (409 Conflict when
// the pod was bound by someone else, 404 when it is gone) or a deletion (429 when a
// PodDisruptionBudget forbids it). The simulator and the snapshot accept every action unless
// told to refuse (tests, fault injection): a non-empty reason refuses, and is carried by
// kPodBindFailed / kPodDeleteFailed.
struct Refusals {
  std::function<std::string(const ClusterState&, PodId, NodeId)> bind;
  std::function<std::string(const ClusterState&, PodId)> remove;
};

class EventListener {
 public:
  virtual ~EventListener() = default;
  // Called after the state reflects the event (for kPodDeleted the PodId is already free: use
  // pod_serial).
  virtual void on_event(const ClusterEvent& e) = 0;
};

class ClusterBackend {
 public:
  virtual ~ClusterBackend() = default;

  // The scheduler's view. Schedulers may assume pods on nodes in it (ClusterState::assign) before
  // calling bind(); everything else changes only through events.
  virtual ClusterState& state() = 0;
  virtual int64_t now_us() const = 0;

  // Makes the binding real. Precondition: the pod is assumed on `node` in state(). Later:
  // kPodBound (or kPodBindFailed, after which the backend has already unassigned the pod).
  virtual void bind(PodId pod, NodeId node) = 0;
  // Deletes (evicts) a pod; `reason` is recorded (e.g. "preempted by ns/p"). Later:
  // kPodTerminating for a pod that had started, then kPodDeleted; or kPodDeleteFailed.
  virtual void delete_pod(PodId pod, const std::string& reason) = 0;
  // delete_pod for a pod that will be re-created as `replacement` (same namespace and name; a
  // plan's move of a pod no controller replaces). The caller still creates the replacement
  // (create_pod after kPodDeleted); a backend whose memory can be lost in between (a real
  // cluster's: the scheduler process may crash) first records the replacement where it survives,
  // and answers kPodDeleteFailed without deleting when it cannot. Default: delete_pod.
  virtual void delete_for_recreation(PodId pod, const Pod& replacement, const std::string& reason) {
    (void)replacement;
    delete_pod(pod, reason);
  }
  // Creates a pod (pending unless pod.node_name is set). Later: kPodAdded, which carries its id.
  virtual void create_pod(Pod pod) = 0;
  // Changes a pod. True when the change is made in place (kPodUpdated follows, same PodId);
  // false when the world re-creates the pod to make it (kPodDeleted, then kPodAdded of a pod with
  // the same namespace/name). The simulator and the snapshot always change pods in place.
  virtual bool update_pod(PodId pod, const PodUpdate& update) = 0;

  // Listeners are not owned and must outlive the backend or remove themselves.
  virtual void add_listener(EventListener* l) = 0;
  virtual void remove_listener(EventListener* l) = 0;
};

// A backend over a static snapshot: actions take effect at once and events are delivered
// synchronously. Used by `orrery schedule` / `orrery score` and by unit tests.
class SnapshotBackend : public ClusterBackend {
 public:
  explicit SnapshotBackend(ClusterState state) : state_(std::move(state)) {}
  ClusterState& state() override { return state_; }
  int64_t now_us() const override { return now_us_; }
  void set_now_us(int64_t t) { now_us_ = t; }
  void bind(PodId pod, NodeId node) override;
  void delete_pod(PodId pod, const std::string& reason) override;
  void create_pod(Pod pod) override;
  bool update_pod(PodId pod, const PodUpdate& update) override;
  void set_refusals(Refusals r) { refusals_ = std::move(r); }
  void add_listener(EventListener* l) override { listeners_.push_back(l); }
  void remove_listener(EventListener* l) override;

  struct Deletion {
    std::string pod;  // ns/name
    std::string node;
    std::string reason;
  };
  const std::vector<Deletion>& deletions() const { return deletions_; }

 private:
  void emit(const ClusterEvent& e);
  ClusterState state_;
  int64_t now_us_ = 0;
  std::vector<EventListener*> listeners_;
  std::vector<Deletion> deletions_;
  Refusals refusals_;
};

// Applies an update to a pod of `state` in place (the spec is copied, edited and finalized; the
// pod's requests are re-counted on its node). Shared by the backends that change pods in place.
void apply_update(ClusterState& state, PodId pod, const PodUpdate& update);

}  // namespace orrery::fw
