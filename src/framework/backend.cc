#include "framework/backend.h"

#include <algorithm>

namespace orrery::fw {

std::string_view to_string(EventKind k) {
  switch (k) {
    case EventKind::kNodeAdded: return "NodeAdded";
    case EventKind::kNodeUpdated: return "NodeUpdated";
    case EventKind::kNodeRemoved: return "NodeRemoved";
    case EventKind::kPodAdded: return "PodAdded";
    case EventKind::kPodBound: return "PodBound";
    case EventKind::kPodBindFailed: return "PodBindFailed";
    case EventKind::kPodRunning: return "PodRunning";
    case EventKind::kPodFinished: return "PodFinished";
    case EventKind::kPodDeleted: return "PodDeleted";
    case EventKind::kPodUpdated: return "PodUpdated";
    case EventKind::kPodTerminating: return "PodTerminating";
    case EventKind::kPodDeleteFailed: return "PodDeleteFailed";
  }
  return "";
}

void SnapshotBackend::emit(const ClusterEvent& e) {
  // No copy of the list (one event per bind): a listener added during delivery gets the next
  // events only; one removed during delivery is not called again.
  const size_t n = listeners_.size();
  for (size_t i = 0; i < n && i < listeners_.size(); ++i) listeners_[i]->on_event(e);
}

void SnapshotBackend::bind(PodId pod, NodeId node) {
  const uint64_t serial = state_.pod_serial(pod);
  if (refusals_.bind) {
    if (std::string why = refusals_.bind(state_, pod, node); !why.empty()) {
      state_.unassign(pod);
      emit({EventKind::kPodBindFailed, now_us_, node, pod, serial, why});
      return;
    }
  }
  emit({EventKind::kPodBound, now_us_, node, pod, serial});
}

void SnapshotBackend::delete_pod(PodId pod, const std::string& reason) {
  const NodeId node = state_.pod_node(pod);
  const uint64_t serial = state_.pod_serial(pod);
  if (refusals_.remove) {
    if (std::string why = refusals_.remove(state_, pod); !why.empty()) {
      emit({EventKind::kPodDeleteFailed, now_us_, node, pod, serial, why});
      return;
    }
  }
  deletions_.push_back(
      {state_.pod(pod).key(), node == kNoNode ? "" : state_.node(node).name, reason});
  if (state_.pod(pod).phase == PodPhase::kRunning) {  // started: it terminates first
    state_.set_terminating(pod);
    emit({EventKind::kPodTerminating, now_us_, node, pod, serial, reason});
    if (!state_.pod_alive(pod) || state_.pod_serial(pod) != serial) return;
  }
  state_.remove_pod(pod);
  emit({EventKind::kPodDeleted, now_us_, node, pod, serial});
}

void SnapshotBackend::create_pod(Pod pod) {
  PodId id = state_.add_pod(std::move(pod));
  emit({EventKind::kPodAdded, now_us_, state_.pod_node(id), id, state_.pod_serial(id)});
}

bool SnapshotBackend::update_pod(PodId pod, const PodUpdate& update) {
  apply_update(state_, pod, update);
  emit({EventKind::kPodUpdated, now_us_, state_.pod_node(pod), pod, state_.pod_serial(pod)});
  return true;
}

void apply_update(ClusterState& state, PodId pod, const PodUpdate& update) {
  if (update.spec) {
    auto spec = std::make_shared<PodSpec>(*state.pod(pod).spec);
    update.spec(*spec);
    spec->finalize();
    state.replace_spec(pod, std::move(spec));
  }
  if (update.scheduling_gates) state.set_scheduling_gates(pod, *update.scheduling_gates);
}

void SnapshotBackend::remove_listener(EventListener* l) {
  listeners_.erase(std::remove(listeners_.begin(), listeners_.end(), l), listeners_.end());
}

}  // namespace orrery::fw
