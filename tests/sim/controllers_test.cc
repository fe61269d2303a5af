#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "sim/demand.h"
#include "sim/hpa.h"
#include "sim/job.h"
#include "sim/replicaset.h"
#include "sim_test_util.h"

namespace orrery::sim {
namespace {

using namespace testing;

// A backend with one big node and a scheduler-less binder: every new pending pod is bound to the
// first node at once.
struct Bench : fw::EventListener {
  EventLoop loop;
  SimBackend sim;
  explicit Bench(Lifecycle lc = {}) : sim(loop, 7, lc) {
    sim.add_node(make_node("n0", 64000, 256 * kGi));
    sim.add_node(make_node("n1", 64000, 256 * kGi));
    sim.add_listener(this);
  }
  ~Bench() override { sim.remove_listener(this); }
  bool bind = true;
  void on_event(const fw::ClusterEvent& e) override {
    if (bind && e.kind == fw::EventKind::kPodAdded && sim.state().pod_node(e.pod) == kNoNode) {
      sim.state().assign(e.pod, 0);
      sim.bind(e.pod, 0);
    }
  }
};

PodTemplate tmpl(int64_t cpu = 100) {
  PodTemplate t;
  t.spec = make_spec(cpu, 64 * kMi);
  return t;
}

TEST(ReplicaSet, KeepsReplicasAndRecreatesDeletedPods) {
  Bench b;
  ReplicaSet rs(b.sim, "web", tmpl(), 3, 1);
  b.loop.run_until(kSecond);
  auto pods = rs.active_pods();
  ASSERT_EQ(pods.size(), 3u);
  EXPECT_EQ(b.sim.state().pod(pods[0]).name, "web-0");
  EXPECT_EQ(b.sim.state().pod(pods[0]).owner.kind, OwnerKind::kReplicaSet);
  EXPECT_EQ(b.sim.state().pod(pods[0]).spec->labels.get(std::string_view("app")), "web");
  b.sim.delete_pod(pods[1], "chaos");
  b.loop.run_until(2 * kSecond);
  pods = rs.active_pods();
  ASSERT_EQ(pods.size(), 3u);
  EXPECT_EQ(b.sim.state().pod(pods[2]).name, "web-3");
  EXPECT_EQ(b.sim.restarts(pods[2]), 1u);  // the deleted replica's successor
  EXPECT_EQ(rs.created(), 4u);
}

TEST(ReplicaSet, CountsTerminatingPodsAsGoneAndReplacesThemAtOnce) {
  Lifecycle lc;
  lc.termination = Dist::constant(30 * kSecond);
  Bench b(lc);
  ReplicaSet rs(b.sim, "web", tmpl(), 2, 1);
  b.loop.run_until(kSecond);
  const PodId victim = rs.active_pods()[0];
  b.sim.delete_pod(victim, "evicted");
  b.loop.run_until(2 * kSecond);
  EXPECT_TRUE(b.sim.state().pod(victim).terminating);
  EXPECT_EQ(rs.active_pods().size(), 2u);
  EXPECT_EQ(b.sim.state().pod_count(), 3u);  // the old one is still terminating
  b.loop.run_until(40 * kSecond);
  EXPECT_EQ(b.sim.state().pod_count(), 2u);
}

TEST(ReplicaSet, ScaleDownRemovesUnscheduledPodsFirst) {
  Bench b;
  ReplicaSet rs(b.sim, "web", tmpl(), 3, 1);
  b.loop.run_until(kSecond);
  b.bind = false;
  rs.set_replicas(5);  // two more, which stay pending
  b.loop.run_until(2 * kSecond);
  ASSERT_EQ(rs.active_pods().size(), 5u);
  rs.set_replicas(3);
  b.loop.run_until(3 * kSecond);
  auto pods = rs.active_pods();
  ASSERT_EQ(pods.size(), 3u);
  for (PodId p : pods) EXPECT_NE(b.sim.state().pod_node(p), kNoNode);
}

TEST(ReplicaSet, ScaleDownPrefersDoubledUpThenNewestPods) {
  Bench b;
  b.bind = false;
  ReplicaSet rs(b.sim, "web", tmpl(), 3, 1);
  b.loop.run_until(0);
  // web-0 and web-1 on n0, web-2 alone on n1, started in that order.
  auto pods = rs.active_pods();
  const NodeId place[3] = {0, 0, 1};
  for (int i = 0; i < 3; ++i) {
    b.loop.run_until(i * kSecond);
    b.sim.state().assign(pods[i], place[i]);
    b.sim.bind(pods[i], place[i]);
  }
  b.loop.run_until(5 * kSecond);
  rs.set_replicas(2);
  b.loop.run_until(6 * kSecond);
  auto left = rs.active_pods();
  ASSERT_EQ(left.size(), 2u);
  // web-1: doubled up (rank 2) and started after web-0.
  std::vector<std::string> names;
  for (PodId p : left) names.push_back(b.sim.state().pod(p).name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"web-0", "web-2"}));
}

