// NodeUnschedulable (Filter): rejects nodes with spec.unschedulable unless the pod tolerates the
// node.kubernetes.io/unschedulable:NoSchedule taint. Reason "node(s) were unschedulable"
// (UnschedulableAndUnresolvable).
#pragma once

#include "framework/plugin.h"
#include "plugins/helper/node_cache.h"

namespace orrery::plugins {

class NodeUnschedulable : public fw::Plugin {
 public:
  std::string_view name() const override;
  uint32_t extension_points() const override { return fw::kFilter; }
  size_t filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                fw::Rejections& rejections) override;
  void describe(const ClusterState& state, const fw::Rejection& r,
                std::vector<std::string>* reasons) const override;
  fw::QueueingHint queueing_hint(const fw::QueueEvent& event, const ClusterState& state,
                                 const fw::PodClassKey& waiting) const override;
  uint64_t class_salt(const ClusterState& state, PodId pod) const override;

 private:
  NodeCache<uint8_t> unschedulable_;
};

}  // namespace orrery::plugins
