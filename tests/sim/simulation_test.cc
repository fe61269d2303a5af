#include "sim/simulation.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.h"
#include "policies/kube/policies.h"
#include "scratch_dir.h"
#include "sim_test_util.h"

namespace orrery::sim {
namespace {

fw::PolicyRegistry registry() {
  fw::PolicyRegistry r;
  testing::register_test_policies(r);
  return r;
}

const char* kEdgeScenario = R"(
name: edge-demo
seed: 3
scheduler: fitall-random
lifecycle: {bind: {dist: uniform, min: 5ms, max: 20ms}, startup: {dist: lognormal, median: 1s, sigma: 0.3}}
cluster:
  nodes:
  - {name: edge, count: 3, cpu: 4, memory: 4Gi, tier: edge}
  - {name: cloud, cpu: 22, memory: 17Gi, tier: cloud}
workloads:
- deployment: {name: A, requests: {cpu: 1, memory: 950Mi}, hpa: {maxReplicas: 30}}
- deployment: {name: D, requests: {cpu: 2, memory: 1900Mi}, hpa: {maxReplicas: 30}}
- demand_cycles: {deployments: [A, D], cycles: 4, period: 90s, mean: 1.0, sd: 0.5}
- job: {name: batch, at: 20s, completions: 6, parallelism: 3, requests: {cpu: 500m}, work: 30s}
)";

std::string run_to_string(const std::string& text, uint64_t seed, Json* summary_out = nullptr) {
  Scenario sc = parse_scenario(text, "s.yaml", "");
  RunOptions opt;
  opt.seed = seed;
  opt.wall_clock = false;
  fw::PolicyRegistry reg = registry();
  Simulation sim(sc, reg, opt);
  sim.run();
  Json s = sim.summary();
  if (summary_out) *summary_out = s;
  return summary_text(s) + sim.recorder().pods_csv() + sim.recorder().timeseries_csv() +
         sim.recorder().edge_ratio_csv();
}

TEST(Simulation, SameSeedSameOutputsDifferentSeedDifferentOutputs) {
  Json s;
  const std::string a = run_to_string(kEdgeScenario, 3, &s);
  const std::string b = run_to_string(kEdgeScenario, 3);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, run_to_string(kEdgeScenario, 4));
  EXPECT_EQ(s["scenario"], "edge-demo");
  EXPECT_EQ(s["profile"], "fitall-random");
  EXPECT_EQ(s["seed"], 3);
  EXPECT_DOUBLE_EQ(s["sim_time_s"].get<double>(), 360.0);
  EXPECT_EQ(s["wall_time_s"], 0.0);
  EXPECT_GT(s["events"].get<uint64_t>(), 100u);
  EXPECT_EQ(s["jobs"]["count"], 1);
  EXPECT_GT(s["pods"]["count"].get<int>(), 6);
  EXPECT_GT(s["utilization"]["cpu_mean"].get<double>(), 0.0);
  ASSERT_TRUE(s.contains("edge_ratio"));
  EXPECT_GT(s["edge_ratio"]["mean"].get<double>(), 0.0);
  EXPECT_LE(s["edge_ratio"]["mean"].get<double>(), 1.0);
  ASSERT_EQ(s["demand_cycles"].size(), 1u);
  EXPECT_EQ(s["demand_cycles"][0].size(), 4u);
  EXPECT_EQ(s["scheduler"]["wall_total_s"], 0.0);
  EXPECT_GT(s["scheduler"]["decisions"].get<int>(), 0);
}

TEST(Simulation, HpaFollowsTheDemandCycles) {
  Scenario sc = parse_scenario(kEdgeScenario, "s.yaml", "");
  RunOptions opt;
  opt.wall_clock = false;
  fw::PolicyRegistry reg = registry();
  Simulation sim(sc, reg, opt);
  sim.run();
  Json s = sim.summary();
  // The first cycle's fraction decides A's replicas once the HPA has caught up (scale-up is fast,
  // within the 90 s cycle).
  const double f0 = s["demand_cycles"][0][0].get<double>();
  const double edge_cpu = 12000, edge_mem = 12.0 * 1024;  // 3 × (4 cores, 4Gi) in Mi
  const double load_a = std::max(f0 * edge_cpu / 2 / 1000, f0 * edge_mem / 2 / 950);
  std::istringstream csv(sim.recorder().edge_ratio_csv());
  std::string line;
  int replicas_at_80 = -1;
  while (std::getline(csv, line)) {
    if (line.rfind("80,A,", 0) == 0) replicas_at_80 = std::stoi(line.substr(line.rfind(',') + 1));
  }
  EXPECT_EQ(replicas_at_80, std::max(1, static_cast<int>(std::ceil(load_a - 1e-9))));
}