// Upstream's LogarithmicScaleDown (controller_utils.go logarithmicRankDiff): pods started in
// the same power-of-two age bucket are ordered by UID, not by start time; a younger bucket still
// goes first. web-0 and web-1 start at 0 s and 1 s, web-2 at 100 s; at 130 s their ages are 130,
// 129 s (both in bucket floor(log2(age in ns)) = 36) and 30 s (bucket 34).
TEST(ReplicaSet, LogarithmicScaleDownOrdersPodsOfOneAgeBucketByUid) {
  auto left_after = [](ScaleDownOrder order, uint64_t seed) {
    Bench b;
    ReplicaSet rs(b.sim, "web", tmpl(), 1, seed);
    rs.set_scale_down_order(order);
    b.loop.run_until(kSecond);
    rs.set_replicas(2);
    b.loop.run_until(100 * kSecond);
    rs.set_replicas(3);
    b.loop.run_until(130 * kSecond);
    rs.set_replicas(2);
    b.loop.run_until(131 * kSecond);
    std::vector<std::string> names;
    for (PodId p : rs.active_pods()) names.push_back(b.sim.state().pod(p).name);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"web-0", "web-1"}));  // the young bucket first
    rs.set_replicas(1);
    b.loop.run_until(132 * kSecond);
    return b.sim.state().pod(rs.active_pods().at(0)).name;
  };
  int kept_newer = 0;
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    EXPECT_EQ(left_after(ScaleDownOrder::kExact, seed), "web-0");  // the newest goes
    kept_newer += left_after(ScaleDownOrder::kLogarithmic, seed) == "web-1";
  }
  EXPECT_GT(kept_newer, 0);   // the UID order keeps the newer pod on some seeds
  EXPECT_LT(kept_newer, 16);  // and the older one on others
}

TEST(ReplicaSet, AdoptsPodsCreatedWithItsOwnerRef) {
  Bench b;
  ReplicaSet rs(b.sim, "web", tmpl(), 2, 1);
  b.loop.run_until(kSecond);
  Pod extra = make_pod("web-migrated", make_spec(100, 64 * kMi));
  extra.owner = {OwnerKind::kReplicaSet, "web"};
  b.sim.create_pod(std::move(extra));
  b.loop.run_until(2 * kSecond);
  // Adopted, then the set is one too many and deletes one (the newest, as upstream would).
  auto pods = rs.active_pods();
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(b.sim.state().pod_count(), 2u);
}

TEST(Demand, PiecewiseConstant) {
  Demand d;
  EXPECT_EQ(d.at(5), 0.0);
  d.set(10, 2.5);
  d.set(20, 1.0);
  d.set(20, 4.0);
  EXPECT_EQ(d.at(9), 0.0);
  EXPECT_EQ(d.at(10), 2.5);
  EXPECT_EQ(d.at(19), 2.5);
  EXPECT_EQ(d.at(20), 4.0);
  EXPECT_EQ(d.at(1000), 4.0);
}

