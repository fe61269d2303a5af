// NodeResourcesBalancedAllocation (PreScore, Score; default weight 1), as upstream v1.34: favours
// nodes whose resource fractions (requested incl. the pod / allocatable, real requests without
// the non-zero defaults) are close to each other: (1 - std) × 100. PreScore skips best-effort pods
// (no request for any configured resource), as upstream does since v1.33.
// Args: resources [{name, weight: 1}] (default cpu and memory).
#pragma once

#include <vector>

#include "framework/plugin.h"
#include "io/yaml_util.h"
#include "plugins/noderesources/resource_allocation.h"

namespace orrery::plugins {

struct BalancedAllocationArgs {
  std::vector<ResourceSpec> resources = default_scoring_resources();
  static BalancedAllocationArgs parse(const yaml::Ctx& args);
};

class NodeResourcesBalancedAllocation : public fw::Plugin {
 public:
  explicit NodeResourcesBalancedAllocation(BalancedAllocationArgs args = {});
  std::string_view name() const override;
  uint32_t extension_points() const override { return fw::kPreScore | fw::kScore; }
  fw::Status pre_score(const fw::CycleContext& cycle, std::span<const NodeId> nodes) override;
  void score(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
             int64_t* scores) override;

 private:
  ResourceTable table_;
  int64_t pod_req_[kMaxResources];
};

}  // namespace orrery::plugins
