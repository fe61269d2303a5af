#include "plugins/noderesources/resource_allocation.h"

#include <cmath>

namespace orrery::plugins {

std::vector<ResourceSpec> default_scoring_resources() {
  return {{"cpu", kCpu, 1}, {"memory", kMemory, 1}};
}

int64_t least_allocated_score(std::span<const int64_t> requested,
                              std::span<const int64_t> allocatable,
                              std::span<const ResourceSpec> resources) {
  int64_t node_score = 0, weight_sum = 0;
  for (size_t i = 0; i < requested.size(); ++i) {
    const int64_t cap = allocatable[i];
    if (cap == 0) continue;
    const int64_t req = requested[i];
    const int64_t s = req > cap ? 0 : (cap - req) * 100 / cap;
    node_score += s * resources[i].weight;
    weight_sum += resources[i].weight;
  }
  return weight_sum == 0 ? 0 : node_score / weight_sum;
}

int64_t most_allocated_score(std::span<const int64_t> requested,
                             std::span<const int64_t> allocatable,
                             std::span<const ResourceSpec> resources) {
  int64_t node_score = 0, weight_sum = 0;
  for (size_t i = 0; i < requested.size(); ++i) {
    const int64_t cap = allocatable[i];
    if (cap == 0) continue;
    // Requests may exceed capacity because pods without requests count the non-zero defaults.
    const int64_t req = requested[i] > cap ? cap : requested[i];
    node_score += req * 100 / cap * resources[i].weight;
    weight_sum += resources[i].weight;
  }
  return weight_sum == 0 ? 0 : node_score / weight_sum;
}

int64_t broken_linear(const std::vector<ShapePoint>& shape, int64_t p) {
  for (size_t i = 0; i < shape.size(); ++i) {
    if (p <= shape[i].utilization) {
      if (i == 0) return shape[0].score;
      const ShapePoint& a = shape[i - 1];
      const ShapePoint& b = shape[i];
      return a.score + (b.score - a.score) * (p - a.utilization) / (b.utilization - a.utilization);
    }
  }
  return shape.back().score;
}

int64_t requested_to_capacity_ratio_score(std::span<const int64_t> requested,
                                          std::span<const int64_t> allocatable,
                                          std::span<const ResourceSpec> resources,
                                          const std::vector<ShapePoint>& shape) {
  int64_t node_score = 0, weight_sum = 0;
  for (size_t i = 0; i < requested.size(); ++i) {
    const int64_t cap = allocatable[i];
    if (cap == 0) continue;
    const int64_t req = requested[i];
    const int64_t s = req > cap ? broken_linear(shape, 100) : broken_linear(shape, req * 100 / cap);
    if (s > 0) {
      node_score += s * resources[i].weight;
      weight_sum += resources[i].weight;
    }
  }
  if (weight_sum == 0) return 0;
  return std::llround(static_cast<double>(node_score) / static_cast<double>(weight_sum));
}

int64_t balanced_allocation_score(std::span<const int64_t> requested,
                                  std::span<const int64_t> allocatable) {
  double fractions[kMaxResources];
  size_t n = 0;
  double total = 0;
  for (size_t i = 0; i < requested.size(); ++i) {
    if (allocatable[i] == 0) continue;
    double f = static_cast<double>(requested[i]) / static_cast<double>(allocatable[i]);
    if (f > 1) f = 1;
    total += f;
    fractions[n++] = f;
  }
  double std_dev = 0;
  if (n == 2) {
    std_dev = std::abs((fractions[0] - fractions[1]) / 2);
  } else if (n > 2) {
    const double mean = total / static_cast<double>(n);
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum = sum + (fractions[i] - mean) * (fractions[i] - mean);
    std_dev = std::sqrt(sum / static_cast<double>(n));
  }
  return static_cast<int64_t>((1 - std_dev) * 100.0);
}

ResourceTable::ResourceTable(std::vector<ResourceSpec> resources, bool use_requested)
    : resources_(std::move(resources)),
      use_requested_(use_requested),
      alloc_(resources_.size()),
      used_(resources_.size()),
      pod_req_(resources_.size()),
      use_(resources_.size()) {}

void ResourceTable::pod_requests(const PodSpec& spec, int64_t* out) const {
  for (size_t k = 0; k < resources_.size(); ++k) {
    const ResourceId r = resources_[k].id;
    out[k] = use_requested_ ? spec.request[r] : spec.nonzero_request[r];
  }
  // Every pod takes a pod slot, but "pods" is not a scoring resource upstream.
  for (size_t k = 0; k < resources_.size(); ++k)
    if (resources_[k].id == kPods) out[k] = 0;
}

void ResourceTable::bind(const ClusterState& state, const int64_t* pod_requests) {
  for (size_t k = 0; k < resources_.size(); ++k) {
    const ResourceId r = resources_[k].id;
    pod_req_[k] = pod_requests[k];
    alloc_[k] = state.allocatable(r);
    // Only cpu and memory have non-zero figures; ephemeral storage and scalars use requests.
    used_[k] = use_requested_ ? state.requested(r) : state.nonzero_requested(r);
    const bool scalar = r != kCpu && r != kMemory && r != kEphemeralStorage;
    use_[k] = r != kPods && !(scalar && pod_requests[k] == 0);
  }
}

}  // namespace orrery::plugins