TEST(DemandCycles, SplitsTheDrawnFractionEquallyOnTheDominantResource) {
  DemandCycleSpec spec;
  spec.cycles = 3;
  spec.period = 90 * kSecond;
  spec.mean = 1.0;
  spec.sd = 0.0;  // every cycle draws exactly the mean
  spec.basis[kCpu] = 16000;
  spec.basis[kMemory] = 14 * kGi;
  // KubeDSM Table 5: A = 1 core / 950Mi, D = 2 cores / 1900Mi.
  Resources a, d;
  a[kCpu] = 1000, a[kMemory] = 950 * kMi;
  d[kCpu] = 2000, d[kMemory] = 1900 * kMi;
  Demand da, dd;
  Rng rng(1);
  auto f = generate_demand_cycles(spec, {a, d}, rng, {&da, &dd});
  ASSERT_EQ(f.size(), 3u);
  EXPECT_DOUBLE_EQ(f[0], 1.0);
  // Each service gets 8 cores and 7Gi: A holds max(8, 7Gi/950Mi = 7.55) = 8 pods, D 4 pods.
  EXPECT_DOUBLE_EQ(da.at(0), 8.0);
  EXPECT_DOUBLE_EQ(dd.at(100 * kSecond), 4.0);
  EXPECT_EQ(da.steps().size(), 3u);
  EXPECT_EQ(da.steps()[2].first, 180 * kSecond);

  // With spread, draws vary per cycle, are never negative, and follow the seed.
  spec.cycles = 200;
  spec.sd = 0.5;
  Rng r1(5), r2(5);
  Demand x1, x2;
  auto f1 = generate_demand_cycles(spec, {a}, r1, {&x1});
  auto f2 = generate_demand_cycles(spec, {a}, r2, {&x2});
  EXPECT_EQ(f1, f2);
  double sum = 0;
  for (double v : f1) {
    EXPECT_GE(v, 0.0);
    sum += v;
  }
  EXPECT_NEAR(sum / 200, 1.0, 0.12);
}

TEST(DemandCycles, PerServiceDrawsAsGenny) {
  // genny (the KubeDSM authors' generator): the edge of their config less 1 core / 1 GB per node
  // is 11 cores / 13 GB; A is counted as 1/1, B as 1/2, D as 3/3. c_A = (11/4 + 13/4) / 2 = 3,
  // c_B = (11/4 + 13/8) / 2 = 2.1875, c_D = (11/12 + 13/12) / 2 = 1.
  DemandCycleSpec spec;
  spec.draw = DemandCycleSpec::Draw::kPerService;
  spec.cycles = 4;
  spec.period = 90 * kSecond;
  spec.start = 60 * kSecond;
  spec.stop = true;
  spec.mean = 1.5;
  spec.sd = 0.0;
  spec.basis[kCpu] = 11000;
  spec.basis[kMemory] = 13 * kGi;
  Resources a, b, d, size_a, size_b, size_d;
  a[kCpu] = 1000, a[kMemory] = 950 * kMi;  // the pods' requests (Table 5) are not the sizes
  b[kCpu] = 1000, b[kMemory] = 1900 * kMi;
  d[kCpu] = 2000, d[kMemory] = 1900 * kMi;
  size_a[kCpu] = 1000, size_a[kMemory] = 1 * kGi;
  size_b[kCpu] = 1000, size_b[kMemory] = 2 * kGi;
  size_d[kCpu] = 3000, size_d[kMemory] = 3 * kGi;
  spec.sizes = {size_a, size_b, size_a, size_d};  // A, B, C (as A), D
  Demand da, db, dc, dd;
  Rng rng(1);
  auto f = generate_demand_cycles(spec, {a, b, a, d}, rng, {&da, &db, &dc, &dd});
  ASSERT_EQ(f.size(), 4u);
  EXPECT_DOUBLE_EQ(da.at(60 * kSecond), 5.0);  // round(1.5 * 3) = round(4.5) = 5 (away from 0)
  EXPECT_DOUBLE_EQ(db.at(60 * kSecond), 3.0);  // round(3.28)
  EXPECT_DOUBLE_EQ(dd.at(60 * kSecond), 2.0);  // round(1.5)
  EXPECT_DOUBLE_EQ(da.at(0), 0.0);             // idle before the first cycle
  EXPECT_DOUBLE_EQ(da.at(60 * kSecond + 4 * 90 * kSecond), 0.0);  // stopped after the last
  EXPECT_NEAR(f[0], (5.0 / 3 + 3.0 / 2.1875 + 5.0 / 3 + 2.0 / 1) / 4, 1e-12);

  // A draw never gives fewer than one pod; draws follow the seed and are independent per
  // service: with a fixed seed the sequence is the service-major one genny makes.
  // Two services split the basis in two: c_A = (11/2 + 13/2) / 2 = 6.
  spec.mean = 0.1;
  spec.sd = 1.0;
  spec.cycles = 50;
  spec.sizes = {size_a, size_d};
  Demand x1, y1, x2, y2;
  Rng r1(7), r2(7);
  generate_demand_cycles(spec, {a, d}, r1, {&x1, &y1});
  generate_demand_cycles(spec, {a, d}, r2, {&x2, &y2});
  EXPECT_EQ(x1.steps(), x2.steps());
  EXPECT_EQ(y1.steps(), y2.steps());
  Rng r3(7);
  for (const auto& [t, pods] : x1.steps()) {
    if (t == spec.start + spec.period * spec.cycles) break;  // the stop step
    EXPECT_GE(pods, 1.0);
    EXPECT_DOUBLE_EQ(pods, std::max(1.0, std::round(r3.normal(0.1 * 6, 1.0 * 6))));
  }
}

