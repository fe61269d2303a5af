// MachineConstraints (PreFilter + Filter) — an orrery plugin, not part of kube-scheduler.
//
// Pods may require machine constraints (annotation orrery.io/constraints: "1,4", or `constraints:`
// in a scenario) and nodes satisfy a set of them (annotation or label orrery.io/constraints), the
// task-constraint model of the Megha/PigeonC paper. A node is feasible when it satisfies every
// constraint the pod requires: (pod & ~node) == 0 on the 64-bit sets. Rejections are
// UnschedulableAndUnresolvable (evicting pods never changes a node's constraints), with the reason
// "node(s) didn't satisfy the pod's machine constraints".
//
// Pods without constraints make PreFilter return Skip, so a profile that enables this plugin
// behaves exactly like one without it for every pod that carries no orrery.io/constraints. It is
// not in the default profile (kube-default stays upstream-exact); enable it with
//   plugins: {multiPoint: {enabled: [{name: MachineConstraints}]}}
#pragma once

#include "framework/plugin.h"
#include "plugins/helper/node_cache.h"

namespace orrery::plugins {

class MachineConstraints : public fw::Plugin {
 public:
  std::string_view name() const override;
  uint32_t extension_points() const override { return fw::kPreFilter | fw::kFilter; }
  fw::Status pre_filter(const fw::CycleContext& cycle,
                        std::optional<std::vector<NodeId>>* only) override;
  size_t filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                fw::Rejections& rejections) override;
  void describe(const ClusterState& state, const fw::Rejection& r,
                std::vector<std::string>* reasons) const override;
  fw::QueueingHint queueing_hint(const fw::QueueEvent& event, const ClusterState& state,
                                 const fw::PodClassKey& waiting) const override;
  uint64_t class_salt(const ClusterState& state, PodId pod) const override;

 private:
  NodeCache<uint64_t> node_constraints_;
};

}  // namespace orrery::plugins
