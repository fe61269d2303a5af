#include "framework/plugin.h"

namespace orrery::fw {

std::string_view to_string(ExtensionPoint p) {
  switch (p) {
    case kQueueSort: return "queueSort";
    case kPreFilter: return "preFilter";
    case kFilter: return "filter";
    case kPostFilter: return "postFilter";
    case kPreScore: return "preScore";
    case kScore: return "score";
    case kReserve: return "reserve";
    case kPermit: return "permit";
    case kPreBind: return "preBind";
    case kBind: return "bind";
    case kPostBind: return "postBind";
    case kPreEnqueue: return "preEnqueue";
    case kMutate: return "mutate";
  }
  return "";
}

// Defaults: a plugin only overrides the points it implements.
Status Plugin::pre_enqueue(const ClusterState&, PodId) {
  return Status::ok();
}
std::optional<PodUpdate> Plugin::mutate(const CycleContext&, NodeId) {
  return std::nullopt;
}
bool Plugin::less(const QueuedPod& a, const QueuedPod& b) const {
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.timestamp_us != b.timestamp_us) return a.timestamp_us < b.timestamp_us;
  return a.serial < b.serial;
}
Status Plugin::pre_filter(const CycleContext&, std::optional<std::vector<NodeId>>*) {
  return Status::ok();
}
void Plugin::pre_filter_remove_pod(const CycleContext&, PodId, NodeId) {}
void Plugin::pre_filter_add_pod(const CycleContext&, PodId, NodeId) {}
size_t Plugin::filter(const CycleContext&, NodeId*, size_t n, Rejections&) {
  return n;
}
void Plugin::describe(const ClusterState&, const Rejection&,
                      std::vector<std::string>* reasons) const {
  reasons->push_back("node(s) rejected by " + std::string(name()));
}
PostFilterResult Plugin::post_filter(const CycleContext&, Handle&, const Rejections&) {
  return {Status::unschedulable(name(), "not implemented"), kNoNode, {}, {}};
}
Status Plugin::pre_score(const CycleContext&, std::span<const NodeId>) {
  return Status::ok();
}
void Plugin::score(const CycleContext&, std::span<const NodeId> nodes, int64_t* scores) {
  for (size_t i = 0; i < nodes.size(); ++i) scores[i] = 0;
}
void Plugin::normalize(const CycleContext&, std::span<const NodeId>, int64_t*) {}
std::optional<int64_t> Plugin::uniform_score(const CycleContext&, std::span<const NodeId>) {
  return std::nullopt;
}
Status Plugin::reserve(const CycleContext&, NodeId) {
  return Status::ok();
}
void Plugin::unreserve(const CycleContext&, NodeId) {}
Status Plugin::permit(const CycleContext&, NodeId) {
  return Status::ok();
}
Status Plugin::pre_bind(const CycleContext&, NodeId) {
  return Status::ok();
}
Status Plugin::bind(const CycleContext&, NodeId, ClusterBackend&) {
  return Status::skip();
}
void Plugin::post_bind(const CycleContext&, NodeId) {}
void Plugin::on_event(const ClusterEvent&) {}
QueueingHint Plugin::queueing_hint(const QueueEvent&, const ClusterState&,
                                   const PodClassKey&) const {
  return QueueingHint::kQueue;
}
uint64_t Plugin::class_salt(const ClusterState&, PodId) const {
  return kUniqueClass;
}

}  // namespace orrery::fw
