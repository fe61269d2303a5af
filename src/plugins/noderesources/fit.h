// NodeResourcesFit (PreFilter, Filter, PreScore, Score; default weight 1), as upstream v1.34:
//  - Filter (fitsRequest): "Too many pods" when the node's pod count + 1 exceeds allocatable pods;
//    then, for every resource the pod requests (cpu, memory, ephemeral-storage, scalars; extended
//    resources in ignoredResources / ignoredResourceGroups skipped), "Insufficient <name>" when the
//    request exceeds allocatable - requested. All reasons are reported; the node is
//    UnschedulableAndUnresolvable when some request exceeds the node's whole allocatable
//    (preemption cannot help), else Unschedulable.
//  - Score: scoringStrategy LeastAllocated (default), MostAllocated or RequestedToCapacityRatio
//    over `resources` (default cpu and memory, weight 1) with the non-zero cpu/memory requests
//    (see resource_allocation.h).
// Args (NodeResourcesFitArgs): ignoredResources, ignoredResourceGroups, scoringStrategy {type,
// resources [{name, weight 1..100}], requestedToCapacityRatio {shape [{utilization 0..100,
// score 0..10}]}} (shape defaults to {0:10, 100:0}).
#pragma once

#include <string>
#include <vector>

#include "framework/plugin.h"
#include "io/yaml_util.h"
#include "plugins/noderesources/resource_allocation.h"

namespace orrery::plugins {

enum class ScoringStrategy : uint8_t { kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio };

struct NodeResourcesFitArgs {
  std::vector<std::string> ignored_resources;
  std::vector<std::string> ignored_resource_groups;
  ScoringStrategy strategy = ScoringStrategy::kLeastAllocated;
  std::vector<ResourceSpec> resources = default_scoring_resources();
  std::vector<ShapePoint> shape;  // RequestedToCapacityRatio
  static NodeResourcesFitArgs parse(const yaml::Ctx& args);
};

class NodeResourcesFit : public fw::Plugin {
 public:
  explicit NodeResourcesFit(NodeResourcesFitArgs args = {});
  std::string_view name() const override;
  uint32_t extension_points() const override {
    return fw::kPreFilter | fw::kFilter | fw::kPreScore | fw::kScore;
  }
  fw::Status pre_filter(const fw::CycleContext& cycle,
                        std::optional<std::vector<NodeId>>* only) override;
  size_t filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                fw::Rejections& rejections) override;
  void describe(const ClusterState& state, const fw::Rejection& r,
                std::vector<std::string>* reasons) const override;
  fw::QueueingHint queueing_hint(const fw::QueueEvent& event, const ClusterState& state,
                                 const fw::PodClassKey& waiting) const override;
  uint64_t class_salt(const ClusterState& state, PodId pod) const override;
  fw::Status pre_score(const fw::CycleContext& cycle, std::span<const NodeId> nodes) override;
  void score(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
             int64_t* scores) override;

 private:
  bool ignored(ResourceId r) const;
  NodeResourcesFitArgs args_;
  ResourceTable table_;
  // PreFilter state: the requested resources to check and the pod's requests.
  ResourceId check_ids_[kMaxResources];
  int64_t check_req_[kMaxResources];
  size_t num_checks_ = 0;
  int64_t pod_req_[kMaxResources];  // PreScore state, per configured scoring resource
};

}  // namespace orrery::plugins