TEST(DemandCycles, StallsAreSeededPoissonEpisodesInsideTheLoad) {
  DemandCycleSpec spec;
  spec.cycles = 12;
  spec.period = 90 * kSecond;
  spec.start = 60 * kSecond;
  spec.stalls = {720 * kSecond, 200 * kSecond, 30 * kSecond, 100 * kSecond, 0.3};
  const Time from = spec.start + spec.stalls.after, end = spec.start + spec.period * spec.cycles;
  size_t episodes = 0;
  double stalled = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    Rng rng(seed), again(seed);
    const auto e = draw_stalls(spec, rng);
    EXPECT_EQ(e, draw_stalls(spec, again));
    for (size_t i = 0; i < e.size(); ++i) {
      EXPECT_GT(e[i].first, from);
      EXPECT_LE(e[i].second, end);
      EXPECT_LT(e[i].first, e[i].second);
      // Each lasts 30-100 s unless the load's end cuts it; episodes never overlap.
      if (e[i].second < end) {
        EXPECT_GE(e[i].second - e[i].first, 30 * kSecond);
      }
      EXPECT_LE(e[i].second - e[i].first, 100 * kSecond);
      if (i > 0) {
        EXPECT_GT(e[i].first, e[i - 1].second);
      }
      stalled += to_seconds(e[i].second - e[i].first);
    }
    episodes += e.size();
  }
  // 360 s of stall-prone load: a gap of 200 s on average plus 65 s per episode gives about
  // 360 / 265 = 1.36 episodes (fewer: the last is cut) and ~25 % of the time stalled.
  const double per_run = static_cast<double>(episodes) / 400;
  EXPECT_GT(per_run, 1.0);
  EXPECT_LT(per_run, 1.6);
  EXPECT_GT(stalled / 400 / 360, 0.15);
  EXPECT_LT(stalled / 400 / 360, 0.30);
  spec.stalls.every = 0;  // off
  Rng rng(1);
  EXPECT_TRUE(draw_stalls(spec, rng).empty());
}

TEST(DemandCycles, StallsScaleEveryServicesLoadAndLeaveTheDrawsAlone) {
  DemandCycleSpec spec;
  spec.draw = DemandCycleSpec::Draw::kPerService;
  spec.cycles = 12;
  spec.period = 90 * kSecond;
  spec.mean = 1.5;
  spec.sd = 0.4;
  spec.stop = true;
  spec.basis[kCpu] = 8000;
  spec.basis[kMemory] = 8 * kGi;
  Resources a;
  a[kCpu] = 1000, a[kMemory] = 1 * kGi;
  Demand plain_a, plain_b, a1, b1;
  Rng r1(3), r2(3);
  generate_demand_cycles(spec, {a, a}, r1, {&plain_a, &plain_b});
  spec.stalls = {0, 100 * kSecond, 20 * kSecond, 40 * kSecond, 0.25};
  generate_demand_cycles(spec, {a, a}, r2, {&a1, &b1});
  Rng r3(3);
  Demand skip_a, skip_b;
  DemandCycleSpec unstalled = spec;
  unstalled.stalls = {};
  generate_demand_cycles(unstalled, {a, a}, r3, {&skip_a, &skip_b});  // the same draws first
  const auto episodes = draw_stalls(spec, r3);                        // then the episodes
  ASSERT_FALSE(episodes.empty());
  for (Time t = 0; t < spec.period * spec.cycles + 10 * kSecond; t += kSecond) {
    const bool in = std::any_of(episodes.begin(), episodes.end(),
                                [t](const auto& e) { return e.first <= t && t < e.second; });
    EXPECT_DOUBLE_EQ(a1.at(t), plain_a.at(t) * (in ? 0.25 : 1.0)) << to_seconds(t);
    EXPECT_DOUBLE_EQ(b1.at(t), plain_b.at(t) * (in ? 0.25 : 1.0)) << to_seconds(t);
  }
}

