// NodeName (Filter): a pod that names a node (spec.nodeName) fits only that node. Reason
// "node(s) didn't match the requested node name" (UnschedulableAndUnresolvable). Pods read with a
// nodeName are bound on load, so this matters for pods created with a nodeName later.
#pragma once

#include "framework/plugin.h"

namespace orrery::plugins {

class NodeName : public fw::Plugin {
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
};

}  // namespace orrery::plugins
