#include "plugins/nodename/node_name.h"

#include "plugins/helper/hints.h"
#include "plugins/helper/keep_nodes.h"
#include "plugins/helper/names.h"

namespace orrery::plugins {

std::string_view NodeName::name() const {
  return names::kNodeName;
}

size_t NodeName::filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                        fw::Rejections& rejections) {
  const std::string& wanted = cycle.pod.node_name;
  if (wanted.empty()) return n;
  return keep_nodes_unless(nodes, n, rejections,
                           [&](NodeId id) { return cycle.state.node(id).name != wanted; });
}

void NodeName::describe(const ClusterState&, const fw::Rejection&,
                        std::vector<std::string>* reasons) const {
  reasons->push_back("node(s) didn't match the requested node name");
}

// Its verdict depends on the node alone.
fw::QueueingHint NodeName::queueing_hint(const fw::QueueEvent& event, const ClusterState&,
                                         const fw::PodClassKey&) const {
  return node_only_hint(event);
}

uint64_t NodeName::class_salt(const ClusterState& state, PodId pod) const {
  return intern(state.pod(pod).node_name);  // the requested node (0: none)
}

}  // namespace orrery::plugins
