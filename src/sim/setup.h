// setup.json: what a run was made of, for the report's Setup section — the nodes grouped by tier
// and size, one line per workload, and each policy with its one-line description:
//
//   {"scenario": "demo", "description": "...", "seed": 1, "duration_s": 1080 | null,
//    "nodes": [{"tier": "edge", "size": "cpu=5, memory=5Gi", "count": 1}, ...],
//    "workloads": ["deployment a: 1 replica, HPA up to 40; requests cpu=1, memory=950Mi", ...],
//    "policies": [{"name": "kube-default", "description": "kube-scheduler's default ..."}]}
//
// Nodes are those at the start of the run (node events may add or remove some later).
#pragma once

#include <string>
#include <vector>

#include "framework/policy.h"
#include "io/json.h"
#include "sim/scenario.h"

namespace orrery::sim {

Json run_setup(const Scenario& sc, uint64_t seed, Time duration,
               const std::vector<std::string>& policies, const fw::PolicyRegistry& registry);

}  // namespace orrery::sim
