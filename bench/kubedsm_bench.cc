// KubeDSM scheduler core speed (issue 4 acceptance): immediateSchedule of a batch of 20 new pods
// on 10 edge nodes with 60 running pods (target <= 10 ms), one suggest() with M_C2E=5, M_ER=3 on
// the same cluster (target <= 50 ms), and match() alone.
#include <benchmark/benchmark.h>

#include "core/rng.h"
#include "policies/kubedsm/algorithms.h"

namespace orrery::kubedsm {
namespace {

constexpr int64_t kMi = 1LL << 20;

// 10 heterogeneous edge nodes (4–8 cores, 4–8 GiB), the paper's four services (Table 5), 60
// running pods placed first-fit in random order (those that do not fit run on the cloud), and
// `batch` new pending pods.
struct Cluster {
  EdgeModel model;
  std::vector<uint32_t> batch;
};

Cluster make_cluster(int batch, uint64_t seed, bool thin) {
  Rng rng(seed);
  Cluster c;
  for (int n = 0; n < 10; ++n)
    c.model.add_node({rng.uniform_int(4, 8) * 1000, rng.uniform_int(4, 8) * 1024 * kMi},
                     "edge-" + std::to_string(n));
  c.model.add_service("A", {1000, 950 * kMi}, 1.0);
  c.model.add_service("B", {1000, 1900 * kMi}, 1.0);
  c.model.add_service("C", {1000, 950 * kMi}, 1.0);
  c.model.add_service("D", {2000, 1900 * kMi}, 1.0);
  for (int p = 0; p < 60; ++p) {
    const uint32_t s = static_cast<uint32_t>(rng.below(4));
    int32_t node = kCloud;
    const int32_t start = static_cast<int32_t>(rng.below(10));
    for (int32_t k = 0; k < 10; ++k) {
      const int32_t n = (start + k) % 10;
      if (c.model.services[s].request.fits_in(c.model.free(n))) {
        node = n;
        break;
      }
    }
    c.model.add_pod(s, node, true, static_cast<uint64_t>(p));
  }
  // thin: free some room so the batch has somewhere to go (every fourth edge pod to the cloud).
  if (thin)
    for (uint32_t p = 0; p < c.model.pods.size(); p += 4)
      if (c.model.pods[p].node != kCloud) c.model.move_pod(p, kCloud);
  for (int i = 0; i < batch; ++i)
    c.batch.push_back(
        c.model.add_pod(static_cast<uint32_t>(rng.below(4)), kCloud, false, 1000 + i));
  return c;
}

void BM_ImmediateSchedule20(benchmark::State& state) {
  const Cluster c = make_cluster(20, 1, true);
  SchedulerCore core;
  size_t edge = 0;
  for (auto _ : state) {
    const Placement p = core.immediate_schedule(c.model, c.batch);
    edge = p.edge.size();
    benchmark::DoNotOptimize(p);
  }
  state.counters["to_edge"] = static_cast<double>(edge);
}
BENCHMARK(BM_ImmediateSchedule20)->Unit(benchmark::kMillisecond);

// On the full cluster (no thinning): every cloud→edge move needs offloads or reordering.
void BM_Suggest(benchmark::State& state) {
  const Cluster c = make_cluster(0, 1, state.range(1) != 0);
  Config cfg;
  cfg.m_c2e = 5;
  cfg.m_er = 3;
  cfg.suggest_budget = state.range(0) == 0 ? SuggestBudget::kReclaimable : SuggestBudget::kFree;
  SchedulerCore core(cfg);
  size_t moves = 0;
  for (auto _ : state) {
    const Placement p = core.suggest(c.model);
    moves = p.migrations.size() + p.edge.size();
    benchmark::DoNotOptimize(p);
  }
  state.counters["moves"] = static_cast<double>(moves);
  state.SetLabel(std::string(state.range(0) == 0 ? "budget=reclaimable" : "budget=free") +
                 (state.range(1) != 0 ? ",thinned" : ",full"));
}
BENCHMARK(BM_Suggest)->Args({0, 0})->Args({1, 0})->Args({0, 1})->Unit(benchmark::kMillisecond);

void BM_ReorderEdge(benchmark::State& state) {
  const Cluster c = make_cluster(0, 1, false);
  Config cfg;
  cfg.m_er = static_cast<int>(state.range(0));
  SchedulerCore core(cfg);
  for (auto _ : state) benchmark::DoNotOptimize(core.reorder_edge(c.model));
}
BENCHMARK(BM_ReorderEdge)->Arg(1)->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond);

void BM_Match20(benchmark::State& state) {
  const Cluster c = make_cluster(20, 1, true);
  std::vector<Vec2> free, pods;
  for (size_t n = 0; n < c.model.node_count(); ++n) free.push_back(c.model.free(n));
  for (uint32_t p : c.batch) pods.push_back(c.model.request_of(p));
  const FragNorm norm(c.model.total_capacity());
  Matcher m;
  for (auto _ : state) benchmark::DoNotOptimize(m.match(free, pods, norm).matched);
}
BENCHMARK(BM_Match20)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace orrery::kubedsm

BENCHMARK_MAIN();
