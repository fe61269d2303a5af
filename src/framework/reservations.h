// Room promised to pods that are not (yet) bound there, shared by everything that schedules in
// one runtime, so that room freed for one purpose is not taken by another:
//
//   nomination  a pod that preempted victims waits for them to go (upstream's nominatedNodeName);
//               it blocks pods of lower or equal priority, as upstream's
//               RunFilterPluginsWithNominatedPods does
//   plan        a plan's bind step not verified yet (the room its earlier deletions free); it
//               blocks every other pod
//   capacity    room a policy holds for pods it expects (CARICO's reserved Pod-Capacity)
//
// The scheduler cycle counts the reservations visible to the pod being scheduled (not its own)
// on their nodes while it filters; the plan executor adds and removes plan reservations. A
// reservation for an existing pending pod counts that pod's requests; one for a pod to be created
// counts `spec`'s. Iteration is in a fixed order (holder serial, then id), so results never depend
// on insertion history.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <vector>

#include "core/cluster_state.h"

namespace orrery::fw {

enum class ReservationKind : uint8_t { kNomination, kPlan, kCapacity };

inline constexpr int32_t kBlocksEveryone = std::numeric_limits<int32_t>::max();

struct Reservation {
  ReservationKind kind = ReservationKind::kPlan;
  NodeId node = kNoNode;
  uint64_t holder = 0;  // serial of the pod it is held for; 0 for a pod not created yet
  PodId pod = kNoPod;   // the holder's id while it exists and is pending
  std::shared_ptr<const PodSpec> spec;  // what it holds when pod == kNoPod
  int32_t priority = kBlocksEveryone;   // blocks pods whose priority is <= this
  uint64_t owner = 0;                   // e.g. the plan id
};

using ReservationId = uint64_t;

class Reservations {
 public:
  ReservationId add(Reservation r);
  void remove(ReservationId id);
  // Every reservation of `kind` with this owner (e.g. a finished plan's).
  void remove_owned(ReservationKind kind, uint64_t owner);

  // Nominations: at most one per pod.
  void nominate(uint64_t serial, PodId pod, NodeId node, int32_t priority);
  // The node a pod is nominated to, or kNoNode.
  NodeId nominated_node(uint64_t serial) const;
  void clear_nomination(uint64_t serial);
  // The pod's nomination, or nullptr.
  const Reservation* nomination(uint64_t serial) const;
  // Serials (ascending) of the pods nominated to `node`: all, or those with priority < `below`
  // (whose nominations a preemptor of priority `below` takes over, upstream prepareCandidate).
  std::vector<uint64_t> nominations_on(NodeId node,
                                       int32_t below = std::numeric_limits<int32_t>::max()) const;
  std::vector<uint64_t> nominations_below(NodeId node, int32_t below) const {
    return nominations_on(node, below);
  }
  bool has_nominations() const { return !nomination_of_.empty(); }

  // The pod is gone: drops what is held for it.
  void forget_pod(uint64_t serial);
  // The node is gone: drops what is held on it.
  void forget_node(NodeId node);

  bool empty() const { return by_key_.empty(); }
  size_t size() const { return by_key_.size(); }
  // Changes whenever the set changes.
  uint64_t version() const { return version_; }

  // Counts, in `state`, the reservations that a pod with (serial, priority) must respect — those
  // of other holders with priority >= its own, on `only_node` if given — on their nodes. Returns
  // a token for release(). Reservations whose pod is gone, bound, or whose node is gone are
  // skipped.
  struct Applied {
    std::vector<PodId> pods;
    std::vector<std::pair<NodeId, const PodSpec*>> held;
  };
  void apply(ClusterState& state, uint64_t serial, int32_t priority, NodeId only_node,
             Applied* applied) const;
  static void release(ClusterState& state, const Applied& applied);

  // Told of every reservation removed that is not a nomination (a plan's or a capacity
  // reservation): its room is free again. Nominations are their schedulers' own business.
  class Listener {
   public:
    virtual ~Listener() = default;
    virtual void on_released(const Reservation& r) = 0;
  };
  void add_listener(Listener* l) { listeners_.push_back(l); }
  void remove_listener(Listener* l);

  template <class F>
  void for_each(F&& f) const {
    for (const auto& [key, r] : by_key_) f(key.second, r);
  }

 private:
  using Key = std::pair<uint64_t, ReservationId>;  // (holder serial, id)
  std::map<Key, Reservation> by_key_;
  std::map<ReservationId, Key> key_of_;
  std::map<uint64_t, ReservationId> nomination_of_;  // pod serial → its nomination
  std::vector<Listener*> listeners_;
  ReservationId next_id_ = 1;
  uint64_t version_ = 0;
};

}  // namespace orrery::fw
