#include "plugins/nodename/node_name.h"

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

}  // namespace orrery::plugins
