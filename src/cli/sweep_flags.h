// `--shard I/N` for every sweep (`orrery repro <paper>`, `orrery compare
// --seeds`) and `orrery merge` (experiments/harness.h, docs/ARCHITECTURE.md
// "Experiments").
#pragma once

#include <CLI/CLI.hpp>

#include <cstdio>
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

// What a reproduction that writes a report and a summary prints when it ends: a shard's note, or
// "wrote HTML and SUMMARY (N simulations, T s)". Returns the exit code (0).
template <class Result>
int print_repro_result(const Result& r) {
  if (!r.shard_note.empty()) {
    std::printf("%s\n", r.shard_note.c_str());
    return 0;
  }
  std::printf("wrote %s and %s (%zu simulations, %.1f s)\n", r.html.c_str(), r.summary.c_str(),
              r.runs, r.wall_s);
  return 0;
}

}  // namespace orrery::cli
