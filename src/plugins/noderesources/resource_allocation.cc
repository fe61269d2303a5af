#include "plugins/noderesources/resource_allocation.h"

#include <algorithm>
#include <cmath>

#include "plugins/helper/fast_div.h"

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
      inv_cache_(resources_.size()) {}

void ResourceTable::pod_requests(const PodSpec& spec, int64_t* out) const {
  for (size_t k = 0; k < resources_.size(); ++k) {
    const ResourceId r = resources_[k].id;
    // Every pod takes a pod slot, but "pods" is not a scoring resource upstream.
    out[k] = r == kPods ? 0 : use_requested_ ? spec.request[r] : spec.nonzero_request[r];
  }
}

void ResourceTable::bind(const ClusterState& state, const int64_t* pod_requests) {
  state_ = &state;
  active_ = 0;
  full_weight_ = 0;
  for (size_t k = 0; k < resources_.size(); ++k) {
    const ResourceId r = resources_[k].id;
    const bool scalar = r != kCpu && r != kMemory && r != kEphemeralStorage;
    if (r == kPods || (scalar && pod_requests[k] == 0)) continue;
    const size_t a = active_++;
    index_[a] = k;
    alloc_[a] = state.allocatable(r);
    // Only cpu and memory have non-zero figures; ephemeral storage and scalars use requests.
    used_[a] = use_requested_ ? state.requested(r) : state.nonzero_requested(r);
    inv_[a] =
        inv_cache_[k]
            .get(state,
                 [r](const Node& n) {
                   return n.allocatable[r] > 0 ? 1.0 / static_cast<double>(n.allocatable[r]) : 0.0;
                 })
            .data();
    pod_req_[a] = pod_requests[k];
    weight_[a] = resources_[k].weight;
    full_weight_ += weight_[a];
  }
  inv_full_weight_ = full_weight_ > 0 ? 1.0 / static_cast<double>(full_weight_) : 0;
}

void ResourceTable::node_values(NodeId id, int64_t* requested, int64_t* allocatable) const {
  for (size_t k = 0; k < resources_.size(); ++k) requested[k] = allocatable[k] = 0;
  for (size_t a = 0; a < active_; ++a) {
    const int64_t cap = alloc_[a][id];
    allocatable[index_[a]] = cap;
    requested[index_[a]] = cap == 0 ? 0 : used_[a][id] + pod_req_[a];
  }
}

int64_t ResourceTable::weighted_mean(int64_t node_score, int64_t weight_sum) const {
  if (weight_sum == 0) return 0;
  if (weight_sum == full_weight_) return div_floor(node_score, full_weight_, inv_full_weight_);
  return node_score / weight_sum;
}

bool ResourceTable::begin_memo(int kind) {
  int64_t key[ScoreMemo::kMaxKey];
  size_t len = 0;
  key[len++] = kind;
  key[len++] = static_cast<int64_t>(active_);
  for (size_t a = 0; a < active_; ++a) {
    key[len++] = static_cast<int64_t>(index_[a]);
    key[len++] = pod_req_[a];
  }
  return memo_.begin(*state_, key, len);
}

// The batch loops copy the bound arrays into locals first: stores through `scores` could alias
// the members, which would make the compiler reload them for every node.