TEST(Simulation, TraceReplayComputesJobDelays) {
  const orrery::testing::ScratchDir scratch("sim-trace");
  const std::string dir = scratch.root().string();
  const std::string tr = dir + "/t.tr";
  {
    std::ofstream f(tr);
    // Two jobs on 2 one-slot workers: job 0 has 3 tasks of 1 s (one must wait), job 1 arrives at
    // 5 s with 2 tasks of 2 s.
    f << "0 3 1 1 1 1\n5 2 2 2 2\n";
  }
  Scenario sc = trace_scenario(tr, 2);
  sc.schedulers[0].policy = "fitall";
  RunOptions opt;
  opt.wall_clock = false;
  fw::PolicyRegistry reg = registry();
  Simulation sim(sc, reg, opt);
  sim.run();
  ASSERT_EQ(sim.jobs().records().size(), 2u);
  std::vector<JobRecord> jobs = sim.jobs().records();
  std::sort(jobs.begin(), jobs.end(), [](auto& a, auto& b) { return a.id < b.id; });
  EXPECT_EQ(jobs[0].finish, 2 * kSecond);  // third task runs after one of the first two
  EXPECT_NEAR(jobs[0].delay_s(), 1.0, 1e-9);
  EXPECT_EQ(jobs[1].finish, 7 * kSecond);
  EXPECT_NEAR(jobs[1].delay_s(), 0.0, 1e-9);
  EXPECT_FALSE(sim.incomplete());
  EXPECT_DOUBLE_EQ(to_seconds(sim.loop().now()), 7.0);
  Json s = sim.summary();
  EXPECT_EQ(s["jobs"]["count"], 2);
  EXPECT_EQ(s["pods"]["count"], 5);
  EXPECT_NEAR(s["jobs"]["delay_mean_s"].get<double>(), 0.5, 1e-9);

  sim.write_outputs(dir + "/out");
  for (const char* f : {"summary.json", "jobs.csv", "pods.csv", "timeseries.csv"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/out/" + f)) << f;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/edge_ratio.csv"));
  std::ifstream pods(dir + "/out/pods.csv");
  std::string header;
  std::getline(pods, header);
  EXPECT_EQ(header,
            "pod,owner,node,tier,created_s,bound_s,running_s,finished_s,pending_s,pct_s,restarts,"
            "migrations,outcome");
  std::string first;
  std::getline(pods, first);
  EXPECT_EQ(first, "j0-t0,j0,worker-0,,0,0,0,1,0,1,0,0,Succeeded");
}

TEST(Simulation, DecisionLatencyDelaysBindings) {
  const char* text = R"(
scheduler: {policy: fitall, args: {decision_latency: {base: 100ms}}}
cluster: {nodes: [{name: n, cpu: 100, memory: 100Gi}]}
workloads:
- job: {name: j, completions: 5, parallelism: 5, requests: {cpu: 1}, work: 1s}
)";
  Scenario sc = parse_scenario(text, "s.yaml", "");
  RunOptions opt;
  opt.wall_clock = false;
  fw::PolicyRegistry reg = registry();
  Simulation sim(sc, reg, opt);
  sim.run();
  // Five cycles back to back: the k-th pod is bound after k × 100 ms.
  ASSERT_EQ(sim.jobs().records().size(), 1u);
  EXPECT_EQ(sim.jobs().records()[0].finish, 1500 * kMs);
  Json s = sim.summary();
  EXPECT_EQ(s["scheduler"]["decisions"], 5);
  EXPECT_NEAR(s["pods"]["pending_p50_s"].get<double>(), 0.3, 1e-9);
}

