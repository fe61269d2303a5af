#include "plugins/nodename/node_name.h"

#include "plugins/helper/names.h"

namespace orrery::plugins {

std::string_view NodeName::name() const {
  return names::kNodeName;
}

size_t NodeName::filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                        fw::Rejections& rejections) {
  const std::string& wanted = cycle.pod.node_name;
  if (wanted.empty()) return n;
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    const NodeId id = nodes[i];
    if (cycle.state.node(id).name == wanted) {
      nodes[kept++] = id;
    } else {
      rejections.add(id, 0, 0, /*unresolvable=*/true);
    }
  }
  return kept;
}

void NodeName::describe(const ClusterState&, const fw::Rejection&,
                        std::vector<std::string>* reasons) const {
  reasons->push_back("node(s) didn't match the requested node name");
}

}  // namespace orrery::plugins
