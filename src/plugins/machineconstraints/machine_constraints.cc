#include "plugins/machineconstraints/machine_constraints.h"

#include "plugins/helper/hints.h"
#include "plugins/helper/keep_nodes.h"
#include "plugins/helper/names.h"

namespace orrery::plugins {

std::string_view MachineConstraints::name() const {
  return names::kMachineConstraints;
}

fw::Status MachineConstraints::pre_filter(const fw::CycleContext& cycle,
                                          std::optional<std::vector<NodeId>>*) {
  return cycle.spec.constraints == 0 ? fw::Status::skip() : fw::Status::ok();
}

size_t MachineConstraints::filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                                  fw::Rejections& rejections) {
  const uint64_t required = cycle.spec.constraints;
  if (required == 0) return n;
  const std::vector<uint64_t>& satisfied =
      node_constraints_.get(cycle.state, [](const Node& node) { return node.constraints; });
  return keep_nodes_unless(nodes, n, rejections,
                           [&](NodeId id) { return (required & ~satisfied[id]) != 0; });
}

void MachineConstraints::describe(const ClusterState&, const fw::Rejection&,
                                  std::vector<std::string>* reasons) const {
  reasons->push_back("node(s) didn't satisfy the pod's machine constraints");
}

// Its verdict depends on the node alone.
fw::QueueingHint MachineConstraints::queueing_hint(const fw::QueueEvent& event, const ClusterState&,
                                                   const fw::PodClassKey&) const {
  return node_only_hint(event);
}

uint64_t MachineConstraints::class_salt(const ClusterState&, PodId) const {
  return 0;
}

}  // namespace orrery::plugins
