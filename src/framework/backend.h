// The seam between scheduling code and the world. The simulator (sim::SimBackend), a static
// snapshot (SnapshotBackend) and a real cluster (k8s::ApiBackend) implement it; policies never
// know which one they run on.
//
// The backend owns the scheduler's view of the cluster (a ClusterState kept current by events)
// and carries out actions. Actions are asynchronous in general: their effect is confirmed by an
// event delivered later to every listener (immediately for SnapshotBackend).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/cluster_state.h"

namespace orrery::fw {

enum class EventKind : uint8_t {
  kNodeAdded,
  kNodeUpdated,
  kNodeRemoved,
  kPodAdded,       // a new pod exists (pending, or already bound if node != kNoNode)
  kPodBound,       // the binding of pod to node took effect
  kPodBindFailed,  // the binding was rejected; the scheduler must forget the assumption
  kPodRunning,     // containers started
  kPodFinished,    // phase became Succeeded or Failed (resources released)
  kPodDeleted,     // the pod is gone (after eviction, deletion, or node loss)
};
std::string_view to_string(EventKind k);

struct ClusterEvent {
  EventKind kind;
  int64_t time_us = 0;
  NodeId node = kNoNode;
  PodId pod = kNoPod;
  uint64_t pod_serial = 0;  // identifies the pod even after its PodId is reused
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
  // Deletes (evicts) a pod; `reason` is recorded (e.g. "preempted by ns/p"). Later: kPodDeleted.
  virtual void delete_pod(PodId pod, const std::string& reason) = 0;
  // Creates a pod (pending unless pod.node_name is set). Returns its id; kPodAdded follows.
  virtual PodId create_pod(Pod pod) = 0;

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
  PodId create_pod(Pod pod) override;
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
};

}  // namespace orrery::fw
