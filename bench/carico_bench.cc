// CARICO overhead (issue 15 acceptance; docs/PERFORMANCE.md "CARICO"):
//   BM_CaricoSvdUpdateMerge/m    one agent batch: Incremental-SVD update with a 10-sample batch
//                                plus the damped merge with the global subspace (m = 2..8 metrics)
//   BM_CaricoAggregatorMerge/m   the aggregator's merge of one submitted subspace (one core)
//   BM_CaricoAgentPoll           one poll of the real /proc (3 files) + the agent pipeline: × 10 Hz
//                                gives the agent's CPU share of one core
//   BM_CaricoLoopbackSubmit/n    n simulated agents submitting over gRPC on loopback to an
//                                in-process aggregator (errors counted; must be 0)
#include <benchmark/benchmark.h>

#include <atomic>
#include <thread>

#include "core/rng.h"
#include "policies/carico/agent.h"
#include "policies/carico/aggregator_core.h"
#include "policies/carico/proc_source.h"
#include "policies/carico/rpc/client.h"
#include "policies/carico/rpc/server.h"
#include "policies/carico/subspace.h"

namespace orrery::carico {
namespace {

Eigen::MatrixXd batch(Rng& rng, int m) {
  Eigen::MatrixXd b(m, 10);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < 10; ++j) b(i, j) = rng.uniform();
  return b;
}

void BM_CaricoSvdUpdateMerge(benchmark::State& st) {
  const int m = static_cast<int>(st.range(0));
  Rng rng(1);
  IncrementalSvd svd(2, 0.5);
  const Subspace global = svd_left(batch(rng, m), 2);
  std::vector<Eigen::MatrixXd> batches;
  for (int i = 0; i < 64; ++i) batches.push_back(batch(rng, m));
  size_t i = 0;
  for (auto _ : st) {
    svd.update(batches[i++ & 63]);
    benchmark::DoNotOptimize(merge(svd.subspace(), 0.5, global, 0.5, 2));
  }
}
BENCHMARK(BM_CaricoSvdUpdateMerge)->Arg(2)->Arg(4)->Arg(8);

void BM_CaricoAggregatorMerge(benchmark::State& st) {
  const int m = static_cast<int>(st.range(0));
  Rng rng(2);
  AggregatorCore core(2);
  std::vector<Subspace> subs;
  for (int i = 0; i < 64; ++i) subs.push_back(svd_left(batch(rng, m), 2));
  size_t i = 0;
  for (auto _ : st) {
    core.submit("n" + std::to_string(i & 63), subs[i & 63], {}, 0);
    core.drain(0);
    ++i;
  }
  st.counters["merges_per_s"] = benchmark::Counter(static_cast<double>(i), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CaricoAggregatorMerge)->Arg(2)->Arg(8);

void BM_CaricoAgentPoll(benchmark::State& st) {
  ProcSource src;
  NodeAgent agent;
  double t = 0;
  for (auto _ : st) {
    std::string problem;
    auto s = src.read(t, &problem);
    benchmark::DoNotOptimize(agent.poll(t, s, -1));
    t += 0.1;
  }
}
BENCHMARK(BM_CaricoAgentPoll)->MeasureProcessCPUTime();

void BM_CaricoLoopbackSubmit(benchmark::State& st) {
  const int agents = static_cast<int>(st.range(0));
  rpc::AggregatorServer server(2, nullptr);
  const int port = server.start("127.0.0.1:0");
  const std::string target = "127.0.0.1:" + std::to_string(port);
  Rng rng(3);
  const Subspace local = svd_left(batch(rng, 2), 2);
  std::atomic<int> errors{0};
  for (auto _ : st) {
    // One report from every agent, from 8 client threads (each with its own channel).
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        rpc::AggregatorClient client(target);
        for (int a = t; a < agents; a += 8) {
          std::string err;
          if (!client.submit("node-" + std::to_string(a), local, {3, 1, 2},
                             std::chrono::milliseconds(5000), &err))
            ++errors;
        }
      });
    }
    for (auto& th : threads) th.join();
  }
  st.counters["errors"] = errors.load();
  st.counters["nodes_in_table"] = static_cast<double>(server.core().table(rpc::mono_now_s()).size());
  st.counters["submits_per_s"] =
      benchmark::Counter(static_cast<double>(st.iterations()) * agents, benchmark::Counter::kIsRate);
  server.shutdown();
}
BENCHMARK(BM_CaricoLoopbackSubmit)->Arg(1000)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

}  // namespace
}  // namespace orrery::carico

BENCHMARK_MAIN();