struct HpaBench {
  Bench b;
  ReplicaSet rs{b.sim, "web", tmpl(), 1, 1};
  Demand demand;
  HpaSpec spec;
  std::unique_ptr<Hpa> hpa;
  void make() { hpa = std::make_unique<Hpa>(b.loop, rs, demand, spec); }
};

TEST(Hpa, DesiredIsCeilOfLoadOverTargetOutsideTolerance) {
  HpaBench h;
  h.spec.max_replicas = 100;
  h.spec.up.policies.clear();  // no rate limit for this test
  h.demand.set(0, 1.05);       // within 10 % of 1 replica: no change
  h.demand.set(15 * kSecond, 3.2);
  h.demand.set(30 * kSecond, 7.0);  // ratio 7/4 = 1.75
  h.make();
  h.hpa->sync(0);
  EXPECT_EQ(h.rs.replicas(), 1);
  h.hpa->sync(15 * kSecond);
  EXPECT_EQ(h.rs.replicas(), 4);
  h.hpa->sync(30 * kSecond);
  EXPECT_EQ(h.rs.replicas(), 7);
  h.spec.max_replicas = 5;
  h.demand.set(45 * kSecond, 7.3);  // 7.3/7 within tolerance
  h.hpa->sync(45 * kSecond);
  EXPECT_EQ(h.rs.replicas(), 7);
}

TEST(Hpa, ScaleDownWaitsForTheStabilizationWindow) {
  HpaBench h;
  h.spec.max_replicas = 100;
  h.demand.set(0, 8.0);
  h.demand.set(60 * kSecond, 2.0);
  h.make();
  for (Time t = 0; t <= 60 * kSecond; t += 15 * kSecond) h.hpa->sync(t);
  EXPECT_EQ(h.rs.replicas(), 8);
  // The highest recommendation of the last 300 s (8, last made at 45 s) holds while it is
  // strictly inside the window, i.e. until 330 s.
  for (Time t = 75 * kSecond; t <= 330 * kSecond; t += 15 * kSecond) {
    h.hpa->sync(t);
    EXPECT_EQ(h.rs.replicas(), 8) << "t=" << t;
  }
  h.hpa->sync(345 * kSecond);
  EXPECT_EQ(h.rs.replicas(), 2);
}

TEST(Hpa, ScaleUpIsRateLimitedByDefaultPolicies) {
  HpaBench h;
  h.spec.max_replicas = 100;
  h.demand.set(0, 40.0);
  h.make();
  // Default scale-up: max(+4 pods, +100 %) per 15 s from the period's starting count.
  h.hpa->sync(0);
  EXPECT_EQ(h.rs.replicas(), 5);  // 1 + 4 > 1 × 2
  h.hpa->sync(15 * kSecond);
  EXPECT_EQ(h.rs.replicas(), 10);  // 5 × 2
  h.hpa->sync(30 * kSecond);
  EXPECT_EQ(h.rs.replicas(), 20);
  h.hpa->sync(45 * kSecond);
  EXPECT_EQ(h.rs.replicas(), 40);
  h.hpa->sync(60 * kSecond);
  EXPECT_EQ(h.rs.replicas(), 40);
}

TEST(Hpa, ClampsToMinAndMaxAndDrivesTheReplicaSet) {
  HpaBench h;
  h.spec.min_replicas = 2;
  h.spec.max_replicas = 6;
  h.spec.down.stabilization = 0;
  h.demand.set(0, 100.0);
  h.demand.set(120 * kSecond, 0.0);
  h.make();
  h.hpa->start();
  h.b.loop.run_until(100 * kSecond);
  EXPECT_EQ(h.rs.replicas(), 6);
  EXPECT_EQ(h.rs.active_pods().size(), 6u);
  h.b.loop.run_until(200 * kSecond);
  EXPECT_EQ(h.rs.replicas(), 2);
  EXPECT_EQ(h.rs.active_pods().size(), 2u);
}

