// NodePorts (PreFilter, Filter), as upstream v1.34 (pkg/scheduler/framework/plugins/nodeports):
//  - PreFilter: Skip when the pod takes no host port (PodSpec::host_ports, schedutil.GetHostPorts:
//    app containers and restartable init containers).
//  - Filter: a node is rejected when one of the pod's host ports conflicts with a port in use
//    there (ClusterState::used_ports, kept incrementally like NodeInfo.UsedPorts) —
//    HostPortInfo.CheckConflict: same protocol and port, and the same hostIP or either side on
//    0.0.0.0 (every address). Reason "node(s) didn't have free ports for the requested pod
//    ports", Unschedulable (preemption may free the port).
#pragma once

#include "framework/plugin.h"

namespace orrery::plugins {

// HostPortInfo.CheckConflict of one wanted port against a node's used ports.
bool host_port_conflict(const std::vector<ClusterState::UsedPort>& used, const HostPort& want);

class NodePorts : public fw::Plugin {
 public:
  std::string_view name() const override;
  uint32_t extension_points() const override { return fw::kPreFilter | fw::kFilter; }
  fw::Status pre_filter(const fw::CycleContext& cycle,
                        std::optional<std::vector<NodeId>>* only) override;
  size_t filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                fw::Rejections& rejections) override;
  void describe(const ClusterState& state, const fw::Rejection& r,
                std::vector<std::string>* reasons) const override;
  // A freed port (a pod released) or a new node may help; the ports are part of the spec.
  fw::QueueingHint queueing_hint(const fw::QueueEvent& event, const ClusterState& state,
                                 const fw::PodClassKey& waiting) const override;
  uint64_t class_salt(const ClusterState& state, PodId pod) const override;
};

}  // namespace orrery::plugins
