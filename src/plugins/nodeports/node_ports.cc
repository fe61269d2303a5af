#include "plugins/nodeports/node_ports.h"

#include "plugins/helper/names.h"

namespace orrery::plugins {

bool host_port_conflict(const std::vector<ClusterState::UsedPort>& used, const HostPort& want) {
  static const StrId kAnyIp = intern("0.0.0.0");
  for (const ClusterState::UsedPort& u : used) {
    if (u.port.port != want.port || u.port.protocol != want.protocol) continue;
    // 0.0.0.0 wanted: every address's (protocol, port) pair; otherwise that address's and
    // 0.0.0.0's.
    if (want.ip == kAnyIp || u.port.ip == kAnyIp || u.port.ip == want.ip) return true;
  }
  return false;
}

std::string_view NodePorts::name() const {
  return names::kNodePorts;
}

fw::Status NodePorts::pre_filter(const fw::CycleContext& cycle,
                                 std::optional<std::vector<NodeId>>*) {
  return cycle.spec.host_ports.empty() ? fw::Status::skip() : fw::Status::ok();
}

size_t NodePorts::filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                         fw::Rejections& rejections) {
  const std::vector<HostPort>& wanted = cycle.spec.host_ports;
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    const NodeId id = nodes[i];
    const auto& used = cycle.state.used_ports(id);
    bool fits = true;
    if (!used.empty()) {
      for (const HostPort& hp : wanted) {
        if (host_port_conflict(used, hp)) {
          fits = false;
          break;
        }
      }
    }
    if (fits) {
      nodes[kept++] = id;
    } else {
      rejections.add(id, 0, 0, /*unresolvable=*/false);
    }
  }
  return kept;
}

void NodePorts::describe(const ClusterState&, const fw::Rejection&,
                         std::vector<std::string>* reasons) const {
  reasons->push_back("node(s) didn't have free ports for the requested pod ports");
}

fw::QueueingHint NodePorts::queueing_hint(const fw::QueueEvent& event, const ClusterState&,
                                          const fw::PodClassKey&) const {
  switch (event.kind) {
    case fw::QueueEvent::kPodReleased:
    case fw::QueueEvent::kNodeAdded:
    case fw::QueueEvent::kNodeUpdated:
    case fw::QueueEvent::kAll: return fw::QueueingHint::kQueue;
    default: return fw::QueueingHint::kSkip;
  }
}

uint64_t NodePorts::class_salt(const ClusterState&, PodId) const {
  return 0;  // the spec's host ports
}

}  // namespace orrery::plugins
