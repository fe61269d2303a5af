// Resource scoring shared by NodeResourcesFit (LeastAllocated, MostAllocated,
// RequestedToCapacityRatio) and NodeResourcesBalancedAllocation, with upstream's integer
// arithmetic (pkg/scheduler/framework/plugins/noderesources, v1.34):
//
//   for each configured resource r (calculateResourceAllocatableRequest):
//     a scalar resource (anything but cpu, memory, ephemeral-storage) the pod does not request,
//     "pods", or a resource the node does not have (allocatable 0) is left out;
//     allocatable = node allocatable, requested = node's requested + pod's request, where cpu and
//     memory use the non-zero figures (100m / 200Mi per container without a request) unless the
//     scorer uses real requests (BalancedAllocation does).
//   LeastAllocated  Σ w·((alloc-req)·100/alloc, 0 if req > alloc) / Σ w      (integer division)
//   MostAllocated   Σ w·(min(req,alloc)·100/alloc) / Σ w
//   RequestedToCapacityRatio  Σ w·f(req·100/alloc) / Σ w over resources with f > 0, rounded;
//                   f is the broken-linear shape (scores 0..10 scaled ×10), f(100) when req > alloc
//   BalancedAllocation  (1 - std(min(req/alloc, 1))) · 100, truncated; std of two fractions is
//                   |f1 - f2| / 2.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/cluster_state.h"
#include "plugins/helper/node_cache.h"
#include "plugins/helper/score_memo.h"

namespace orrery::plugins {

struct ResourceSpec {
  std::string name;
  ResourceId id = kCpu;
  int64_t weight = 1;
};

struct ShapePoint {
  int64_t utilization = 0;  // 0..100
  int64_t score = 0;        // 0..100 (the configured 0..10 × 10)
};

// The default scoring resources: cpu and memory, weight 1.
std::vector<ResourceSpec> default_scoring_resources();

int64_t least_allocated_score(std::span<const int64_t> requested,
                              std::span<const int64_t> allocatable,
                              std::span<const ResourceSpec> resources);
int64_t most_allocated_score(std::span<const int64_t> requested,
                             std::span<const int64_t> allocatable,
                             std::span<const ResourceSpec> resources);
int64_t broken_linear(const std::vector<ShapePoint>& shape, int64_t p);
int64_t requested_to_capacity_ratio_score(std::span<const int64_t> requested,
                                          std::span<const int64_t> allocatable,
                                          std::span<const ResourceSpec> resources,
                                          const std::vector<ShapePoint>& shape);
int64_t balanced_allocation_score(std::span<const int64_t> requested,
                                  std::span<const int64_t> allocatable);

// The configured scoring resources bound to a cluster state: per-resource arrays and per-node
// reciprocals of allocatable, so the batch score loops below divide without integer divisions.
// They compute exactly what the span functions above compute from node_values(), and memoise
// per-node scores across runs of pods with equal requests (ScoreMemo).
class ResourceTable {
 public:
  ResourceTable(std::vector<ResourceSpec> resources, bool use_requested);
  const std::vector<ResourceSpec>& resources() const { return resources_; }
  size_t size() const { return resources_.size(); }
  // The pod's request per configured resource (calculatePodResourceRequestList).
  void pod_requests(const PodSpec& spec, int64_t* out) const;
  // Prepares the per-resource arrays for `state` and the pod's requests.
  void bind(const ClusterState& state, const int64_t* pod_requests);
  // requested[k], allocatable[k] for node `id` (after bind); left-out resources get 0, 0.
  void node_values(NodeId id, int64_t* requested, int64_t* allocatable) const;

  void least_allocated(std::span<const NodeId> nodes, int64_t* scores);
  void most_allocated(std::span<const NodeId> nodes, int64_t* scores);
  void balanced(std::span<const NodeId> nodes, int64_t* scores);
  // Any other per-node score of the bound resources (`compute(NodeId) -> int64_t` in [0, 100]),
  // memoised under the key `kind` like the three above.
  template <class Compute>
  void score_with(int kind, std::span<const NodeId> nodes, int64_t* scores, Compute&& compute) {
    memo_.score(begin_memo(kind), nodes.data(), nodes.size(), scores, compute);
  }
  enum MemoKind : int { kLeastAllocated, kMostAllocated, kBalanced, kFirstCustom };

 private:
  int64_t weighted_mean(int64_t node_score, int64_t weight_sum) const;
  // Starts a memoised batch: the key is the score kind and the bound pod requests.
  bool begin_memo(int kind);

  std::vector<ResourceSpec> resources_;
  bool use_requested_;
  std::vector<NodeCache<double>> inv_cache_;  // 1 / allocatable per resource
  // Bound state: the resources used for this pod (see calculateResourceAllocatableRequest).
  size_t active_ = 0;
  size_t index_[kMaxResources];  // active → configured index
  const int64_t* alloc_[kMaxResources];
  const int64_t* used_[kMaxResources];
  const double* inv_[kMaxResources];
  int64_t pod_req_[kMaxResources];
  int64_t weight_[kMaxResources];
  int64_t full_weight_ = 0;  // Σ active weights, and its reciprocal
  double inv_full_weight_ = 0;
  const ClusterState* state_ = nullptr;
  ScoreMemo memo_;
};

}  // namespace orrery::plugins
