// The experiments layer's harness (docs/ARCHITECTURE.md "Experiments"): every reproduction and
// `orrery compare --seeds` is specs × seeds → one sweep of independent runs → tables → report.
// The harness owns the sweep step and lets it be split across processes or machines:
//
//   whole    every run, on `threads` threads (util/sweep.h: results in run order);
//   shard    `--shard I/N`: only the runs whose index mod N is I; their raw results go to
//            DIR/shard.json (with the command, so shards of different options never merge), and
//            the command writes nothing else — no tables, no report;
//   merge    `orrery merge SHARD_DIR... --out DIR`: the results of N shards are read back in run
//            order instead of running anything, and the command renders its tables and report
//            from them, byte-identical to the whole run. Files the runs themselves wrote into a
//            shard's directory (e.g. `repro federated`'s runs/) are copied into DIR.
//
// A result is written with its `Codec`; numbers go through JSON exactly (shortest round-trip
// form; NaN and infinities as strings), so merged tables equal the whole run's byte for byte.
// One sweep per command is sharded; a command with a preparation sweep (optpack's instance
// search) runs that one whole in every shard.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "io/json.h"
#include "util/sweep.h"

namespace orrery::experiments {

// `--shard I/N`: this process runs the runs whose index mod N is I (0 <= I < N).
struct Shard {
  size_t index = 0;
  size_t count = 1;
  bool given = false;  // --shard was given (then 0/1 too writes shard.json)
  bool owns(size_t run) const { return run % count == index; }
  std::string text() const;  // "I/N"
};
// Throws InputError("--shard: ...") unless `text` is "I/N" with 0 <= I < N <= 10000.
Shard parse_shard(const std::string& text);

// How this process takes part in a command's sweep.
struct Distribution {
  Shard shard;
  std::vector<std::string> merge;    // shard directories to merge (merge mode), else empty
  std::vector<std::string> command;  // the command's canonical words, options that change
                                     // results only (not --out, --shard or thread counts)
  bool merging() const { return !merge.empty(); }
  bool sharded() const { return shard.given; }
};

inline constexpr const char* kShardFile = "shard.json";

// A result's exact JSON form.
template <class R>
struct Codec {
  std::function<Json(const R&)> encode;
  std::function<R(const Json&)> decode;
};

// Doubles through JSON exactly: finite values as numbers, NaN and ±infinity as strings.
Json real(double v);
double real_of(const Json& j);
Json reals(const std::vector<double>& v);
std::vector<double> reals_of(const Json& j);

// The untyped parts of sweep() below.
struct SweepPlan {
  const Distribution* distribution;
  std::string out_dir;
  size_t runs;
};
// The runs shard `s` owns among `runs`, in run order.
std::vector<size_t> shard_runs(const Shard& s, size_t runs);
// Writes out_dir/shard.json: the command, the shard, and results[k] of run mine[k].
void write_shard(const SweepPlan& plan, const std::vector<size_t>& mine,
                 const std::vector<Json>& results);
// Checks the shards of plan.distribution->merge (every shard of one command and option set,
// each once) and returns every encoded result in run order, after copying the shards' other
// files into out_dir. Throws InputError naming the problem.
std::vector<Json> merge_shards(const SweepPlan& plan);

// Runs (or merges) one sweep of `runs` independent runs. Returns every result in run order, or
// nullopt when this process is one shard of it: the caller then writes nothing more.
// progress(step, result) as in run_sweep, with step.index the run's index in the whole sweep
// and done/total counting this shard's runs (in merge mode it is not called).
template <class R>
std::optional<std::vector<R>> sweep(
    const Distribution& d, const std::string& out_dir, size_t runs, int threads,
    const std::function<R(size_t)>& run, const Codec<R>& codec,
    const std::function<void(const SweepStep&, const R&)>& progress = nullptr) {
  const SweepPlan plan{&d, out_dir, runs};
  if (d.merging()) {
    std::vector<R> out;
    out.reserve(runs);
    for (const Json& j : merge_shards(plan)) out.push_back(codec.decode(j));
    return out;
  }
  if (!d.sharded()) return run_sweep(runs, threads, run, progress);
  const std::vector<size_t> mine = shard_runs(d.shard, runs);
  std::function<void(const SweepStep&, const R&)> local;
  if (progress) {
    local = [&](const SweepStep& s, const R& r) {
      progress(SweepStep{mine[s.index], s.done, s.total}, r);
    };
  }
  const std::vector<R> results = run_sweep(
      mine.size(), threads, [&](size_t k) { return run(mine[k]); }, local);
  std::vector<Json> encoded;
  encoded.reserve(results.size());
  for (const R& r : results) encoded.push_back(codec.encode(r));
  write_shard(plan, mine, encoded);
  return std::nullopt;
}

// What a shard process reports (the CLI prints it): "shard I/N: K of T runs → DIR/shard.json".
std::string shard_message(const Distribution& d, const std::string& out_dir, size_t runs);

}  // namespace orrery::experiments