void ResourceTable::least_allocated(std::span<const NodeId> nodes, int64_t* scores) {
  const size_t active = active_;
  const int64_t* alloc[kMaxResources];
  const int64_t* used[kMaxResources];
  const double* inv[kMaxResources];
  int64_t req0[kMaxResources], weight[kMaxResources];
  for (size_t a = 0; a < active; ++a) {
    alloc[a] = alloc_[a];
    used[a] = used_[a];
    inv[a] = inv_[a];
    req0[a] = pod_req_[a];
    weight[a] = weight_[a];
  }
  const int64_t full = full_weight_;
  const double inv_full = inv_full_weight_;
  auto resource_score = [&](size_t a, NodeId id) {
    const int64_t cap = alloc[a][id];
    const int64_t req = used[a][id] + req0[a];
    return req > cap ? 0 : div_floor((cap - req) * 100, cap, inv[a][id]);
  };
  const bool use_memo = begin_memo(kLeastAllocated);
  if (active == 2 && weight[0] == 1 && weight[1] == 1) {
    // The default (cpu and memory, weight 1); a node without either figure is rare.
    memo_.score(use_memo, nodes.data(), nodes.size(), scores, [&](NodeId id) -> int64_t {
      if (alloc[0][id] == 0 || alloc[1][id] == 0) {
        int64_t sum = 0, w = 0;
        for (size_t a = 0; a < 2; ++a) {
          if (alloc[a][id] == 0) continue;
          sum += resource_score(a, id);
          ++w;
        }
        return w == 0 ? 0 : sum / w;
      }
      return (resource_score(0, id) + resource_score(1, id)) >> 1;  // both >= 0
    });
    return;
  }
  memo_.score(use_memo, nodes.data(), nodes.size(), scores, [&](NodeId id) -> int64_t {
    int64_t node_score = 0, weight_sum = 0;
    for (size_t a = 0; a < active; ++a) {
      if (alloc[a][id] == 0) continue;
      node_score += resource_score(a, id) * weight[a];
      weight_sum += weight[a];
    }
    return weight_sum == 0      ? 0
           : weight_sum == full ? div_floor(node_score, full, inv_full)
                                : node_score / weight_sum;
  });
}

void ResourceTable::most_allocated(std::span<const NodeId> nodes, int64_t* scores) {
  memo_.score(begin_memo(kMostAllocated), nodes.data(), nodes.size(), scores, [&](NodeId id) {
    int64_t node_score = 0, weight_sum = 0;
    for (size_t a = 0; a < active_; ++a) {
      const int64_t cap = alloc_[a][id];
      if (cap == 0) continue;
      const int64_t req = std::min(used_[a][id] + pod_req_[a], cap);
      node_score += div_floor(req * 100, cap, inv_[a][id]) * weight_[a];
      weight_sum += weight_[a];
    }
    return weighted_mean(node_score, weight_sum);
  });
}

void ResourceTable::balanced(std::span<const NodeId> nodes, int64_t* scores) {
  const size_t active = active_;
  const int64_t* alloc[kMaxResources];
  const int64_t* used[kMaxResources];
  int64_t req0[kMaxResources];
  for (size_t a = 0; a < active; ++a) {
    alloc[a] = alloc_[a];
    used[a] = used_[a];
    req0[a] = pod_req_[a];
  }
  auto fraction = [&](size_t a, NodeId id) {
    // A true division, as upstream: a reciprocal could differ in the last bit.
    const double f = static_cast<double>(used[a][id] + req0[a]) / static_cast<double>(alloc[a][id]);
    return f > 1 ? 1.0 : f;
  };
  const bool use_memo = begin_memo(kBalanced);
  if (active == 2) {
    // The default (cpu and memory): std = |f0 - f1| / 2.
    memo_.score(use_memo, nodes.data(), nodes.size(), scores, [&](NodeId id) {
      double std_dev = 0;
      if (alloc[0][id] != 0 && alloc[1][id] != 0) {
        std_dev = std::abs((fraction(0, id) - fraction(1, id)) / 2);
      }
      return static_cast<int64_t>((1 - std_dev) * 100.0);
    });
    return;
  }
  // Other resource lists (rare): upstream's formula itself, on the node's totals with the pod.
  memo_.score(use_memo, nodes.data(), nodes.size(), scores, [&](NodeId id) {
    int64_t requested[kMaxResources], allocatable[kMaxResources];
    for (size_t a = 0; a < active; ++a) {
      requested[a] = used[a][id] + req0[a];
      allocatable[a] = alloc[a][id];
    }
    return balanced_allocation_score({requested, active}, {allocatable, active});
  });
}

}  // namespace orrery::plugins
