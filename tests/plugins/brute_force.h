// A direct, node-by-node recomputation of the kube-default profile's Filter and Score results
// from upstream's formulas (no batching, no caches), for pods without topologySpreadConstraints
// (owned pods get the system default spreading); InterPodAffinity by scanning every pod for every
// node and term (no per-domain counts). Used to verify the plugins independently.
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

// `feasible_mask` (indexed by NodeId), when given, replaces the filter verdicts: the scheduler
// filters with nominated pods assumed on their nodes but scores without them.
std::map<NodeId, Expected> brute_force(const ClusterState& st, const Pod& pod,
                                       const std::vector<uint8_t>* feasible_mask = nullptr);

}  // namespace orrery::plugins::testing
