// KubCG's hot path and its database (docs/PERFORMANCE.md "KubCG"):
//   BM_KubcgDecision      one decision (EP correction + NS/RP tables + decider) with a
//                         100,000-row history and 100 running pods (target ≤ 100 µs)
//   BM_KubcgRecordSqlite  recording 10,000 finished pods into a SQLite file in batched
//                         transactions (target ≤ 1 s)
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>

#include "policies/kubcg/decision_unit.h"
#include "policies/kubcg/sqlite_store.h"

namespace orrery::kubcg {
namespace {

constexpr int kNodes = 20;

std::vector<Record> history_rows(int n) {
  std::vector<Record> out;
  out.reserve(n);
  for (int i = 0; i < n; ++i) {
    Record r;
    r.image = "app" + std::to_string(i % 50) + (i % 2 ? ":gpu" : ":cpu");
    r.node = "node-" + std::to_string(i % kNodes);
    r.resource = i % 2 ? Resource::kGpu : Resource::kCpu;
    r.t_create_s = 2 + (i % 3);
    r.t_exec_s = 30 + (i * 7919) % 300;
    r.start_s = i;
    r.end_s = i + r.t_create_s + r.t_exec_s;
    out.push_back(std::move(r));
  }
  return out;
}

void BM_KubcgDecision(benchmark::State& state) {
  auto store = open_history("sqlite::memory:");
  store->insert(history_rows(100000));
  DecisionUnit unit(std::move(store));
  ClusterState cs;
  for (int i = 0; i < kNodes; ++i) {
    Node n;
    n.name = "node-" + std::to_string(i);
    n.capacity[kCpu] = 16000;
    n.capacity[kMemory] = int64_t{64} << 30;
    n.capacity[kPods] = 110;
    n.capacity[kGpu] = i % 2;
    n.allocatable = n.capacity;
    cs.add_node(std::move(n));
  }
  // 100 running pods (5 per node), each with an EP entry.
  for (int i = 0; i < 100; ++i) {
    auto spec = std::make_shared<PodSpec>();
    Container c;
    c.name = "main";
    c.image = "app" + std::to_string(i % 50) + ":cpu";
    spec->containers.push_back(c);
    spec->finalize();
    Pod p;
    p.ns = "default";
    p.name = "r" + std::to_string(i);
    p.spec = spec;
    p.phase = PodPhase::kRunning;
    const PodId id = cs.add_pod(std::move(p));
    const NodeId node = static_cast<NodeId>(i % kNodes);
    cs.assign(id, node);
    Decision d;
    d.node = "node-" + std::to_string(node);
    d.image = "app" + std::to_string(i % 50) + ":cpu";
    d.delta_s = 100;
    unit.placed(cs, cs.pod_serial(id), d, 0);
  }
  auto spec = std::make_shared<PodSpec>();
  Container c;
  c.name = "main";
  c.image = "app7:cpu";
  spec->containers.push_back(c);
  spec->annotations.set("orrery.io/images", "cpu=app6:cpu,gpu=app7:gpu");
  spec->finalize();
  Pod p;
  p.ns = "default";
  p.name = "new";
  p.spec = spec;
  const PodId pod = cs.add_pod(std::move(p));
  std::vector<NodeId> nodes(kNodes);
  for (int i = 0; i < kNodes; ++i) nodes[i] = static_cast<NodeId>(i);
  double now = 10;
  for (auto _ : state) {
    const ImageVariants v = variants_of(cs.pod(pod));
    Decision d = unit.decide(cs, pod, cs.pod_serial(pod), nodes.data(), nodes.size(), now, v);
    benchmark::DoNotOptimize(d);
    now += 1e-3;
  }
}
BENCHMARK(BM_KubcgDecision)->Unit(benchmark::kMicrosecond);

void BM_KubcgRecordSqlite(benchmark::State& state) {
  const std::vector<Record> rows = history_rows(10000);
  const int batch = static_cast<int>(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    const std::string path = "/tmp/orrery-kubcg-bench-" + std::to_string(getpid()) + ".db";
    std::filesystem::remove(path);
    std::filesystem::remove(path + "-wal");
    std::filesystem::remove(path + "-shm");
    {
      SqliteStore store(path);
      StatsCache cache;
      HistoryWriter w(store, cache);
      state.ResumeTiming();
      for (size_t i = 0; i < rows.size(); ++i) {
        w.record(rows[i]);
        if (static_cast<int>(w.pending()) >= batch) w.flush();
      }
      w.flush();
      state.PauseTiming();
    }
    std::filesystem::remove(path);
    std::filesystem::remove(path + "-wal");
    std::filesystem::remove(path + "-shm");
    state.ResumeTiming();
  }
}
BENCHMARK(BM_KubcgRecordSqlite)->Arg(1)->Arg(100)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace orrery::kubcg
BENCHMARK_MAIN();
