#include "plugins/nodeunschedulable/node_unschedulable.h"

#include "plugins/helper/hints.h"
#include "plugins/helper/keep_nodes.h"
#include "plugins/helper/names.h"

namespace orrery::plugins {

std::string_view NodeUnschedulable::name() const {
  return names::kNodeUnschedulable;
}

size_t NodeUnschedulable::filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                                 fw::Rejections& rejections) {
  const std::vector<uint8_t>& flag = unschedulable_.get(
      cycle.state, [](const Node& node) -> uint8_t { return node.unschedulable; });
  static const Taint kUnschedulableTaint{intern("node.kubernetes.io/unschedulable"), kNoStr,
                                         TaintEffect::kNoSchedule};
  if (!unschedulable_.any() || tolerates(cycle.spec.tolerations, kUnschedulableTaint)) return n;
  return keep_nodes_unless(nodes, n, rejections, [&](NodeId id) { return flag[id] != 0; });
}

void NodeUnschedulable::describe(const ClusterState&, const fw::Rejection&,
                                 std::vector<std::string>* reasons) const {
  reasons->push_back("node(s) were unschedulable");
}

// Its verdict depends on the node alone.
fw::QueueingHint NodeUnschedulable::queueing_hint(const fw::QueueEvent& event, const ClusterState&,
                                                  const fw::PodClassKey&) const {
  return node_only_hint(event);
}

uint64_t NodeUnschedulable::class_salt(const ClusterState&, PodId) const {
  return 0;
}

}  // namespace orrery::plugins
