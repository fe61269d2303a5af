// A test backend whose actions change the state at once but whose events wait in a queue until
// deliver(), as with a real cluster or the simulator. Options: binds to `failing` nodes are
// rejected; `auto_run` makes bound pods start running (PodRunning after PodBound); `recreate`
// plays a ReplicaSet: a deleted pod with an owner is replaced by a new pending pod of that owner;
// deletions of pods named in `refuse_delete` fail (PodDeleteFailed: a PodDisruptionBudget's 429).
#pragma once

#include <deque>
#include <set>
#include <string>
#include <vector>

#include "framework/backend.h"

namespace orrery::fw::testing {

class QueuedBackend : public ClusterBackend {
 public:
  explicit QueuedBackend(ClusterState s) : state_(std::move(s)) {}
  ClusterState& state() override { return state_; }
  int64_t now_us() const override { return now; }
  void bind(PodId pod, NodeId node) override {
    ++binds;
    if (failing.count(node)) {
      state_.unassign(pod);
      queue_.push_back({{EventKind::kPodBindFailed, now, node, pod, state_.pod_serial(pod)}});
      return;
    }
    queue_.push_back({{EventKind::kPodBound, now, node, pod, state_.pod_serial(pod)}});
    if (auto_run)
      queue_.push_back({{EventKind::kPodRunning, now, node, pod, state_.pod_serial(pod)}, true});
  }
  void delete_pod(PodId pod, const std::string&) override {
    ++deletes;
    if (refuse_delete.count(state_.pod(pod).name)) {
      queue_.push_back({{EventKind::kPodDeleteFailed, now, state_.pod_node(pod), pod,
                         state_.pod_serial(pod)}});
      return;
    }
    const Pod copy = state_.pod(pod);
    const uint64_t serial = state_.pod_serial(pod);
    const NodeId n = state_.pod_node(pod);
    state_.remove_pod(pod);
    queue_.push_back({{EventKind::kPodDeleted, now, n, pod, serial}});
    if (recreate && copy.owner.kind != OwnerKind::kNone) {
      Pod p;
      p.ns = copy.ns;
      p.name = copy.owner.name + "-r" + std::to_string(++replacements);
      p.spec = copy.spec;
      p.owner = copy.owner;
      create(std::move(p));
    }
  }
  void create_pod(Pod p) override { create(std::move(p)); }
  // create_pod, returning the new pod's id (tests that need it at once).
  PodId create(Pod p) {
    const PodId id = state_.add_pod(std::move(p));
    queue_.push_back({{EventKind::kPodAdded, now, kNoNode, id, state_.pod_serial(id)}});
    return id;
  }
  bool update_pod(PodId pod, const PodUpdate& u) override {
    apply_update(state_, pod, u);
    queue_.push_back(
        {{EventKind::kPodUpdated, now, state_.pod_node(pod), pod, state_.pod_serial(pod)}});
    return true;
  }
  void add_listener(EventListener* l) override { listeners_.push_back(l); }
  void remove_listener(EventListener* l) override { std::erase(listeners_, l); }

  // Delivers queued events (and those they cause) in order.
  void deliver() {
    while (!queue_.empty()) {
      const Queued q = queue_.front();
      queue_.pop_front();
      if (q.set_running) {
        if (!state_.pod_alive(q.e.pod) || state_.pod_serial(q.e.pod) != q.e.pod_serial) continue;
        state_.set_phase(q.e.pod, PodPhase::kRunning);
      }
      for (EventListener* l : std::vector<EventListener*>(listeners_)) l->on_event(q.e);
    }
  }
  // Marks a pod running and queues its PodRunning.
  void run(PodId pod) {
    queue_.push_back(
        {{EventKind::kPodRunning, now, state_.pod_node(pod), pod, state_.pod_serial(pod)}, true});
  }
  size_t queued() const { return queue_.size(); }

  std::set<NodeId> failing;
  std::set<std::string> refuse_delete;
  bool auto_run = false;
  bool recreate = false;
  int binds = 0;
  int deletes = 0;
  int replacements = 0;
  int64_t now = 0;

 private:
  struct Queued {
    ClusterEvent e;
    bool set_running = false;
  };
  ClusterState state_;
  std::deque<Queued> queue_;
  std::vector<EventListener*> listeners_;
};

}  // namespace orrery::fw::testing
