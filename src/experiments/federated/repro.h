// `orrery repro federated`: the paper's evaluation (§5-6, Figures 6-10) on the published traces
// (data/megha) — syn_250/500/1000 and the Yahoo sub-trace on 10,000 workers, the Google sub-trace
// on 20,000 — for Megha_rand, Megha_min, PigeonC_rand, PigeonC_min over several seeds, plus, for
// comparison, the same four with the published simulators' behaviour where it departs from the
// paper's text
// ("_ref": Megha's rejected tasks wait in the queue instead of being retried at once; PigeonC's
// CS_i counted as the reference PigeonC simulator does). Independent runs go to a thread
// pool; each run is deterministic, so the outputs do not depend on the thread count.
//
// DIR/runs/<workload>/<profile>/seed<N>/   summary.json, jobs.csv, timeseries.csv (see run.h)
// DIR/results.csv                          one row per run
// DIR/summary.json                         per workload and profile: means over seeds, with the
//                                          paper's numbers where it gives them (written last)
// DIR/report.html                          figures and tables (report::Document)
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "experiments/harness.h"
#include "policies/federated/sim_params.h"

namespace orrery::federated {

struct ReproWorkload {
  std::string name;        // "syn_250", "yahoo", "google", ...
  std::string trace;       // file name in the data directory
  uint32_t replicate = 1;  // x 10,000 workers
  double cutoff_s = 2;     // short/long split (PigeonC queues; short-job statistics)
  size_t max_jobs = 0;     // 0: the whole trace; else its first jobs (--quick)
};

// The paper's five workloads. quick: the first jobs of each trace only (CI-sized).
std::vector<ReproWorkload> paper_workloads(bool quick);

struct ReproOptions {
  std::string data_dir = "data/megha";
  std::string out_dir;
  bool quick = false;
  std::vector<uint64_t> seeds = {1, 2, 3};
  unsigned threads = 1;  // runs in parallel (util/sweep.h); 0: the hardware's concurrency
  bool wall_clock = true;
  bool reference = true;                             // also run the "_ref" profiles
  ReferenceQuirks quirks = reference_quirks();       // the "_ref" profiles' quirks
  std::vector<ReproWorkload> workloads;              // empty: paper_workloads(quick)
  std::function<void(const std::string&)> progress;  // one line per finished run
  experiments::Distribution distribution;            // whole, --shard I/N, or a merge of shards
};

struct ReproResult {
  size_t runs = 0;
  std::string report;      // path of report.html
  std::string shard_note;  // a shard's run: what it wrote (then only its runs/ and shard.json)
};

// Throws InputError (before writing anything) when a trace or configuration is missing or bad.
ReproResult run_repro(const ReproOptions& o);

}  // namespace orrery::federated
