// The paper's evaluation (§Evaluation): random instances, the deterministic kube-default
// baseline, and the categories of Figure 3 and the figures of Table 1.
//
// Generator: identical nodes; pods in ReplicaSets of uniform [1, 4] replicas until nodes × ppn
// pods exist; each ReplicaSet's cpu (millicores) and memory (MiB) uniform in [100, 1000] and a
// random priority among `tiers` values; node capacity = total demand / (nodes × usage) per
// resource (rounded up). Baseline: kube-default with lexicographic tie-break, one pod at a time,
// preemption off (PostFilter plugins removed), all pods pending in creation order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policies/optpack/optimizer.h"

namespace orrery::optpack {

struct InstanceConfig {
  int nodes = 4;
  int pods_per_node = 4;
  int tiers = 1;
  int usage_pct = 100;
};
std::string config_name(const InstanceConfig& c);  // "n4-ppn4-t1-u100"

// One generated instance as Kubernetes YAML (Nodes, Pods with ownerReferences and priorities),
// all pods pending.
std::string generate_instance_yaml(const InstanceConfig& c, uint64_t seed);

struct BaselineRun {
  std::string snapshot_yaml;  // the instance after the baseline: bound pods carry nodeName
  int pods = 0, pending = 0;
};
// Schedules every pod of `instance_yaml` with the deterministic kube-default baseline.
BaselineRun run_baseline(const std::string& instance_yaml);

enum class Category : uint8_t { kBetterOptimal, kBetter, kBaselineOptimal, kNoCalls, kFailure };
inline constexpr int kCategories = 5;
std::string_view to_string(Category c);

struct InstanceOutcome {
  Category category = Category::kFailure;
  double solve_s = 0;
  double delta_cpu_pct = 0, delta_mem_pct = 0;  // of the cluster's capacity
  int placed_before = 0, placed_after = 0;
};

// Solves a post-baseline snapshot (the same path as `orrery solve`) and classifies the result.
InstanceOutcome evaluate_snapshot(const std::string& snapshot_yaml, const OptimizeOptions& o);

}  // namespace orrery::optpack
