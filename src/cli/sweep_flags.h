// `--shard I/N` for every sweep (`orrery repro <paper>`, `orrery compare
// --seeds`) and `orrery merge` (experiments/harness.h, docs/ARCHITECTURE.md
// "Experiments").
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "experiments/harness.h"

namespace orrery::cli {

struct SweepFlags {
  std::string shard;               // --shard I/N
  std::vector<std::string> merge;  // --merge-shards DIR... (hidden: what `orrery merge` passes)
};

// Adds --shard and the hidden --merge-shards to a sweeping command.
void add_sweep_flags(CLI::App* app, SweepFlags* flags);

// The distribution a parsed command asked for; its canonical command (what must
// be equal for shards to merge) is built from `app`'s parsed options, without
// --out, --shard, --merge-shards, -o and thread counts. Throws InputError on a
// bad --shard.
experiments::Distribution sweep_distribution(const CLI::App* app, const SweepFlags& flags);

}  // namespace orrery::cli
