// A direct, node-by-node recomputation of the kube-default profile's Filter and Score results
// from upstream's formulas (no batching, no caches): PodTopologySpread from the pod's own
// constraints (hard and soft) or the system defaults for owned pods, recounting every node's pods
// per constraint; InterPodAffinity by scanning every pod for every node and term (no per-domain
// counts); the volume plugins for claims bound to CSI volumes (CSI attach limits, PV node affinity,
// volume zones), unbound Immediate claims and missing claims. Used to verify the plugins
// independently.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/cluster_state.h"

namespace orrery::plugins::testing {

struct Expected {
  bool feasible = true;
  std::vector<std::string> reasons;
  std::map<std::string, int64_t> scores;
  int64_t total = 0;
};

// The filter verdict of one node: "" reasons when the pod fits, else the first failing plugin's
// reasons (upstream runs the filters in the profile's order and stops at the first failure).
std::vector<std::string> filter_reasons(const ClusterState& st, const Pod& pod, NodeId n);

// `feasible_mask` (indexed by NodeId), when given, replaces the filter verdicts: the scheduler
// filters with nominated pods assumed on their nodes but scores without them.
std::map<NodeId, Expected> brute_force(const ClusterState& st, const Pod& pod,
                                       const std::vector<uint8_t>* feasible_mask = nullptr);

}  // namespace orrery::plugins::testing
