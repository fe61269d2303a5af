// Simulator speed: the raw event loop, the simulator with a trivial O(1) placement policy (what
// the engine itself costs per event), and full trace replays with kube-default.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "core/rng.h"
#include "policies/kube/policies.h"
#include "sim/event_loop.h"
#include "sim/simulation.h"
#include "sim/trace.h"

namespace orrery::sim {
namespace {

struct Sink : EventTarget {
  uint64_t sum = 0;
  void handle(const Event& e) override { sum += e.a; }
};

// Hold model: a steady population of pending events, each processed one reschedules itself.
void BM_EventLoopHold(benchmark::State& state) {
  const int population = static_cast<int>(state.range(0));
  struct Self : EventTarget {
    EventLoop* loop;
    Rng rng{1};
    void handle(const Event&) override { loop->after(1 + rng.below(1000000), this, 0); }
  } self;
  EventLoop loop;
  self.loop = &loop;
  for (int i = 0; i < population; ++i) loop.at(self.rng.below(1000000), &self, 0);
  for (auto _ : state) loop.step();
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EventLoopHold)->Arg(1000)->Arg(100000);

// A policy that binds every new pod to a free one-slot worker (free list): the simulator's own
// cost per pod, without a scheduling framework.
class FreeWorkers : public fw::Component, public fw::EventListener {
 public:
  explicit FreeWorkers(fw::PolicyContext& ctx) : sim_(ctx.runtime.backend) {
    sim_.add_listener(this);
  }
  ~FreeWorkers() override { sim_.remove_listener(this); }
  void start() override {
    for (NodeId n : sim_.state().nodes()) free_.push_back(n);
  }
  void on_event(const fw::ClusterEvent& e) override {
    ClusterState& st = sim_.state();
    switch (e.kind) {
      case fw::EventKind::kPodAdded:
        if (st.pod_node(e.pod) == kNoNode) waiting_.push_back({e.pod, e.pod_serial});
        break;
      case fw::EventKind::kPodFinished: free_.push_back(e.node); break;
      default: return;
    }
    while (!free_.empty() && head_ < waiting_.size()) {
      auto [pod, serial] = waiting_[head_++];
      if (!st.pod_alive(pod) || st.pod_serial(pod) != serial) continue;
      const NodeId n = free_.back();
      free_.pop_back();
      st.assign(pod, n);
      sim_.bind(pod, n);
    }
    if (head_ == waiting_.size()) waiting_.clear(), head_ = 0;
  }

 private:
  fw::ClusterBackend& sim_;
  std::vector<NodeId> free_;
  std::vector<std::pair<PodId, uint64_t>> waiting_;
  size_t head_ = 0;
};

Scenario trace_subset(int jobs, int workers) {
  Scenario sc =
      trace_scenario(std::string(ORRERY_DATA_DIR) + "/megha/syn_250.0.tr", workers);
  auto t = std::make_shared<Trace>(*sc.traces[0].trace);
  if (jobs < static_cast<int>(t->jobs.size())) {
    t->jobs.resize(static_cast<size_t>(jobs));
    t->task_duration.resize(t->jobs.back().first_task + t->jobs.back().num_tasks);
  }
  sc.traces[0].trace = t;
  return sc;
}

void run_trace(benchmark::State& state, const std::string& policy, int jobs, int workers) {
  const Scenario sc = trace_subset(jobs, workers);
  fw::PolicyRegistry reg;
  kube::register_policies(reg);
  reg.add("free-workers", "bench", [](fw::PolicyContext& ctx) -> std::unique_ptr<fw::Component> {
    return std::make_unique<FreeWorkers>(ctx);
  });
  uint64_t events = 0, pods = 0;
  for (auto _ : state) {
    RunOptions opt;
    opt.policy = policy;
    opt.wall_clock = false;
    Simulation sim(sc, reg, opt);
    sim.run();
    events += sim.loop().processed();
    pods += sim.recorder().pods_created();
    if (sim.jobs().records().size() != static_cast<size_t>(jobs)) state.SkipWithError("jobs left");
  }
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["pods/s"] =
      benchmark::Counter(static_cast<double>(pods), benchmark::Counter::kIsRate);
}

// syn_250 (250 one-second tasks per job, one job per second) on 10,000 one-slot workers.
void BM_TraceFreeWorkers(benchmark::State& state) {
  run_trace(state, "free-workers", static_cast<int>(state.range(0)), 10000);
}
BENCHMARK(BM_TraceFreeWorkers)->Arg(400)->Unit(benchmark::kMillisecond);

void BM_TraceKubeDefault(benchmark::State& state) {
  run_trace(state, "kube-default", static_cast<int>(state.range(0)), 10000);
}
BENCHMARK(BM_TraceKubeDefault)->Arg(40)->Arg(400)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace orrery::sim

BENCHMARK_MAIN();
