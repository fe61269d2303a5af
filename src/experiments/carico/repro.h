// `orrery repro carico`: the thesis's evaluation (ch. 5) in the simulator, written as
// DIR/summary.json and DIR/report.html.
//
// summary.json:
//   {"experiments": {"<experiment>": {"<scheduler>": {"pct_mean_s", "pct_p50_s", "pct_p99_s",
//                    "jct_s", "pct_sd_s", "pct_min_s", "pct_max_s", "cpu_util_mean",
//                    "mem_util_mean", "oom_kills", "seeds", [latency_*_ms]}}},
//    "thesis": {...the published numbers used beside ours...}, "quick": bool}
// Experiments: pi2000_<N> (Fig. 5.1, Table 5.1 at N = 1000), sklearn_<N> (Fig. 5.2, Table 5.2 at
// 100), mixed_pi2000_500 / mixed_sklearn_20 (Table 5.3: one run, the two jobs' PCTs), isolation
// (Table 5.4: pristine, kube-default-100m, carico). Values are means over seeds.
#pragma once

#include <string>

#include "experiments/harness.h"

namespace orrery::carico {

struct ReproOptions {
  std::string out_dir;
  bool quick = false;
  int threads = 2;
  int seeds = 0;                           // 0: 3, or 1 with --quick
  experiments::Distribution distribution;  // whole, --shard I/N, or a merge of shards
};

struct ReproResult {
  std::string html, summary;
  size_t runs = 0;
  double wall_s = 0;
  std::string shard_note;  // a shard's run: what it wrote (then nothing else was written)
};

ReproResult run_repro(const ReproOptions& options);

}  // namespace orrery::carico
