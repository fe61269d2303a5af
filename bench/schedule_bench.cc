// Scheduling throughput of the kube-default profile (issue 2 acceptance), single thread:
//   BM_Schedule/100  10,000 pending pods onto 5,000 heterogeneous nodes, percentageOfNodesToScore
//                    100 (target >= 10,000 pods/s)
//   BM_Schedule/0    the same with the adaptive default (10 % of 5,000 nodes; target >= 50,000/s)
//   BM_ScheduleBusy  the same 10,000 pods onto the 5,000 nodes already running 100,000 pods
//                    (PodTopologySpread's default spreading counts replicas on every node)
//   BM_Memory        resident memory of 5,000 nodes + 100,000 bound pods (target <= 300 MB)
//   BM_ScheduleAntiAffinity  the same 10,000 pods, every one with required pod anti-affinity
//                    (hostname) against the pods of its own app (its Deployment, or one of 50
//                    groups of standalone pods), so InterPodAffinity filters and scores every
//                    pod (target >= 1,000 pods/s)
//   BM_ScheduleAntiAffinityBusy  those pods onto the 5,000 nodes running 100,000 pods without
//                    terms: each pod's own terms are matched against every pod (one iteration)
// The cluster: 10 zones, six machine sizes (4-96 cores), 5 % GPU nodes (NoSchedule taint),
// 5 % spot nodes (PreferNoSchedule taint), half the nodes with SSDs. The pods: 60 % replicas of
// 20-pod Deployments (system default topology spreading applies), 20 % standalone, 10 % with a
// nodeSelector, 5 % with preferred node affinity, 5 % GPU pods with a toleration.
#include <benchmark/benchmark.h>

#include <unistd.h>
#include <cstdio>
#include <fstream>

#include "core/rng.h"
#include "framework/scheduler.h"
#include "plugins/register.h"