// Upstream's calcPlainMetricReplicas, translated from pkg/controller/podautoscaler/
// replica_calculator_test.go (Pods metrics, "podMetric"); readiness does not matter for them.
TEST(PlainMetricReplicas, UpstreamCustomMetricCases) {
  using V = std::vector<std::optional<double>>;
  // TestReplicaCalcScaleUpCM
  EXPECT_EQ(plain_metric_replicas(3, V{20000, 10000, 30000}, 0, 15000, 0.1), 4);
  // TestReplicaCalcScaleUpCMUnreadyHotCpuNoLessScale (the unready pod still counts)
  EXPECT_EQ(plain_metric_replicas(3, V{50000, 10000, 30000}, 0, 15000, 0.1), 6);
  // TestReplicaCalcScaleUpCMUnreadyHotCpuScaleWouldScaleDown
  EXPECT_EQ(plain_metric_replicas(3, V{50000, 15000, 30000}, 0, 15000, 0.1), 7);
  // TestReplicaCalcScaleDownCM
  EXPECT_EQ(plain_metric_replicas(5, V{12000, 12000, 12000, 12000, 12000}, 0, 20000, 0.1), 3);
  // TestReplicaCalcToleranceCM
  EXPECT_EQ(plain_metric_replicas(3, V{20000, 21000, 21000}, 0, 20000, 0.1), 3);
  // TestReplicaCalcScaleUpCMExternal (a podMetric case despite its name)
  EXPECT_EQ(plain_metric_replicas(1, V{8600}, 0, 4400, 0.1), 2);
}

// The missing- and pending-pod rules are the same code in upstream's resource path; its CPU cases
// translate with utilisation levels as plain values (request 1000m, target = target% × 1000).
TEST(PlainMetricReplicas, UpstreamMissingAndPendingPodCases) {
  using V = std::vector<std::optional<double>>;
  const auto miss = std::nullopt;
  // TestReplicaCalcMissingMetrics: scale-down, the two missing pods count at the target.
  EXPECT_EQ(plain_metric_replicas(4, V{400, 95, miss, miss}, 0, 1000, 0.1), 3);
  // TestReplicaCalcMissingMetricsNoChangeGt: scale-up, missing at 0 → ratio 0.95, no change.
  EXPECT_EQ(plain_metric_replicas(2, V{1900, miss}, 0, 1000, 0.1), 2);
  // TestReplicaCalcMissingMetricsNoChangeLt: scale-down, missing at target → 0.8 × 2 = 2.
  EXPECT_EQ(plain_metric_replicas(2, V{600, miss}, 0, 1000, 0.1), 2);
  // TestReplicaCalcScaleDownExcludeUnscheduledPods: pending pods are ignored on a scale-down.
  EXPECT_EQ(plain_metric_replicas(5, V{100}, 4, 500, 0.1), 1);
  // TestReplicaCalcScaleUpUnreadyLessScale's numbers with the ignored pod pending: counted at
  // 0 on a scale-up, (500 + 700 + 0) / 3 / 300 × 3 = 4.
  EXPECT_EQ(plain_metric_replicas(3, V{500, 700}, 1, 300, 0.1), 4);
}

TEST(PlainMetricReplicas, HandWorkedEdges) {
  using V = std::vector<std::optional<double>>;
  // No measured pod: keep the count (upstream returns an error and the HPA does not scale).
  EXPECT_EQ(plain_metric_replicas(3, V{std::nullopt, std::nullopt}, 1, 5, 0.1), 3);
  // A scale-up that the missing pods would turn into a scale-down keeps the count:
  // ratio 1.2 → with a missing pod at 0, 0.6 crosses 1.
  EXPECT_EQ(plain_metric_replicas(2, V{6, std::nullopt}, 0, 5, 0.1), 2);
  // 4 pods at 5.4 req/s against 5: ratio 1.08, inside the tolerance, keeps 4 …
  EXPECT_EQ(plain_metric_replicas(4, V{5.4, 5.4, 5.4, 5.4}, 0, 5, 0.1), 4);
  // … and at 6 → ceil(1.2 × 4 = 4.8) = 5.
  EXPECT_EQ(plain_metric_replicas(4, V{6, 6, 6, 6}, 0, 5, 0.1), 5);
}

