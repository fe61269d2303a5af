// The paper's evaluation (§6) in the simulator: the cluster of Table 4, services A–D of Table 5,
// 12 demand cycles of 90 s whose edge-resource fraction is drawn from Normal(mean, sd) and split
// equally across the services, an HPA per service turning demand into replicas, one pod per
// service at start. Scenario names are "<mean>_<sd>" as in the paper ("1.5_0.4").
//
// Workload (§6.2, docs/repro/kubedsm.md "Workload"): each service's equal share of the cycle's
// edge resources becomes the pods whose requests match the share on the scarcer resource, rounded
// to whole pods (`count: min, round: true` of the simulator's demand_cycles), so that scenario
// "1.0" asks for the edge's binding resource (memory) in full on average. The other reading
// (`demand_count` "max", `demand_round` false: the pods the share pays for on the more plentiful
// resource, rounded up by the HPA) gives the memory-heavy service B twice its share of memory
// and asks for 133 % of the edge's memory at "1.0"; it stays selectable.
//
// Schedulers: KubeDSM (with M_C2E/M_ER variants and QoS targets), the Sencillo baselines
// (random, bef, sef, cf) and K8S (kube-default with the cloud node tainted PreferNoSchedule and
// pods preferring edge nodes, as the authors configured it).
//
// Metrics, per run: the edge ratio (time-average of each deployment's share of running pods on
// edge nodes, sampled every second, then averaged over deployments — the simulator's
// summary.json "edge_ratio"), its standard deviation across the four deployments (population,
// ddof = 0), and KubeDSM's completed migrations.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "framework/policy.h"

namespace orrery::kubedsm {

struct RunSpec {
  double mean = 1.5;
  double sd = 0.4;
  std::string policy = "kubedsm";  // kubedsm, random, bef, sef, cf, k8s
  // KubeDSM settings (ignored by the baselines).
  int m_c2e = 5;
  int m_er = 3;
  std::string suggest_budget = "reclaimable";
  std::string fit_check = "approximate";  // or "exact" (fitCheck)
  bool bounded_cloud = true;          // false: the paper's unbounded cloud (boundedCloud: false)
  std::map<std::string, double> qos;  // deployment → Q_i (absent: 1)
  // Workload model (see above): "min" or "max"; whole pods (nearest) or a fractional load.
  std::string demand_count = "min";
  bool demand_round = true;
  // The edge: "table4" (N2, N3, N4) or "single" (one node with their total capacity: a bound on
  // what any reordering of the edge could gain).
  std::string edge = "table4";
  uint64_t seed = 1;
  int cycles = 12;
  double period_s = 90;
  // Everything else of the KubeDSM args as YAML flow-map entries, e.g. "suggestPeriod: 5s".
  std::string extra_args;
};

struct RunResult {
  double edge_ratio = 0;                      // mean over deployments
  double edge_ratio_sd = 0;                   // across deployments (ddof = 0)
  std::map<std::string, double> deployments;  // per-deployment time-averaged ratio
  int64_t migrations = 0;
  std::vector<double> fractions;  // the demand drawn per cycle
  double wall_s = 0;
};

// "1.5_0.4" (shortest decimal forms).
std::string scenario_name(double mean, double sd);
// The scenario file of a run (policy, QoS and KubeDSM args included), as `orrery sim` reads it.
std::string scenario_yaml(const RunSpec& spec);
// Every policy the evaluation uses, by name: kubedsm, random, bef, sef, cf, kube-default.
fw::PolicyRegistry evaluation_policies();
// Runs one simulation (deterministic for a given spec).
RunResult run_once(const RunSpec& spec);
// Runs many specs, `threads` at a time (core/sweep.h: results in input order; after a run throws,
// no further run starts and the lowest-index run's error is rethrown). progress(done, total)
// after each run, one call at a time.
std::vector<RunResult> run_all(
    const std::vector<RunSpec>& specs, int threads,
    const std::function<void(size_t done, size_t total)>& progress = nullptr);

}  // namespace orrery::kubedsm
