// Megha / PigeonC speed: constraint-matching decisions per second (Algorithm 1 on the published
// 10,000-worker configuration) and whole trace replays (parse + draw constraints + simulate),
// the numbers docs/PERFORMANCE.md records. Targets: matching >= 2 million decisions/s; syn_250
// on 10,000 workers <= 1 s (Megha) / <= 2 s (PigeonC); the Google sub-trace on 20,000 workers
// <= 30 s; a 100,000-worker run completes.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "core/rng.h"
#include "policies/federated/cluster_config.h"
#include "policies/federated/matcher.h"
#include "policies/federated/run.h"
#include "policies/federated/task_model.h"

namespace {

using namespace orrery;
using namespace orrery::federated;

std::string megha_data(const std::string& f) {
  return std::string(ORRERY_DATA_DIR) + "/megha/" + f;
}

// Matching on random availability (each worker free with probability `free`/100) for tasks
// drawn from the published constraint model; one decision = Algorithm 1 + the pick on one
// partition of 400 workers.
void BM_Match(benchmark::State& state, Pick pick) {
  static const ClusterConfig c = load_cluster_config(megha_data("megha_config_G5L5S10000_C.json"));
  static const TaskConstraintModel model =
      load_task_model(megha_data("task_constraint_model.json"));
  const double free = static_cast<double>(state.range(0)) / 100;
  Rng rng(1);
  const size_t words = c.groups.words();
  std::vector<uint64_t> avail(c.groups.groups() * words);
  for (uint32_t g = 0; g < c.groups.groups(); ++g)
    for (uint32_t i = 0; i < c.groups.group_size(); ++i)
      if (rng.bernoulli(free)) set_bit(avail.data() + g * words, i);
  std::vector<ConstraintMask> tasks(4096);
  for (auto& t : tasks) t = model.draw(rng);
  Matcher m(c.groups);
  size_t i = 0, found = 0;
  for (auto _ : state) {
    const uint32_t g = static_cast<uint32_t>(i % c.groups.groups());
    found += m.match(g, avail.data() + g * words, tasks[i & 4095], pick, rng) >= 0;
    ++i;
  }
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(static_cast<int64_t>(i));
  state.counters["found"] = static_cast<double>(found) / static_cast<double>(i);
}
BENCHMARK_CAPTURE(BM_Match, random, Pick::kRandom)->Arg(50)->Arg(5);
BENCHMARK_CAPTURE(BM_Match, minc, Pick::kMinConstraints)->Arg(50)->Arg(5);

// A whole replay as `orrery sim` runs it (everything but writing files).
void BM_Replay(benchmark::State& state, const char* trace, Arch arch, uint32_t replicate) {
  SimRequest req;
  req.trace = megha_data(trace);
  req.cluster_config = megha_data(arch == Arch::kMegha ? "megha_config_G5L5S10000_C.json"
                                                       : "pigeon_config_D10M100S10000_C.json");
  req.arch = arch;
  req.replicate = replicate;
  req.options.pick = Pick::kRandom;
  uint64_t events = 0;
  for (auto _ : state) {
    RunOutput r = run_request(req);
    events = r.summary["events"];
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["workers"] = 10'000.0 * replicate;
}
BENCHMARK_CAPTURE(BM_Replay, megha_syn250_10k, "syn_250.0.tr", Arch::kMegha, 1)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_Replay, pigeonc_syn250_10k, "syn_250.0.tr", Arch::kPigeonC, 1)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_Replay, megha_google_20k, "GOOG_subtrace.tr", Arch::kMegha, 2)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Replay, pigeonc_google_20k, "GOOG_subtrace.tr", Arch::kPigeonC, 2)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Replay, megha_syn1000_100k, "syn_1000.0.tr", Arch::kMegha, 10)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Replay, pigeonc_syn1000_100k, "syn_1000.0.tr", Arch::kPigeonC, 10)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