// A filter that rejects every node until a timer opens it; opening releases a momentary capacity
// reservation, as CARICO's plugin does when a report makes a node usable: no cluster event.
class Gate : public fw::Plugin, public fw::TimerTarget {
 public:
  Gate(fw::Runtime& rt, Time open_at) : rt_(rt) { rt.clock.at(open_at, this, 0); }
  std::string_view name() const override { return "Gate"; }
  uint32_t extension_points() const override { return fw::kFilter; }
  size_t filter(const fw::CycleContext&, NodeId* nodes, size_t n, fw::Rejections& rej) override {
    if (open_) return n;
    for (size_t i = 0; i < n; ++i) rej.add(nodes[i], 0, 0, false);
    return 0;
  }
  void describe(const ClusterState&, const fw::Rejection&,
                std::vector<std::string>* r) const override {
    r->push_back("gate closed");
  }
  void on_timer(uint64_t) override {
    open_ = true;
    fw::Reservation r;
    r.kind = fw::ReservationKind::kCapacity;
    r.node = rt_.backend.state().nodes().front();
    rt_.reservations.remove(rt_.reservations.add(r));
  }

 private:
  fw::Runtime& rt_;
  bool open_ = false;
};

// The pod rejected by the closed gate is retried when the reservation goes, not at the
// unschedulable flush five minutes later (the simulator's driver woke only on cluster events).
TEST(Simulation, AReleasedReservationWakesTheScheduler) {
  fw::PolicyRegistry reg = registry();
  reg.add("gated", "test: a gate opening at 10 s, then fitall", [](fw::PolicyContext& ctx) {
    auto prof = std::make_unique<fw::Profile>();
    prof->add(std::make_unique<Gate>(ctx.runtime, 10 * kSecond), fw::kFilter, 1);
    prof->add(std::make_unique<testing::FitAll>(), fw::kFilter | fw::kScore, 1);
    std::vector<std::unique_ptr<fw::Profile>> profiles;
    profiles.push_back(std::move(prof));
    fw::SchedulerOptions opt;
    opt.seed = ctx.seed;
    return std::make_unique<fw::SchedulerDriver>(ctx, std::move(profiles), opt,
                                                 fw::DecisionLatency{});
  });
  const char* text = R"(
scheduler: gated
cluster: {nodes: [{name: n, cpu: 4, memory: 4Gi}]}
workloads:
- job: {name: j, completions: 1, requests: {cpu: 1}, work: 1s}
)";
  Scenario sc = parse_scenario(text, "s.yaml", "");
  RunOptions opt;
  opt.wall_clock = false;
  Simulation sim(sc, reg, opt);
  sim.run();
  ASSERT_EQ(sim.jobs().records().size(), 1u);
  const Time finish = sim.jobs().records()[0].finish;
  EXPECT_GE(finish, 11 * kSecond);  // bound no earlier than the gate opened, then 1 s of work
  EXPECT_LT(finish, 25 * kSecond) << "the pod waited for the unschedulable flush";
}

TEST(Simulation, UnschedulableWorkStopsAsIncomplete) {
  const char* text = R"(
scheduler: fitall
cluster: {nodes: [{name: n, cpu: 1, memory: 1Gi}]}
workloads:
- job: {name: huge, requests: {cpu: 8}, work: 1s}
)";
  Scenario sc = parse_scenario(text, "s.yaml", "");
  RunOptions opt;
  opt.wall_clock = false;
  opt.stall_limit = 600 * kSecond;
  fw::PolicyRegistry reg = registry();
  Simulation sim(sc, reg, opt);
  sim.run();
  EXPECT_TRUE(sim.incomplete());
  Json s = sim.summary();
  EXPECT_EQ(s["jobs"]["unfinished"], 1);
  EXPECT_EQ(s["incomplete"], true);
  EXPECT_GT(s["scheduler"]["failed_attempts"].get<int>(), 0);
}

TEST(Simulation, NodeEventsFailAndAddNodes) {
  const char* text = R"(
scheduler: fitall
duration: 10m
lifecycle: {node_failure: {detection: 10s, eviction: 20s}}
cluster: {nodes: [{name: a, cpu: 4, memory: 4Gi}, {name: b, cpu: 4, memory: 4Gi}]}
workloads:
- deployment: {name: web, replicas: 4, requests: {cpu: 1, memory: 1Gi}}
events:
- {at: 60s, action: fail, nodes: [a]}
- {at: 300s, action: add, group: {name: c, cpu: 8, memory: 8Gi}}
- {at: 400s, action: remove, nodes: [b]}
)";
  Scenario sc = parse_scenario(text, "s.yaml", "");
  RunOptions opt;
  opt.wall_clock = false;
  fw::PolicyRegistry reg = registry();
  Simulation sim(sc, reg, opt);
  sim.run();
  const ClusterState& st = sim.backend().state();
  EXPECT_EQ(st.node_count(), 2u);  // a (failed, still there), c
  ReplicaSet* web = sim.deployment("web");
  ASSERT_NE(web, nullptr);
  EXPECT_EQ(web->active_pods().size(), 4u);
  for (PodId p : web->active_pods()) {
    EXPECT_EQ(st.node(st.pod_node(p)).name, "c");
    EXPECT_EQ(sim.backend().stage(p), PodStage::kRunning);
  }
  Json s = sim.summary();
  EXPECT_GE(s["pods"]["outcomes"]["Evicted"].get<int>(), 2);
  EXPECT_GE(s["pods"]["outcomes"]["NodeRemoved"].get<int>(), 2);
}

