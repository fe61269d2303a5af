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

// Fills the requested/allocatable figures of every configured resource for a batch of nodes.
class ResourceTable {
 public:
  ResourceTable(std::vector<ResourceSpec> resources, bool use_requested);
  const std::vector<ResourceSpec>& resources() const { return resources_; }
  size_t size() const { return resources_.size(); }
  // The pod's request per configured resource (calculatePodResourceRequestList).
  void pod_requests(const PodSpec& spec, int64_t* out) const;
  // Prepares per-resource array pointers for `state` and the pod's requests.
  void bind(const ClusterState& state, const int64_t* pod_requests);
  // requested[k], allocatable[k] for node `id` (after bind); left-out resources get 0, 0.
  void node_values(NodeId id, int64_t* requested, int64_t* allocatable) const {
    for (size_t k = 0; k < resources_.size(); ++k) {
      if (!use_[k]) {
        requested[k] = allocatable[k] = 0;
        continue;
      }
      allocatable[k] = alloc_[k][id];
      requested[k] = allocatable[k] == 0 ? 0 : used_[k][id] + pod_req_[k];
    }
  }

 private:
  std::vector<ResourceSpec> resources_;
  bool use_requested_;
  std::vector<const int64_t*> alloc_, used_;
  std::vector<int64_t> pod_req_;
  std::vector<uint8_t> use_;
};

}  // namespace orrery::plugins
