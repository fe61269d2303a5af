// `orrery repro kubcg`: the paper's experiments (§6.3–6.6, Figs 16–19) in the simulator, each
// case under D-CPU, D-GPU, K-CPU and K-CPU+GPU (evaluation.h), after a warm-up of 100 runs per
// image. Writes DIR/summary.json
//   {"experiments":{"<experiment>":{"<case>":{"D-CPU":t,"D-GPU":t,"K-CPU":t,"K-CPU+GPU":t}}}}
// (seconds; experiments poisson, batch, overlap, mixed_poisson, mixed_batch, mixed_overlap) and
// DIR/report.html (the same numbers beside the paper's ratios). docs/repro/kubcg.md explains it.
#pragma once

#include <cstdint>
#include <string>

#include "experiments/harness.h"

namespace orrery::kubcg {

struct ReproOptions {
  std::string out_dir;
  bool quick = false;  // 1 seed, smaller Poisson samples
  std::string db;      // optional: where the warm-up history is stored (sqlite:PATH, postgresql://)
  int seeds = 0;       // 0: 5 (1 with quick)
  int threads = 1;     // runs in parallel (each run is deterministic: outputs do not change)
  experiments::Distribution distribution;  // whole, --shard I/N, or a merge of shards
};

struct ReproResult {
  std::string summary, html;
  size_t runs = 0;
  double wall_s = 0;
  std::string shard_note;  // a shard's run: what it wrote (then nothing else was written)
};

ReproResult run_repro(const ReproOptions& o);

}  // namespace orrery::kubcg