TEST(Simulation, UnknownPolicyAndNodeNamesAreInputErrors) {
  fw::PolicyRegistry reg = registry();
  Scenario sc =
      parse_scenario("scheduler: nope\ncluster: {nodes: [{name: a, cpu: 1}]}\n", "s.yaml", "");
  EXPECT_THROW(Simulation(sc, reg, {}), InputError);
  // A typo names the scenario's line and the closest policy.
  Scenario typo = parse_scenario(
      "cluster: {nodes: [{name: a, cpu: 1}]}\nscheduler: {policy: fital}\n", "s.yaml", "");
  try {
    Simulation sim(typo, reg, {});
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "s.yaml:2: scheduler.policy: unknown scheduling policy \"fital\" (did you mean "
              "\"fitall\"?) (known: fitall, fitall-random)");
  }
  Scenario sc2 = parse_scenario(
      "scheduler: fitall\nduration: 1m\ncluster: {nodes: [{name: a, cpu: 1}]}\nevents:\n"
      "- {at: 1s, action: fail, nodes: [zz]}\n",
      "s.yaml", "");
  try {
    Simulation sim(sc2, reg, {});
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "s.yaml:5: events[0]: nodes: no node or node group named \"zz\"");
  }
}

}  // namespace
}  // namespace orrery::sim

namespace orrery::sim {
namespace {

// Every example in scenarios/ parses and runs (briefly) under kube-default.
TEST(Scenarios, ExamplesRun) {
  namespace fs = std::filesystem;
  fw::PolicyRegistry reg;
  kube::register_policies(reg);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(std::string(ORRERY_SOURCE_DIR) + "/scenarios")) {
    if (e.path().extension() == ".yaml" && e.path().filename() != "snapshot-cluster.yaml") {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 7u);
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    Scenario sc = load_scenario(f.string());
    RunOptions opt;
    opt.duration = 60 * kSecond;
    opt.wall_clock = false;
    Simulation sim(sc, reg, opt);
    sim.run();
    EXPECT_EQ(sim.loop().now(), 60 * kSecond);
    EXPECT_GT(sim.recorder().pods_created(), 0u);
  }
}

}  // namespace
}  // namespace orrery::sim

namespace orrery::sim {
namespace {

// CARICO §5 (Table 5.1), qualitatively: CPU-bound pods that under-request CPU (100m for a task that
// uses a full core) get packed by kube-scheduler and share the cores, so their Pod Completion Time
// stretches and becomes long-tailed; requesting what they use keeps PCT near the task's own time,
// while the job as a whole takes about as long either way.
TEST(Scenarios, UnderRequestedCpuStretchesPodCompletionTimes) {
  auto run = [](const std::string& request) {
    const std::string text = R"(
scheduler: kube-default
lifecycle: {startup: {dist: uniform, min: 500ms, max: 4s}}
cluster: {nodes: [{name: w, count: 4, cpu: 4, memory: 8Gi}]}
workloads:
- job:
    name: pi
    completions: 160
    requests: {cpu: )" + request +
                             R"(, memory: 64Mi}
    usage: {cpu: 1}
    work: {dist: normal, mean: 10s, sd: 1s}
)";
    Scenario sc = parse_scenario(text, "s.yaml", "");
    fw::PolicyRegistry reg;
    kube::register_policies(reg);
    RunOptions opt;
    opt.wall_clock = false;
    Simulation sim(sc, reg, opt);
    sim.run();
    Json s = sim.summary();
    EXPECT_EQ(s["jobs"]["count"], 1);
    return std::make_pair(s["pods"]["pct_mean_s"].get<double>(),
                          sim.jobs().records().at(0).jrt_s());
  };
  const auto [pct_low, jct_low] = run("100m");
  const auto [pct_right, jct_right] = run("1");
  EXPECT_LT(pct_right, 11.0);           // ≈ the 10 s of work: one pod per core
  EXPECT_GT(pct_low, 5 * pct_right);    // packed 40 per 4-core node: PCT stretches ~10×
  EXPECT_LT(jct_low, 1.5 * jct_right);  // the job takes about as long either way
  EXPECT_GT(jct_low, 0.5 * jct_right);
}

}  // namespace
}  // namespace orrery::sim