TEST(Hpa, PodRateMetricLagsBehindItsMeasurements) {
  HpaBench h;
  h.spec.max_replicas = 100;
  h.spec.up.policies.clear();
  h.spec.metric = HpaSpec::Metric::kPodRate;
  h.spec.metric_period = 60 * kSecond;
  h.demand.set(0, 3.0);
  h.demand.set(10 * kSecond, 6.0);
  h.make();
  h.b.loop.run_until(kSecond);  // web-0 runs
  h.hpa->sync(kSecond);         // measured: web-0 at 3 → ceil(3 × 1) = 3
  EXPECT_EQ(h.rs.replicas(), 3);
  h.b.loop.run_until(5 * kSecond);
  // At 16 s the measurement is still the one of 1 s: web-0 at 3, the two new pods missing (0 on a
  // scale-up) → (3 + 0 + 0) / 3 = 1 → no change, although the demand is now 6.
  h.hpa->sync(16 * kSecond);
  EXPECT_EQ(h.rs.replicas(), 3);
  // A new measurement at 61 s: three pods at 6 / 3 = 2 each → 6.
  h.b.loop.run_until(61 * kSecond);
  h.hpa->sync(61 * kSecond);
  EXPECT_EQ(h.rs.replicas(), 6);
}

TEST(Hpa, PodRateWithoutNoiseFollowsTheDemand) {
  HpaBench h;
  h.spec.max_replicas = 100;
  h.spec.down.stabilization = 0;
  h.spec.metric = HpaSpec::Metric::kPodRate;
  h.demand.set(0, 4.0);
  h.demand.set(90 * kSecond, 2.0);
  h.make();
  h.hpa->start();
  h.b.loop.run_until(80 * kSecond);
  EXPECT_EQ(h.rs.replicas(), 4);
  h.b.loop.run_until(150 * kSecond);
  EXPECT_EQ(h.rs.replicas(), 2);
}

TEST(Hpa, PodRateNoiseMovesReplicasAndIsSeeded) {
  auto trace = [](uint64_t seed) {
    HpaBench h;
    h.spec.max_replicas = 100;
    h.spec.down.stabilization = 0;
    h.spec.metric = HpaSpec::Metric::kPodRate;
    h.spec.metric_noise = 0.3;
    h.demand.set(0, 5.0);
    h.hpa = std::make_unique<Hpa>(h.b.loop, h.rs, h.demand, h.spec, seed);
    h.hpa->start();
    std::vector<int32_t> counts;
    for (Time t = 30 * kSecond; t <= 600 * kSecond; t += 15 * kSecond) {
      h.b.loop.run_until(t);
      counts.push_back(h.rs.replicas());
    }
    return counts;
  };
  const auto a = trace(1), b = trace(1), c = trace(2);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // The demand is constant at 5 pods; the noisy measurements move the count away from it.
  EXPECT_TRUE(std::any_of(a.begin(), a.end(), [](int32_t n) { return n != 5; }));
  EXPECT_TRUE(std::all_of(a.begin(), a.end(), [](int32_t n) { return n >= 1 && n <= 20; }));
}

