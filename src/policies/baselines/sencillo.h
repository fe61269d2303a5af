// The "Sencillo" baselines of the KubeDSM paper (§6: Random, Biggest Edge node First, Smallest Edge
// node First, Cloud First) as Score plugins, so any profile can combine them with the usual
// filters (NodeResourcesFit, taints, affinity, ...) and any paper can reuse them.
//
//   SencilloRandom     every feasible node equally likely (uniform random scores)
//   BiggestEdgeFirst   the feasible edge node with the most free resources; cloud only when no
//                      edge node fits
//   SmallestEdgeFirst  the feasible edge node with the least free resources (best fit); cloud
//                      only when no edge node fits
//   CloudFirst         a feasible cloud node; edge only when no cloud node fits
//
// Tiers come from the node label orrery.io/tier (core/node.h); a node without it counts as cloud
// (it is not known to be an edge node). "Free resources" is the size of eq. 11 applied to the
// node's free cpu and memory, normalised by the edge's total allocatable:
// sqrt(free_cpu / M_CPU × free_mem / M_MEM). Scores are 0 for the tier not preferred and 1..100
// for the preferred one (linear in that size between the smallest and largest candidate), so
// nodes within 1 % of each other tie and the framework breaks the tie (randomly, or by name in a
// deterministic profile).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "framework/plugin.h"
#include "framework/registry.h"

namespace orrery::baselines {

enum class Sencillo : uint8_t { kRandom, kBiggestEdgeFirst, kSmallestEdgeFirst, kCloudFirst };

// Plugin name of each baseline ("SencilloRandom", "BiggestEdgeFirst", ...).
std::string_view plugin_name(Sencillo kind);

class SencilloScore : public fw::Plugin {
 public:
  explicit SencilloScore(Sencillo kind) : kind_(kind) {}
  std::string_view name() const override { return plugin_name(kind_); }
  uint32_t extension_points() const override { return fw::kScore; }
  void score(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
             int64_t* scores) override;

 private:
  Sencillo kind_;
  std::vector<double> size_;  // scratch, per candidate node
};

// The free-resource size of a node (see above); `inv_cpu`/`inv_mem` are 1/M_CPU and 1/M_MEM.
double free_size(const ClusterState& s, NodeId n, double inv_cpu, double inv_mem);

// Adds the four plugins to a registry (no arguments).
void register_sencillo_plugins(fw::PluginRegistry& registry);

}  // namespace orrery::baselines