namespace orrery::sim {
namespace {

// A substituted policy (--profile, compare) runs with its own `policies:` settings, never with
// the settings the scenario gave another policy.
TEST(Simulation, SubstitutedPoliciesUseTheirOwnSettings) {
  const char* text = R"(
scheduler: {policy: fitall, args: {decision_latency: {base: 100ms}}}
policies:
  fitall-random: {args: {decision_latency: {base: 40ms}}}
cluster: {nodes: [{name: n, cpu: 100, memory: 100Gi}]}
workloads:
- job: {name: j, completions: 5, parallelism: 5, requests: {cpu: 1}, work: 1s}
)";
  Scenario sc = parse_scenario(text, "s.yaml", "");
  fw::PolicyRegistry reg = registry();
  reg.add("fitall-nolatency", "test", [](fw::PolicyContext& ctx) {
    EXPECT_FALSE(ctx.args.defined());
    return testing::make_fitall(ctx);
  });
  auto finish = [&](const std::string& policy) {
    RunOptions opt;
    opt.policy = policy;
    opt.wall_clock = false;
    Simulation sim(sc, reg, opt);
    sim.run();
    return sim.jobs().records().at(0).finish;
  };
  EXPECT_EQ(finish(""), 1500 * kMs);               // 5 × 100 ms + 1 s
  EXPECT_EQ(finish("fitall-random"), 1200 * kMs);  // 5 × 40 ms + 1 s
  EXPECT_EQ(finish("fitall-nolatency"), 1000 * kMs);
}

// Pods requiring machine constraints: kube-default alone ignores them (and warns once); with the
// MachineConstraints plugin enabled in the scenario's KubeSchedulerConfiguration every pod lands
// on the one node that satisfies them.
TEST(Simulation, MachineConstraintsAreEnforcedOnlyWhenTheProfileEnablesThem) {
  const orrery::testing::ScratchDir scratch("sim-constraints");
  const std::string dir = scratch.root().string();
  std::ofstream(dir + "/mc.yaml") << "apiVersion: kubescheduler.config.k8s.io/v1\n"
                                     "kind: KubeSchedulerConfiguration\n"
                                     "profiles:\n"
                                     "- plugins: {multiPoint: {enabled: [{name: "
                                     "MachineConstraints}]}}\n";
  const std::string body = R"(
cluster:
  nodes:
  - {name: plain, count: 2, cpu: 4, memory: 8Gi}
  - {name: special, cpu: 4, memory: 8Gi, constraints: [3]}
workloads:
- job: {name: needs3, completions: 4, requests: {cpu: 500m}, constraints: [3], work: 10s}
)";
  auto nodes_used = [&](const std::string& scheduler, std::vector<std::string>* warnings) {
    Scenario sc = parse_scenario("name: c\nseed: 1\n" + scheduler + body, "s.yaml", dir);
    RunOptions opt;
    opt.wall_clock = false;
    fw::PolicyRegistry reg;
    kube::register_policies(reg);
    Simulation sim(sc, reg, opt);
    sim.run();
    *warnings = sim.warnings();
    std::set<std::string> nodes;
    std::istringstream csv(sim.recorder().pods_csv());
    std::string line;
    std::getline(csv, line);  // header
    while (std::getline(csv, line)) {
      const size_t a = line.find(',') + 1, b = line.find(',', a) + 1;
      nodes.insert(line.substr(b, line.find(',', b) - b));
    }
    return nodes;
  };
  std::vector<std::string> warnings;
  const std::set<std::string> plain = nodes_used("", &warnings);
  EXPECT_GT(plain.size(), 1u);  // least-allocated spreads over nodes that lack constraint 3
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("does not enable the MachineConstraints plugin"), std::string::npos)
      << warnings[0];
  const std::set<std::string> enforced =
      nodes_used("scheduler: {policy: kube-default, config: mc.yaml}\n", &warnings);
  EXPECT_EQ(enforced, std::set<std::string>{"special"});
  EXPECT_TRUE(warnings.empty());
}

}  // namespace
}  // namespace orrery::sim
