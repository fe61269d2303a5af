// The paper's evaluation (§6) in the simulator: the cluster of Table 4, services A–D of Table 5,
// 12 demand cycles of 90 s whose edge-resource fraction is drawn from Normal(mean, sd) and split
// equally across the services, an HPA per service turning demand into replicas, one pod per
// service at start. Scenario names are "<mean>_<sd>" as in the paper ("1.5_0.4").
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

#include "sim/policy.h"

namespace orrery::kubedsm {

struct RunSpec {
  double mean = 1.5;
  double sd = 0.4;
  std::string policy = "kubedsm";  // kubedsm, random, bef, sef, cf, k8s
  // KubeDSM settings (ignored by the baselines).
  int m_c2e = 5;
  int m_er = 3;
  std::string suggest_budget = "reclaimable";
  std::map<std::string, double> qos;  // deployment → Q_i (absent: 1)
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
sim::PolicyRegistry evaluation_policies();
// Runs one simulation (deterministic for a given spec).
RunResult run_once(const RunSpec& spec);
// Runs many specs, `threads` at a time (results in input order; each run is independent).
std::vector<RunResult> run_all(
    const std::vector<RunSpec>& specs, int threads,
    const std::function<void(size_t done, size_t total)>& progress = nullptr);

}  // namespace orrery::kubedsm
