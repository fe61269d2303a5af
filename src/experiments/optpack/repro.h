// `orrery repro optpack`: the paper's Figure 3 (instance categories per cluster size, timeout,
// tiers and pods per node, aggregated over usage levels) and Table 1 (solver duration and
// Δ cpu/mem utilisation, 4 tiers), over instances where the deterministic kube-default baseline
// leaves pods pending.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "experiments/harness.h"

namespace orrery::optpack {

struct ReproOptions {
  std::string out_dir;
  bool quick = false;
  std::vector<double> timeouts = {1.0};
  int jobs = 1;
  int instances = 0;  // per configuration; 0: 100 (paper), or 4 with --quick
  bool deterministic = false;
  std::function<void(size_t done, size_t total)> progress;
  experiments::Distribution distribution;  // whole, --shard I/N, or a merge of shards
};

struct ReproResult {
  std::string html;
  size_t instances = 0;
  double wall_s = 0;
  std::string shard_note;  // a shard's run: what it wrote (then nothing else was written)
};

ReproResult run_repro(const ReproOptions& o);

}  // namespace orrery::optpack
