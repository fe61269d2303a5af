// The paper's qualitative results on small seeded simulations of its evaluation (§6): each run
// is the full 12 × 90 s scenario (a few milliseconds of CPU), averaged over a few seeds.
#include <gtest/gtest.h>

#include <functional>

#include "policies/kubedsm/evaluation.h"
#include "sim/scenario.h"

namespace orrery::kubedsm {
namespace {

constexpr int kSeeds = 8;

// Mean edge ratio (or one deployment's) of `spec` over seeds 1..kSeeds.
double mean_edge(RunSpec spec, const std::string& deployment = "") {
  std::vector<RunSpec> specs;
  for (int s = 1; s <= kSeeds; ++s) {
    spec.seed = static_cast<uint64_t>(s);
    specs.push_back(spec);
  }
  double sum = 0;
  for (const RunResult& r : run_all(specs, 2))
    sum += deployment.empty() ? r.edge_ratio : r.deployments.at(deployment);
  return sum / kSeeds;
}

// Issue acceptance: KubeDSM's edge ratio beats every baseline on 1.5_0.4.
TEST(KubeDsmScenario, KubeDsmBeatsEveryBaselineOn1_5_0_4) {
  RunSpec k;  // 1.5_0.4, KubeDSM with the paper's defaults
  const double kubedsm = mean_edge(k);
  for (const char* baseline : {"k8s", "random", "bef", "sef", "cf"}) {
    RunSpec b;
    b.policy = baseline;
    EXPECT_GT(kubedsm, mean_edge(b)) << baseline;
  }
}

// Issue acceptance: MidMig (M_C2E 2, M_ER 1) >= NoEdgeMig (5, 0).
TEST(KubeDsmScenario, MidMigIsAtLeastNoEdgeMig) {
  RunSpec mid, noedge;
  mid.m_c2e = 2;
  mid.m_er = 1;
  noedge.m_c2e = 5;
  noedge.m_er = 0;
  EXPECT_GE(mean_edge(mid), mean_edge(noedge));
}

// Issue acceptance: RespectD (D 0.5, others 0.1) raises D's edge ratio over AllHalf (all 0.5).
TEST(KubeDsmScenario, RespectDRaisesDsEdgeRatioOverAllHalf) {
  RunSpec all_half, respect_d;
  all_half.qos = {{"A", 0.5}, {"B", 0.5}, {"C", 0.5}, {"D", 0.5}};
  respect_d.qos = {{"A", 0.1}, {"B", 0.1}, {"C", 0.1}, {"D", 0.5}};
  EXPECT_GT(mean_edge(respect_d, "D"), mean_edge(all_half, "D"));
}

// C>A gives C (target 1) the highest edge ratio of the four deployments.
TEST(KubeDsmScenario, CGreaterThanAFavoursC) {
  RunSpec c_gt_a;
  c_gt_a.qos = {{"A", 0.5}, {"B", 0.1}, {"C", 1.0}, {"D", 0.1}};
  const double c = mean_edge(c_gt_a, "C");
  for (const char* d : {"A", "B", "D"}) EXPECT_GT(c, mean_edge(c_gt_a, d)) << d;
}

// Cloud First puts pods on the cloud while it has room: the lowest edge ratio of all.
TEST(KubeDsmScenario, CloudFirstHasTheLowestEdgeRatioAtModerateLoad) {
  auto at = [](const char* policy) {
    RunSpec r;
    r.mean = 1.1;
    r.policy = policy;
    return mean_edge(r);
  };
  const double cf = at("cf");
  for (const char* p : {"kubedsm", "k8s", "random", "bef", "sef"}) EXPECT_LT(cf, at(p)) << p;
}

TEST(KubeDsmScenario, RunsAreDeterministicAndMigrate) {
  RunSpec r;
  r.seed = 3;
  const RunResult a = run_once(r), b = run_once(r);
  EXPECT_EQ(a.edge_ratio, b.edge_ratio);
  EXPECT_EQ(a.deployments, b.deployments);
  EXPECT_EQ(a.migrations, b.migrations);
  EXPECT_EQ(a.fractions.size(), 12u);
  EXPECT_GT(a.migrations, 0);
  RunSpec k8s = r;
  k8s.policy = "k8s";
  EXPECT_EQ(run_once(k8s).migrations, 0);
}

TEST(KubeDsmScenario, GeneratedScenariosAreValidScenarioFiles) {
  for (const char* p : {"kubedsm", "k8s", "random", "bef", "sef", "cf"}) {
    RunSpec r;
    r.policy = p;
    r.qos = {{"D", 0.5}};
    const sim::Scenario sc = sim::parse_scenario(scenario_yaml(r), "gen.yaml", ".");
    EXPECT_EQ(sc.deployments.size(), 4u) << p;
    EXPECT_EQ(sc.demand_cycles.size(), 1u) << p;
  }
  EXPECT_EQ(scenario_name(1.5, 0.4), "1.5_0.4");
  EXPECT_EQ(scenario_name(1, 0.5), "1_0.5");
}

}  // namespace
}  // namespace orrery::kubedsm
