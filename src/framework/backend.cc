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
  emit({EventKind::kPodBound, now_us_, node, pod, state_.pod_serial(pod)});
}

void SnapshotBackend::delete_pod(PodId pod, const std::string& reason) {
  const NodeId node = state_.pod_node(pod);
  deletions_.push_back(
      {state_.pod(pod).key(), node == kNoNode ? "" : state_.node(node).name, reason});
  const uint64_t serial = state_.pod_serial(pod);
  state_.remove_pod(pod);
  emit({EventKind::kPodDeleted, now_us_, node, pod, serial});
}

PodId SnapshotBackend::create_pod(Pod pod) {
  PodId id = state_.add_pod(std::move(pod));
  emit({EventKind::kPodAdded, now_us_, state_.pod_node(id), id, state_.pod_serial(id)});
  return id;
}

void SnapshotBackend::remove_listener(EventListener* l) {
  listeners_.erase(std::remove(listeners_.begin(), listeners_.end(), l), listeners_.end());
}

}  // namespace orrery::fw