namespace orrery {
namespace {

constexpr int kNumNodes = 5000;
constexpr int kNumPods = 10000;
constexpr int64_t kGi = 1LL << 30;
constexpr int64_t kMi = 1LL << 20;

Node make_node(int i, Rng& rng) {
  static const int64_t kCores[] = {4, 8, 16, 32, 64, 96};
  Node n;
  char name[32];
  std::snprintf(name, sizeof name, "node-%05d", i);
  n.name = name;
  const int64_t cores = kCores[rng.below(6)];
  n.allocatable[kCpu] = cores * 1000;
  n.allocatable[kMemory] = cores * 4 * kGi;
  n.allocatable[kPods] = 110;
  n.labels.set("kubernetes.io/hostname", n.name);
  n.labels.set("topology.kubernetes.io/zone", "zone-" + std::to_string(i % 10));
  n.labels.set("disk", rng.bernoulli(0.5) ? "ssd" : "hdd");
  if (i % 20 == 3) {
    n.allocatable[kGpu] = 8;
    n.taints.push_back({intern("nvidia.com/gpu"), intern("present"), TaintEffect::kNoSchedule});
  } else if (i % 20 == 11) {
    n.taints.push_back({intern("spot"), intern("true"), TaintEffect::kPreferNoSchedule});
  }
  n.capacity = n.allocatable;
  return n;
}

std::shared_ptr<PodSpec> make_spec(Rng& rng) {
  Resources r;
  r[kCpu] = 100 * static_cast<int64_t>(1 + rng.below(20));
  r[kMemory] = 128 * kMi * static_cast<int64_t>(1 + rng.below(32));
  return make_simple_spec(r);
}

// Required anti-affinity against the pods labelled app=`app`, one per node.
void add_anti_affinity(PodSpec& spec, const std::string& app) {
  spec.labels.set("app", app);
  PodAffinityTerm t;
  t.selector.emplace();
  t.selector->match_labels.set("app", app);
  t.topology_key = intern("kubernetes.io/hostname");
  spec.pod_anti_affinity.required.push_back(std::move(t));
}

// Pending (node == "") or bound pods, `count` of them, named with `prefix`; with `anti_affinity`
// every pod gets required anti-affinity against its app.
void add_pods(ClusterState& st, int count, const std::string& prefix, Rng& rng, bool bound,
              bool anti_affinity = false) {
  std::shared_ptr<PodSpec> deployment;
  std::string owner;
  for (int i = 0; i < count; ++i) {
    Pod p;
    p.ns = "bench";
    p.name = prefix + std::to_string(i);
    p.creation_us = i;
    const uint64_t kind = rng.below(20);
    if (kind < 12) {  // Deployment replicas
      if (i % 20 == 0 || !deployment) {
        deployment = make_spec(rng);
        owner = prefix + "deploy-" + std::to_string(i / 20);
        deployment->labels.set("app", owner);
        if (anti_affinity) add_anti_affinity(*deployment, owner);
        deployment->finalize();
      }
      p.spec = deployment;
      p.owner = {OwnerKind::kReplicaSet, owner};
    } else {
      auto spec = make_spec(rng);
      if (kind == 16 || kind == 17) spec->node_selector.set("disk", "ssd");
      if (kind == 18) {
        PreferredSchedulingTerm t;
        t.weight = 10;
        t.preference.match_expressions.push_back(
            {intern("topology.kubernetes.io/zone"), SelectorOp::kIn, {intern("zone-3")}, 0, {}});
        spec->node_affinity.preferred.push_back(t);
      }
      if (kind == 19) {
        spec->containers[0].requests[kGpu] = 1;
        spec->containers[0].requests_set |= 1u << kGpu;
        spec->tolerations.push_back({intern("nvidia.com/gpu"), TolerationOp::kExists, kNoStr,
                                     TaintEffect::kNoSchedule, std::nullopt});
      }
      if (anti_affinity) add_anti_affinity(*spec, prefix + "batch-" + std::to_string(i % 50));
      spec->finalize();
      p.spec = spec;
    }
    if (bound) {
      // Round-robin placement keeps every node well under its capacity.
      p.node_name = st.node(static_cast<NodeId>(i % st.node_count())).name;
      p.phase = PodPhase::kRunning;
    }
    st.add_pod(std::move(p));
  }
}

const ClusterState& anti_affinity_cluster() {
  static const ClusterState st = [] {
    Rng rng(42);
    ClusterState s;
    for (int i = 0; i < kNumNodes; ++i) s.add_node(make_node(i, rng));
    add_pods(s, kNumPods, "pending-", rng, false, /*anti_affinity=*/true);
    return s;
  }();
  return st;
}

const ClusterState& busy_anti_affinity_cluster() {
  static const ClusterState st = [] {
    Rng rng(42);
    ClusterState s;
    for (int i = 0; i < kNumNodes; ++i) s.add_node(make_node(i, rng));
    add_pods(s, 100000, "running-", rng, true);
    add_pods(s, kNumPods, "pending-", rng, false, /*anti_affinity=*/true);
    return s;
  }();
  return st;
}

const ClusterState& cluster(bool busy) {
  static const ClusterState empty = [] {
    Rng rng(42);
    ClusterState st;
    for (int i = 0; i < kNumNodes; ++i) st.add_node(make_node(i, rng));
    add_pods(st, kNumPods, "pending-", rng, false);
    return st;
  }();
  static const ClusterState full = [] {
    Rng rng(42);
    ClusterState st;
    for (int i = 0; i < kNumNodes; ++i) st.add_node(make_node(i, rng));
    add_pods(st, 100000, "running-", rng, true);
    add_pods(st, kNumPods, "pending-", rng, false);
    return st;
  }();
  return busy ? full : empty;
}

void run(benchmark::State& state, const ClusterState& base, int percentage) {
  int64_t scheduled = 0, evaluated = 0, feasible = 0, cycle_ns = 0;
  for (auto _ : state) {
    state.PauseTiming();
    {
      fw::SnapshotBackend backend(base);
      fw::SchedulerOptions opts;
      opts.seed = 1;
      fw::Scheduler scheduler(backend, plugins::default_profiles(false, percentage), opts);
      scheduler.enqueue_pending();
      state.ResumeTiming();
      while (auto o = scheduler.schedule_next()) {
        scheduled += o->scheduled;
        evaluated += o->evaluated_nodes;
        feasible += o->feasible_nodes;
        cycle_ns += o->wall_ns;
      }
      state.PauseTiming();
    }
    state.ResumeTiming();
  }
  if (scheduled != kNumPods * static_cast<int64_t>(state.iterations())) {
    state.SkipWithError("not every pod was scheduled");
  }
  state.SetItemsProcessed(scheduled);
  // Per scheduling cycle: nodes filtered, nodes scored, wall time inside the cycle.
  const double cycles = static_cast<double>(std::max<int64_t>(scheduled, 1));
  state.counters["filtered/pod"] = static_cast<double>(evaluated) / cycles;
  state.counters["scored/pod"] = static_cast<double>(feasible) / cycles;
  state.counters["cycle_us"] = static_cast<double>(cycle_ns) / cycles / 1e3;
}

void BM_Schedule(benchmark::State& state) {
  run(state, cluster(false), static_cast<int>(state.range(0)));
}
BENCHMARK(BM_Schedule)->Arg(100)->Arg(0)->Unit(benchmark::kMillisecond);

void BM_ScheduleBusy(benchmark::State& state) {
  run(state, cluster(true), static_cast<int>(state.range(0)));
}
BENCHMARK(BM_ScheduleBusy)->Arg(100)->Arg(0)->Unit(benchmark::kMillisecond);

void BM_ScheduleAntiAffinity(benchmark::State& state) {
  run(state, anti_affinity_cluster(), static_cast<int>(state.range(0)));
}
BENCHMARK(BM_ScheduleAntiAffinity)->Arg(100)->Arg(0)->Unit(benchmark::kMillisecond);

void BM_ScheduleAntiAffinityBusy(benchmark::State& state) {
  run(state, busy_anti_affinity_cluster(), static_cast<int>(state.range(0)));
}
BENCHMARK(BM_ScheduleAntiAffinityBusy)->Arg(0)->Iterations(1)->Unit(benchmark::kMillisecond);

int64_t rss_bytes() {
  std::ifstream in("/proc/self/statm");
  int64_t size = 0, resident = 0;
  in >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

void BM_Memory(benchmark::State& state) {
  for (auto _ : state) {
    const int64_t before = rss_bytes();
    Rng rng(7);
    ClusterState st;
    for (int i = 0; i < kNumNodes; ++i) st.add_node(make_node(i, rng));
    add_pods(st, 100000, "running-", rng, true);
    const int64_t after = rss_bytes();
    state.counters["state_MB"] = static_cast<double>(after - before) / 1e6;
    state.counters["process_rss_MB"] = static_cast<double>(after) / 1e6;
    benchmark::DoNotOptimize(st.pod_count());
  }
}
BENCHMARK(BM_Memory)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace orrery

BENCHMARK_MAIN();
