// The timeline model (eqs 1–15), the estimator corrector (Alg. 2), the decider (Alg. 3, eqs 16–17)
// and the switch (Alg. 1).
#include <gtest/gtest.h>

#include <random>

#include "core/error.h"
#include "policies/kubcg/corrector.h"
#include "policies/kubcg/decider.h"
#include "policies/kubcg/switch.h"
#include "policies/kubcg/timeline.h"

namespace orrery::kubcg {
namespace {

auto theta_p = [](int p) { return static_cast<double>(p); };  // Θ_P = P

TEST(Timeline, PhaseSums) {
  EXPECT_DOUBLE_EQ(t_pen(3, 1), 4);      // (1)
  EXPECT_DOUBLE_EQ(t_run(5, 60), 65);    // (2)
  EXPECT_DOUBLE_EQ(t_p(4, 65, 30), 99);  // (3): 30 s is Kubernetes' default deletion period
}

TEST(Timeline, ThetaDefaultsToPAndIsConfigurablePerImage) {
  ThetaModel t;
  EXPECT_DOUBLE_EQ(t.theta("encode", 1), 1);
  EXPECT_DOUBLE_EQ(t.theta("encode", 3), 3);
  t.set_slope("matrix", 0.25);
  EXPECT_DOUBLE_EQ(t.theta("matrix", 5), 2);
  EXPECT_DOUBLE_EQ(t.theta("encode", 5), 5);
}

// Scenario 1 (Fig. 3A, eq 4): P pods start and end together.
TEST(Timeline, Scenario1PodsStartingTogether) {
  EXPECT_DOUBLE_EQ(scenario1_run(100, 1, 1), 100);
  EXPECT_DOUBLE_EQ(scenario1_run(100, 3, 3), 300);
  const auto fin = share_finish({100, 100, 100}, theta_p);
  for (double f : fin) EXPECT_DOUBLE_EQ(f, 300);
}

// Scenario 2 (Fig. 3B, eqs 5–8): τ1 = 100, τ2 = 100, pod 2 starts 40 s later, Θ_2 = 2.
// Pod 1 has T_β = 60 s of work left, done in 120 s shared (T_ω = 60): it ends at 40 + 120 = 160.
// Pod 2 did 60 s of work meanwhile and runs its last T_μ = 40 alone: T_Run'_2 = 160.
TEST(Timeline, Scenario2SecondPodEndsAfterTheFirst) {
  const TwoPods r = scenario2(100, 100, 40, 2);
  EXPECT_DOUBLE_EQ(r.t_beta, 60);
  EXPECT_DOUBLE_EQ(r.t_omega, 60);
  EXPECT_DOUBLE_EQ(r.t_beta * 2, r.t_beta + r.t_omega);  // (6)
  EXPECT_DOUBLE_EQ(r.run1, 160);                         // (5)
  EXPECT_DOUBLE_EQ(r.t_mu, 40);
  EXPECT_DOUBLE_EQ(r.run2, 160);  // (7)
  // The general model from pod 2's start: pod 1 has 60 s left, pod 2 100 s.
  const auto fin = share_finish({60, 100}, theta_p);
  EXPECT_DOUBLE_EQ(40 + fin[0], r.run1);
  EXPECT_DOUBLE_EQ(fin[1], r.run2);
}

// Scenario 3 (Fig. 3C, eqs 9–12): τ1 = 200, τ2 = 50, pod 2 starts 30 s later, Θ_2 = 2.
// Pod 2 runs 100 s (T_β = 50, T_ω = 50); pod 1 then has 200 − 30 − 50 = 120 s left alone:
// T_Run'_1 = 30 + 100 + 120 = 250.
TEST(Timeline, Scenario3SecondPodEndsBeforeTheFirst) {
  const TwoPods r = scenario3(200, 50, 30, 2);
  EXPECT_DOUBLE_EQ(r.run2, 100);                         // (11), (12)
  EXPECT_DOUBLE_EQ(r.t_beta * 2, r.t_beta + r.t_omega);  // (12)
  EXPECT_DOUBLE_EQ(r.run1, 250);                         // (9)
  const auto fin = share_finish({170, 50}, theta_p);
  EXPECT_DOUBLE_EQ(fin[1], r.run2);
  EXPECT_DOUBLE_EQ(30 + fin[0], r.run1);
}

// share_finish against a brute-force time-stepped simulation of the same rule.
TEST(Timeline, ShareFinishMatchesBruteForce) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> work(1, 50);
  for (int trial = 0; trial < 50; ++trial) {
    const int n = 1 + trial % 6;
    std::vector<double> w(n);
    for (double& x : w) x = std::round(work(rng));
    const double slope = trial % 2 ? 1.0 : 0.5;
    auto th = [slope](int p) { return ThetaModel::theta_of(slope, p); };
    const auto fast = share_finish(w, th);
    std::vector<double> left = w, done(n, -1);
    const double dt = 1e-3;
    double t = 0;
    for (int alive = n; alive > 0;) {
      const double rate = 1.0 / th(alive);
      t += dt;
      for (int i = 0; i < n; ++i) {
        if (done[i] >= 0) continue;
        left[i] -= rate * dt;
        if (left[i] <= 1e-9) done[i] = t, --alive;
      }
    }
    for (int i = 0; i < n; ++i) EXPECT_NEAR(fast[i], done[i], 0.01 * n) << "trial " << trial;
  }
}

TEST(Timeline, GpuWaitIsRemainingPlusQueue) {
  EXPECT_DOUBLE_EQ(gpu_wait(1, {}, {}), 0);           // (13): available
  EXPECT_DOUBLE_EQ(gpu_wait(1, {30}, {}), 30);        // T_rem
  EXPECT_DOUBLE_EQ(gpu_wait(1, {30}, {20, 10}), 60);  // T_rem + T_queue
  EXPECT_DOUBLE_EQ(gpu_wait(2, {30}, {}), 0);         // a second GPU is free
  EXPECT_DOUBLE_EQ(gpu_wait(2, {30, 50}, {20}), 50);  // the queued pod takes the first GPU
}

// ---------------------------------------------------------------- Algorithm 2

TEST(EstimatorCorrector, MinThenAvgThenMaxThenAddMin) {
  StatsCache::Entry st{4, 4 * 20.0, 10, 40};  // count 4, avg 20, min 10, max 40
  Estimate e = initial_estimate(&st);
  EXPECT_EQ(e.technique, Technique::kMin);
  EXPECT_DOUBLE_EQ(e.ed_s, 10);
  e = correct_once(e, st);
  EXPECT_EQ(e.technique, Technique::kAvg);
  EXPECT_DOUBLE_EQ(e.ed_s, 20);
  e = correct_once(e, st);
  EXPECT_EQ(e.technique, Technique::kMax);
  EXPECT_DOUBLE_EQ(e.ed_s, 40);
  e = correct_once(e, st);
  EXPECT_EQ(e.technique, Technique::kAddMin);
  EXPECT_DOUBLE_EQ(e.ed_s, 50);
  e = correct_once(e, st);
  EXPECT_DOUBLE_EQ(e.ed_s, 60);
  EXPECT_EQ(initial_estimate(nullptr).technique, Technique::kUnknown);
}

TEST(EstimatorCorrector, EpTableCorrectsOnlyExceededEstimates) {
  EpTable ep;
  EpEntry a;
  a.start_s = 0;
  a.stats = {4, 80, 10, 40};
  a.estimate = initial_estimate(&a.stats);
  ep.add(1, a);
  EXPECT_DOUBLE_EQ(ep.find(1)->et_s, 10);
  EXPECT_EQ(ep.correct(9), 0);  // CT ≤ ET: nothing
  EXPECT_EQ(ep.correct(10.5), 1);
  EXPECT_EQ(ep.find(1)->estimate.technique, Technique::kAvg);
  EXPECT_DOUBLE_EQ(ep.find(1)->et_s, 20);
  ep.correct(25);
  EXPECT_EQ(ep.find(1)->estimate.technique, Technique::kMax);
  EXPECT_DOUBLE_EQ(ep.find(1)->et_s, 40);
  ep.correct(41);
  EXPECT_DOUBLE_EQ(ep.find(1)->et_s, 50);  // +MIN
  ep.correct(75);                          // +MIN until it is ahead again: 60, 70, 80
  EXPECT_DOUBLE_EQ(ep.find(1)->et_s, 80);
  EXPECT_EQ(ep.find(1)->corrections, 6);
}

// ---------------------------------------------------------------- Algorithm 3

struct Fixture {
  StatsCache stats;
  ThetaModel theta;
  std::vector<NodeStatus> nodes;
  Fixture() {
    // node-1: CPU only; node-5: CPU + GPU. The GPU runs the pod in 10 s, the CPUs in 40/50 s.
    for (const auto& [node, res, t] :
         std::vector<std::tuple<std::string, Resource, double>>{{"node-1", Resource::kCpu, 40},
                                                                {"node-5", Resource::kCpu, 50},
                                                                {"node-5", Resource::kGpu, 10}}) {
      Record r;
      r.image = res == Resource::kGpu ? "app:gpu" : "app:cpu";
      r.node = node;
      r.resource = res;
      r.t_exec_s = t;
      r.end_s = t;
      stats.add(r);
    }
    nodes = {{"node-1", 0, {}, {}}, {"node-5", 1, {}, {}}};
  }
  Decision run() {
    DeciderInput in;
    in.nodes = &nodes;
    in.images = {"app:cpu", "app:gpu", 1};
    in.stats = &stats;
    in.theta = &theta;
    return decide(in);
  }
};

TEST(Decider, PrefersAFreeGpu) {
  Fixture f;
  const Decision d = f.run();
  ASSERT_TRUE(d.placed);
  EXPECT_EQ(d.node, "node-5");
  EXPECT_EQ(d.resource, Resource::kGpu);
  EXPECT_FALSE(d.wait_for_gpu);
  EXPECT_DOUBLE_EQ(d.delta_s, 10);
}

TEST(Decider, WaitsForABusyGpuOnlyWhenThatFinishesEarlier) {
  Fixture f;
  // The GPU's pod has 20 s left: Δ_GPU = 20 + 10 = 30 < Δ_CPU = 40 → wait.
  f.nodes[1].running = {{Resource::kGpu, 20, 1, 1}};
  Decision d = f.run();
  EXPECT_EQ(d.node, "node-5");
  EXPECT_EQ(d.resource, Resource::kGpu);
  EXPECT_TRUE(d.wait_for_gpu);
  EXPECT_DOUBLE_EQ(d.delta_s, 30);
  // 35 s left: Δ_GPU = 45 > 40 → run now on node-1's CPU.
  f.nodes[1].running = {{Resource::kGpu, 35, 1, 1}};
  d = f.run();
  EXPECT_EQ(d.node, "node-1");
  EXPECT_EQ(d.resource, Resource::kCpu);
  EXPECT_FALSE(d.wait_for_gpu);
  EXPECT_DOUBLE_EQ(d.delta_s, 40);
  // 20 s left but two pods queued ahead (10 s each): 20 + 20 + 10 = 50 > 40 → CPU.
  f.nodes[1].running = {{Resource::kGpu, 20, 1, 1}};
  f.nodes[1].gpu_queue = {10, 10};
  d = f.run();
  EXPECT_EQ(d.resource, Resource::kCpu);
  const std::string why = d.explain();
  EXPECT_NE(why.find("T_wGPU 40.0 s (2 queued ahead)"), std::string::npos) << why;
  EXPECT_NE(why.find("→ node-1 CPU"), std::string::npos) << why;
}

TEST(Decider, BusyCpuUsesTheOverlapModel) {
  Fixture f;
  f.nodes = {{"node-1", 0, {}, {}}, {"node-5", 0, {}, {}}};
  // node-1 runs a CPU pod with 40 s left; Θ_P = P. The new pod (τ 40) would share: both have 40 s
  // of work → 80 s. node-5 (τ 50) is idle → 50: node-5.
  f.nodes[0].running = {{Resource::kCpu, 40, 1, 0}};
  Decision d = f.run();
  EXPECT_EQ(d.node, "node-5");
  EXPECT_DOUBLE_EQ(d.candidates[0].delta_s, 80);
  // With 4 s left there, sharing costs 4·2 + 36 = 44 < 50: node-1.
  f.nodes[0].running = {{Resource::kCpu, 4, 1, 0}};
  d = f.run();
  EXPECT_EQ(d.node, "node-1");
  EXPECT_DOUBLE_EQ(d.delta_s, 44);
}

TEST(Decider, IncompatiblePairsAreNeverChosen) {
  Fixture f;
  f.nodes = {{"node-1", 0, {}, {}}, {"node-5", 0, {}, {}}};
  Incompatibilities inc;
  inc.learn("app:cpu", "node-1");
  DeciderInput in;
  in.nodes = &f.nodes;
  in.images = {"app:cpu", "", 1};
  in.stats = &f.stats;
  in.theta = &f.theta;
  in.incompatible = &Incompatibilities::check;
  in.incompatible_ctx = &inc;
  const Decision d = decide(in);
  EXPECT_EQ(d.node, "node-5");
  EXPECT_NE(d.explain().find("incompatible"), std::string::npos);
}

TEST(Decider, ColdStartIdleNodeFirstThenEarliestIdle) {
  StatsCache empty;
  ThetaModel theta;
  std::vector<NodeStatus> nodes = {
      {"a", 0, {{Resource::kCpu, 30, 1, 0}}, {}}, {"b", 0, {}, {}}, {"c", 0, {}, {}}};
  DeciderInput in;
  in.nodes = &nodes;
  in.images = {"new:cpu", "", 1};
  in.stats = &empty;
  in.theta = &theta;
  Decision d = decide(in);
  EXPECT_TRUE(d.cold_start);
  EXPECT_EQ(d.node, "b");  // idle; the first of two idle ones
  nodes[1].running = {{Resource::kCpu, 50, 1, 0}};
  nodes[2].running = {{Resource::kCpu, 10, 1, 0}, {Resource::kCpu, 40, 1, 0}};
  d = decide(in);
  EXPECT_EQ(d.node, "a");  // idle in 30 s, before b (50) and c (40)
  EXPECT_NE(d.explain().find("cold start"), std::string::npos);
}

// ---------------------------------------------------------------- Algorithm 1

TEST(Switch, ParsesVariantsWithTheirGpuRequests) {
  ImageVariants v = parse_variants("cpu=repo/scale:cpu, gpu=repo/scale:gpu", "a");
  EXPECT_EQ(v.cpu.image, "repo/scale:cpu");
  EXPECT_EQ(v.cpu.gpus, 0);
  EXPECT_EQ(v.gpu.image, "repo/scale:gpu");
  EXPECT_EQ(v.gpu.gpus, 1);
  v = parse_variants("gpu=r/tf:2.1-gpu;gpus=2", "a");
  EXPECT_TRUE(v.cpu.image.empty());
  EXPECT_EQ(v.gpu.gpus, 2);
}

TEST(Switch, MalformedAnnotationsAreClearErrors) {
  for (const char* bad : {"", "cpu", "tpu=x:1", "cpu=a:1,cpu=b:1", "gpu=x:1;gpus=-1",
                          "gpu=x:1;gpus=a", "gpu=x:1;cores=2", "cpu=", "cpu=a b"}) {
    try {
      parse_variants(bad, "pod ns/p: annotation orrery.io/images");
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("pod ns/p: annotation orrery.io/images"),
                std::string::npos);
      EXPECT_NE(std::string(e.what()).find("expected"), std::string::npos) << e.what();
    }
  }
}

TEST(Switch, SetsImageAndGpuRequestAndKeepsTheOriginal) {
  auto spec = std::make_shared<PodSpec>();
  Container c;
  c.name = "main";
  c.image = "repo/scale:cpu";
  spec->containers.push_back(c);
  spec->annotations.set("orrery.io/images", "cpu=repo/scale:cpu,gpu=repo/scale:gpu");
  spec->finalize();
  Pod pod;
  pod.ns = "default";
  pod.name = "p";
  pod.spec = spec;
  const ImageVariants v = variants_of(pod);
  EXPECT_FALSE(switch_image(pod, v, Resource::kCpu).has_value());  // already the CPU variant
  auto u = switch_image(pod, v, Resource::kGpu);
  ASSERT_TRUE(u.has_value());
  PodSpec changed = *spec;
  u->spec(changed);
  changed.finalize();
  EXPECT_EQ(changed.containers[0].image, "repo/scale:gpu");
  EXPECT_EQ(changed.request[kGpu], 1);
  EXPECT_EQ(changed.annotations.get(kOriginalAnnotation).value(), "repo/scale:cpu;gpus=0");
}

}  // namespace
}  // namespace orrery::kubcg