TEST(Hpa, PodRateWindowSpreadsADemandChangeOverTheWindow) {
  // A rate averaged over 60 s (Prometheus' rate(counter[60s])): 10 pods at a demand of 10, then
  // the demand drops to 4 at 100 s. Read at the moment, the HPA goes to 4 at its first sync after
  // the drop; with the window it steps down as the window fills (each step sized by the average
  // so far, upstream's ceil(ratio × pods)) and reaches 4 only once the window holds no sample of
  // the old rate.
  auto run = [](Time window) {
    HpaBench h;
    h.spec.max_replicas = 100;
    h.spec.down.stabilization = 0;
    h.spec.metric = HpaSpec::Metric::kPodRate;
    h.spec.metric_window = window;
    h.demand.set(0, 10.0);
    h.demand.set(100 * kSecond, 4.0);
    h.make();
    h.hpa->start();
    std::vector<int32_t> counts;  // every 15 s from 90 s
    for (Time t = 90 * kSecond; t <= 300 * kSecond; t += 15 * kSecond) {
      h.b.loop.run_until(t + kSecond);
      counts.push_back(h.rs.replicas());
    }
    return counts;
  };
  const auto now = run(0), windowed = run(60 * kSecond);
  EXPECT_EQ(now, (std::vector<int32_t>{10, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}));
  // 120 s: 40 samples at 1 and 21 at 0.4 per pod → 0.79 → ceil(7.9) = 8 … down to 4 by 165 s.
  EXPECT_EQ(windowed.front(), 10);
  EXPECT_GT(windowed[2], 4);
  EXPECT_LT(windowed[2], 10);
  EXPECT_TRUE(std::is_sorted(windowed.rbegin(), windowed.rend()));  // never back up
  EXPECT_EQ(windowed.back(), 4);
}

TEST(Job, RunsCompletionsWithBoundedParallelism) {
  Bench b;
  JobLog log;
  JobSpec spec;
  spec.name = "batch";
  spec.tmpl = tmpl();
  spec.tmpl.exec.work = Dist::constant(10.0 * kSecond);
  spec.completions = 5;
  spec.parallelism = 2;
  b.loop.run_until(3 * kSecond);
  Job job(b.sim, spec, 42, 1, log);
  EXPECT_EQ(log.open(), 1u);
  b.loop.run_until(3 * kSecond);
  EXPECT_EQ(b.sim.state().pod_count(), 2u);
  b.loop.run_until();
  EXPECT_TRUE(job.finished());
  ASSERT_EQ(log.records().size(), 1u);
  const JobRecord& r = log.records()[0];
  EXPECT_EQ(r.id, 42u);
  EXPECT_EQ(r.arrival, 3 * kSecond);
  EXPECT_EQ(r.finish, 33 * kSecond);  // waves of 2, 2, 1 pods of 10 s
  EXPECT_EQ(r.ideal, 10 * kSecond);
  EXPECT_EQ(r.tasks, 5u);
  EXPECT_EQ(log.open(), 0u);
}

TEST(Job, AMigratedPodIsReplacedWithoutCountingAFailure) {
  Bench b;
  JobLog log;
  JobSpec spec;
  spec.name = "train";
  spec.tmpl = tmpl();
  spec.tmpl.exec.work = Dist::constant(100.0 * kSecond);
  spec.completions = 1;
  spec.backoff_limit = 0;  // one failure would fail the Job
  Job job(b.sim, spec, 7, 1, log);
  b.loop.run_until(10 * kSecond);
  const auto first = b.sim.state().find_pod("default", "train-0");
  ASSERT_TRUE(first.has_value());
  b.sim.delete_pod(*first, std::string(fw::kMigrationReason) + ": to another node");
  b.loop.run_until(20 * kSecond);
  EXPECT_EQ(job.failures(), 0);
  const auto second = b.sim.state().find_pod("default", "train-1");
  ASSERT_TRUE(second.has_value()) << "the Job replaces a migrated pod";
  EXPECT_EQ(b.sim.migrations(*second), 1u);
  EXPECT_EQ(b.sim.restarts(*second), 0u);
  b.loop.run_until();
  EXPECT_TRUE(job.finished());
  EXPECT_EQ(log.failed_count(), 0u);
}

TEST(Job, ReplacesFailedPodsUntilTheBackoffLimit) {
  Bench b;
  JobLog log;
  JobSpec spec;
  spec.name = "oom";
  spec.tmpl.spec = make_spec(100, 64 * kMi);
  spec.tmpl.exec.memory = Dist::constant(512.0 * kGi);  // every pod is OOM-killed at start
  spec.tmpl.exec.work = Dist::constant(10.0 * kSecond);
  spec.backoff_limit = 3;
  Job job(b.sim, spec, 1, 1, log);
  b.loop.run_until();
  EXPECT_TRUE(job.finished());
  EXPECT_EQ(job.failures(), 4);
  EXPECT_EQ(log.failed_count(), 1u);
  EXPECT_TRUE(log.records().empty());
}

}  // namespace
}  // namespace orrery::sim
