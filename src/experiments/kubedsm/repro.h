// `orrery repro kubedsm`: the paper's evaluation figures (§6.3) from simulator sweeps.
//
//   Fig. 4   edge ratio vs mean demand 1.1…1.6 (sd 0.4): KubeDSM, K8S, Random, BEF, SEF, CF
//   Fig. 5   edge ratio vs sd 0.1…0.5 (mean 1.5), same schedulers
//   Fig. 6/7 per-deployment edge ratio (as bars per deployment at 1.5_0.4)
//   Fig. 8/9 standard deviation of the edge ratio across deployments, for Figs 4 and 5
//   Fig. 10  migration variants Original (5/3), MidMig (2/1), NoCloudOffload (0/3),
//            NoEdgeMig (5/0), NoMigration (0/0) and K8S over the Fig. 4 scenarios, with migration
//            counts
//   Fig. 11  QoS scenarios Original, AllHalf, C>A (0.5/0.1/1/0.1), RespectD: per deployment
//   extra    from the paper's description to the authors' setup, step by step; each ecmus
//            setting reverted alone
//
// The default setup is the authors' (evaluation.h RunSpec); the main metric is their pooled edge
// ratio, set beside their raw measurements (authors_data.h). Every point is run with several
// seeds; charts show the mean with ± one standard deviation across seeds, tables 95 % confidence
// intervals and paired sign tests. Outputs (DIR): kubedsm.html, runs.csv (one row per run),
// points.csv (one row per figure point), scenarios/*.yaml (the scenario of each point, seed 1, for
// `orrery sim`), summary.json (written last).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "experiments/harness.h"

namespace orrery::kubedsm {

struct ReproOptions {
  std::string out_dir;
  bool quick = false;  // fewer points and seeds (CI-sized: a few seconds)
  int seeds = 0;  // 0: 20 (twice the authors' 10 runs, for the paired tests' power), 3 with quick
  int threads = 2;
  // Every run's HPA metric ("demand", the default, or "podRate" with `hpa_noise`; RunSpec).
  std::string hpa_metric = "demand";
  double hpa_noise = 0.075;
  double hpa_window_s = 0;  // RunSpec::hpa_window_s
  std::function<void(size_t done, size_t total)> progress;
  experiments::Distribution distribution;  // whole, --shard I/N, or a merge of shards
};

struct ReproResult {
  size_t runs = 0;
  double wall_s = 0;
  std::string html;        // the report's path
  std::string shard_note;  // a shard's run: what it wrote (then nothing else was written)
};

// Runs the sweeps and writes the outputs; throws InputError if DIR cannot be written. As one
// shard (options.distribution) only the shard's runs, into DIR/shard.json.
ReproResult run_repro(const ReproOptions& options);

struct RunSpec;
struct RunResult;
// runs.csv: a header, then one row per run (results[i] of runs[i]): every parameter that tells
// the runs apart (docs/repro/kubedsm.md "runs.csv"), then the run's results.
std::string runs_csv(const std::vector<RunSpec>& runs, const std::vector<RunResult>& results);

}  // namespace orrery::kubedsm
