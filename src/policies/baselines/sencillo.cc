#include "policies/baselines/sencillo.h"

#include <algorithm>
#include <cmath>

namespace orrery::baselines {

std::string_view plugin_name(Sencillo kind) {
  switch (kind) {
    case Sencillo::kRandom: return "SencilloRandom";
    case Sencillo::kBiggestEdgeFirst: return "BiggestEdgeFirst";
    case Sencillo::kSmallestEdgeFirst: return "SmallestEdgeFirst";
    case Sencillo::kCloudFirst: return "CloudFirst";
  }
  return "";
}

double free_size(const ClusterState& s, NodeId n, double inv_cpu, double inv_mem) {
  const double c = static_cast<double>(s.allocatable(kCpu)[n] - s.requested(kCpu)[n]) * inv_cpu;
  const double m =
      static_cast<double>(s.allocatable(kMemory)[n] - s.requested(kMemory)[n]) * inv_mem;
  return c > 0 && m > 0 ? std::sqrt(c * m) : 0.0;
}

void SencilloScore::score(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
                          int64_t* scores) {
  const ClusterState& s = cycle.state;
  switch (kind_) {
    case Sencillo::kRandom:
      for (size_t i = 0; i < nodes.size(); ++i)
        scores[i] = static_cast<int64_t>(cycle.rng.below(fw::kMaxNodeScore + 1));
      return;
    case Sencillo::kCloudFirst:
      for (size_t i = 0; i < nodes.size(); ++i)
        scores[i] = s.node(nodes[i]).tier == Tier::kEdge ? 0 : fw::kMaxNodeScore;
      return;
    case Sencillo::kBiggestEdgeFirst:
    case Sencillo::kSmallestEdgeFirst: break;
  }
  // M_CPU, M_MEM: the edge's total allocatable.
  double total_cpu = 0, total_mem = 0;
  for (NodeId n : s.nodes()) {
    if (s.node(n).tier != Tier::kEdge) continue;
    total_cpu += static_cast<double>(s.allocatable(kCpu)[n]);
    total_mem += static_cast<double>(s.allocatable(kMemory)[n]);
  }
  const double inv_cpu = total_cpu > 0 ? 1.0 / total_cpu : 0.0;
  const double inv_mem = total_mem > 0 ? 1.0 / total_mem : 0.0;
  size_.resize(nodes.size());
  double lo = 0, hi = 0;
  bool any = false;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (s.node(nodes[i]).tier != Tier::kEdge) continue;
    size_[i] = free_size(s, nodes[i], inv_cpu, inv_mem);
    lo = any ? std::min(lo, size_[i]) : size_[i];
    hi = any ? std::max(hi, size_[i]) : size_[i];
    any = true;
  }
  const bool biggest = kind_ == Sencillo::kBiggestEdgeFirst;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (s.node(nodes[i]).tier != Tier::kEdge) {
      scores[i] = 0;
      continue;
    }
    double rel = hi > lo ? (size_[i] - lo) / (hi - lo) : 1.0;
    if (!biggest) rel = hi > lo ? 1.0 - rel : 1.0;
    scores[i] = 1 + static_cast<int64_t>(std::lround(rel * (fw::kMaxNodeScore - 1)));
  }
}

void register_sencillo_plugins(fw::PluginRegistry& registry) {
  for (Sencillo k : {Sencillo::kRandom, Sencillo::kBiggestEdgeFirst, Sencillo::kSmallestEdgeFirst,
                     Sencillo::kCloudFirst}) {
    registry.add(std::string(plugin_name(k)),
                 [k](const fw::PluginArgs&) { return std::make_unique<SencilloScore>(k); });
  }
}

}  // namespace orrery::baselines
