// The scheduling queue under overload (docs/PERFORMANCE.md, "The queue under overload"): what
// one cluster event costs while N pods wait, with hints and equivalence classes (the default)
// and with the requeue-all oracle, which retries every waiting pod on every event.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "framework/queue.h"
#include "framework/scheduler.h"
#include "plugins/register.h"

namespace orrery::fw {
namespace {

constexpr int64_t kSec = 1'000'000;

PodClassKey class_key(uint64_t k) {
  PodClassKey key;
  key.salt_plugin = 1;
  key.salt = k;
  return key;
}

// A queue holding `n` unschedulable pods spread over `classes` classes (failed 10 s ago).
void fill(SchedulingQueue& q, int64_t n, int64_t classes) {
  for (int64_t i = 0; i < n; ++i) {
    QueuedPod p;
    p.pod = static_cast<PodId>(i);
    p.serial = static_cast<uint64_t>(i + 1);
    p.attempts = 1;
    q.add_unschedulable(p, 0, class_key(static_cast<uint64_t>(i % classes)));
  }
}

// One event that helps one class ("a pod finished"): the class's first member is retried and
// fails, standing for the others again. Per event, the hints mode evaluates one hint per class;
// the requeue-all mode also probes every waiting pod.
void BM_QueueEventUnderBacklog(benchmark::State& state) {
  const int64_t n = state.range(0);
  const int64_t classes = state.range(1);
  QueueOptions o;
  o.mode = state.range(2) != 0 ? QueueMode::kRequeueAll : QueueMode::kHints;
  o.max_unschedulable_us = int64_t{1} << 60;  // no flush: events only
  SchedulingQueue q(nullptr, o);
  uint64_t helped = 0;
  q.set_hint_fn(
      [&helped](const PodClassKey& k, uint64_t, const QueueEvent&) { return k.salt == helped; });
  fill(q, n, classes);
  int64_t now = 10 * kSec;
  int64_t probes = 0;
  for (auto _ : state) {
    helped = static_cast<uint64_t>(now % classes);
    q.on_event({QueueEvent::kPodReleased}, now);
    bool failed = false;  // the class's first retry; the scheduler then pops until idle
    while (auto p = q.pop(now)) {
      if (p->probe) {
        q.restore_probe(p->serial);
        ++probes;
      } else if (!failed) {
        q.add_unschedulable(*p, now, class_key(helped));
        failed = true;
      } else {
        q.add_unschedulable(*p, now, class_key(helped));  // not reached: the class is clean
      }
    }
    now += 20 * kSec;  // past every backoff
  }
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["probes/event"] =
      static_cast<double>(probes) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_QueueEventUnderBacklog)
    ->ArgNames({"pods", "classes", "requeue_all"})
    ->Args({1'000, 1, 0})
    ->Args({100'000, 1, 0})
    ->Args({1'000'000, 1, 0})
    ->Args({100'000, 100, 0})
    ->Args({1'000, 1, 1})
    ->Args({10'000, 1, 1});

// The 5-minute flush, per pod: pods failing one per millisecond are flushed as time passes;
// each iteration moves time 1 ms and pops what the flush released.
void BM_QueueFlushPerPod(benchmark::State& state) {
  const int64_t n = state.range(0);
  SchedulingQueue q(nullptr);
  for (int64_t i = 0; i < n; ++i) {
    QueuedPod p;
    p.serial = static_cast<uint64_t>(i + 1);
    p.attempts = 1;
    q.add_unschedulable(p, i * 1000, class_key(0));
  }
  int64_t now = 300 * kSec;
  int64_t flushed = 0;
  for (auto _ : state) {
    q.flush_unschedulable_leftover(now);
    while (auto p = q.pop(now)) {
      q.add_unschedulable(*p, now, class_key(0));  // fails again, waits another 5 minutes
      ++flushed;
    }
    now += 1000;
  }
  state.counters["flushed/iter"] =
      static_cast<double>(flushed) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_QueueFlushPerPod)->Arg(10'000)->Arg(300'000);

// The whole scheduler: 50 one-slot nodes, all busy, and N pending pods of one job spec (the
// trace-replay overload). Each iteration deletes a running pod (a cluster event) and runs the
// scheduling cycles it causes: one pod is placed, one fails for the rest.
void BM_SchedulerEventUnderBacklog(benchmark::State& state) {
  const int64_t n = state.range(0);
  ClusterState st;
  for (int i = 0; i < 50; ++i) {
    Node node;
    node.name = "worker-" + std::to_string(i);
    node.allocatable[kCpu] = 1000;
    node.allocatable[kMemory] = int64_t{1} << 30;
    node.allocatable[kPods] = 1;
    node.capacity = node.allocatable;
    st.add_node(node);
  }
  auto spec = make_simple_spec(Resources{});
  auto make = [&](int64_t i) {
    Pod p;
    p.name = "task-" + std::to_string(i);
    p.spec = spec;
    p.owner = {OwnerKind::kJob, "job"};
    return p;
  };
  for (int64_t i = 0; i < 50 + n; ++i) st.add_pod(make(i));
  SnapshotBackend be(std::move(st));
  QueueOptions qo;
  qo.mode = state.range(1) != 0 ? QueueMode::kRequeueAll : QueueMode::kHints;
  qo.max_unschedulable_us = int64_t{1} << 60;
  SchedulerOptions so;
  so.queue = qo;
  so.failure_messages = false;
  Scheduler s(be, plugins::default_profiles(true), so);
  s.enqueue_pending();
  s.run_until_idle();  // 50 placed, n failed once
  int64_t now = 0;
  int64_t next = 50 + n;
  int64_t cycles = 0;
  for (auto _ : state) {
    now += 20 * kSec;
    be.set_now_us(now);
    // A running task finishes and is deleted; a new one arrives (the backlog stays at n).
    ClusterState& cs = be.state();
    PodId victim = kNoPod;
    for (NodeId node : cs.nodes()) {
      if (!cs.pods_on(node).empty()) {
        victim = cs.pods_on(node).front();
        break;
      }
    }
    be.delete_pod(victim, "done");
    be.create_pod(make(next++));
    cycles += static_cast<int64_t>(s.run_until_idle().size());
  }
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["cycles/event"] =
      static_cast<double>(cycles) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_SchedulerEventUnderBacklog)
    ->ArgNames({"pending", "requeue_all"})
    ->Args({1'000, 0})
    ->Args({100'000, 0})
    ->Args({1'000, 1})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace orrery::fw
BENCHMARK_MAIN();
