// The settings taken from the KubeDSM authors' code and data (ecmus, MineDraft): the square-root
// QoS, MineDraft's fragmentation, ecmus's pod size and the last-pod rule, on hand-worked values.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "io/yaml_util.h"
#include "policies/kubedsm/algorithms.h"
#include "policies/kubedsm/fragmentation.h"
#include "policies/kubedsm/options.h"
#include "policies/kubedsm/qos.h"
#include "random_models.h"

namespace orrery::kubedsm {
namespace {

using testing::units;

TEST(QosSqrt, ValuesAtAndAroundTheTarget) {
  EXPECT_DOUBLE_EQ(qos_sqrt(0.5, 0.5), 0.99);          // at the target
  EXPECT_DOUBLE_EQ(qos_sqrt(0.5 + 1e-10, 0.5), 0.99);  // within 1e-9 counts as at
  EXPECT_NEAR(qos_sqrt(0.5 - 1e-6, 0.5), 0.8 * std::sqrt(1 - 2e-6), 1e-12);  // jump below
  EXPECT_DOUBLE_EQ(qos_sqrt(0.25, 0.5), 0.8 * std::sqrt(0.5));
  EXPECT_DOUBLE_EQ(qos_sqrt(0.0, 0.5), 0.0);
  EXPECT_NEAR(qos_sqrt(0.75, 0.5), 0.99 + 0.25 * 0.01 / 0.5, 1e-12);  // 0.995
  EXPECT_NEAR(qos_sqrt(1.0, 0.5), 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(qos_sqrt(1.0, 1.0), 0.99);  // target 1 met: no division by 1 − Q
  EXPECT_NEAR(qos_sqrt(0.3, 0.0), 0.99 + 0.3 * 0.01, 1e-12);

  // service_qos follows the shape; concave below the target: the first pod on the edge of a
  // service at 0 gains more than the next one of a service at 1/4.
  QosParams p;
  p.shape = QosShape::kSqrt;
  EXPECT_DOUBLE_EQ(service_qos(p, 1.0, 1, 4), 0.8 * 0.5);
  EXPECT_GT(service_qos(p, 1.0, 1, 4) - service_qos(p, 1.0, 0, 4),
            service_qos(p, 1.0, 2, 4) - service_qos(p, 1.0, 1, 4));
  p.shape = QosShape::kLinear;
  EXPECT_DOUBLE_EQ(service_qos(p, 1.0, 1, 4), -0.75);  // eq. 3: α·(1/4 − 1)
}

TEST(MineDraftFragmentation, HandWorkedNodes) {
  // N2 of the authors' config, 5 cores / 5 GiB: 4 cores and 2.5 GiB used → 1 − 0.8 · 0.5.
  const Vec2 cap{5000, 5 * testing::kGi};
  EXPECT_NEAR(minedraft_node_frag({1000, 5 * testing::kGi / 2}, cap), 0.6, 1e-12);
  EXPECT_DOUBLE_EQ(minedraft_node_frag(cap, cap), 1.0);           // empty
  EXPECT_DOUBLE_EQ(minedraft_node_frag({0, 0}, cap), 0.0);        // full
  EXPECT_DOUBLE_EQ(minedraft_node_frag({-1000, -1}, cap), 0.0);   // over-committed: clamped
  EXPECT_DOUBLE_EQ(minedraft_node_frag({0, cap.mem}, cap), 1.0);  // cpu full, memory free

  // Summed over the edge through FragNorm, by node index: N2 as above, N4 (5 / 7 GiB) with
  // 2 cores and 3.5 GiB used: 1 − 0.4 · 0.5 = 0.8.
  EdgeModel m;
  m.add_node(cap, "N2");
  m.add_node({5000, 7 * testing::kGi}, "N4");
  m.used = {{4000, 5 * testing::kGi / 2}, {2000, 7 * testing::kGi / 2}};
  const FragNorm n(m.total_capacity(), FragFormula::kMineDraft, m.capacity);
  EXPECT_NEAR(node_frag(m.free(1), n, 1), 0.8, 1e-12);
  EXPECT_NEAR(edge_frag(m, n), 1.4, 1e-12);
  // The default FragNorm keeps orrery's formula, which does not depend on the node.
  EXPECT_NEAR(edge_frag(m),
              node_frag(m.free(0), FragNorm(m.total_capacity())) +
                  node_frag(m.free(1), FragNorm(m.total_capacity())),
              1e-12);
}

TEST(EcmusPodSize, ProductOfSharesOfTheLargestNode) {
  // A pod of 1 core / 950 MiB against the largest node per resource, 5 cores and 7 GiB.
  EXPECT_NEAR(pod_size_ecmus({1000, 950LL << 20}, {5000, 7 * testing::kGi}),
              0.2 * 950.0 / (7 * 1024), 1e-12);
}

// One edge node with room, service 0 with one running pod on the cloud and service 1 with two.
EdgeModel last_pod_model() {
  EdgeModel m;
  m.add_node(units(4, 4), "e");
  m.add_service("single", units(1, 1), 1.0);
  m.add_service("pair", units(1, 1), 1.0);
  m.add_pod(0, kCloud);
  m.add_pod(1, kCloud);
  m.add_pod(1, kCloud);
  return m;
}

TEST(LastPodRule, SuggestLeavesAServicesOnlyRunningPod) {
  const EdgeModel m = last_pod_model();
  Config c;
  c.suggest_budget = SuggestBudget::kFree;
  SchedulerCore with_rule([&] {
    Config x = c;
    x.last_pod = true;
    return x;
  }());
  SchedulerCore without(c);
  EXPECT_EQ(without.suggest_candidates(m).size(), 3u);
  const std::vector<uint32_t> chosen = with_rule.suggest_candidates(m);
  ASSERT_EQ(chosen.size(), 2u);
  for (uint32_t p : chosen) EXPECT_EQ(m.pods[p].service, 1u);
}

TEST(LastPodRule, FreeingKeepsOneRunningPodPerService) {
  // The edge (2 / 2) is full with one pod of each service; a need of 2 / 2 cannot be freed
  // without moving a service's only running pod, so the rule frees nothing, and without it both.
  EdgeModel m;
  m.add_node(units(2, 2), "e");
  m.add_service("a", units(1, 1), 1.0);
  m.add_service("b", units(1, 1), 1.0);
  m.add_pod(0, 0);
  m.add_pod(1, 0);
  Config c;
  SchedulerCore without(c);
  c.last_pod = true;
  SchedulerCore with_rule(c);
  EXPECT_EQ(without.free_edge_as_needed(m, units(2, 2), count_pods(m)).size(), 2u);
  EXPECT_TRUE(with_rule.free_edge_as_needed(m, units(2, 2), count_pods(m)).empty());
  // A second running pod of "a" on the cloud lets one pod of "a" leave the edge.
  m.add_pod(0, kCloud);
  const std::vector<uint32_t> freed = with_rule.free_edge_as_needed(m, units(2, 2), count_pods(m));
  ASSERT_EQ(freed.size(), 1u);
  EXPECT_EQ(m.pods[freed[0]].service, 0u);
}

// No pod on the cloud (no candidate for suggest) and two half-used edge nodes: putting both pods
// on one node lowers fragmentation, so Alg. 3 as printed reorders the edge; ecmus's suggestion
// moves no pod and drops the reorder (alg/cluster.go MakeDecisionForNewPods).
TEST(ReorderWithoutCandidates, EcmusReordersOnlyForACandidate) {
  EdgeModel m;
  m.add_node(units(2, 2), "e0");
  m.add_node(units(2, 2), "e1");
  m.add_service("a", units(1, 1), 1.0);
  m.add_pod(0, 0);
  m.add_pod(0, 1);
  Config c;
  c.suggest_budget = SuggestBudget::kFree;
  SchedulerCore printed(c);
  ASSERT_TRUE(printed.suggest_candidates(m).empty());
  const Placement p = printed.suggest(m);
  ASSERT_EQ(p.migrations.size(), 1u);
  EXPECT_NE(p.migrations[0].from, p.migrations[0].to);
  EXPECT_NE(p.migrations[0].to, kCloud);
  c.reorder_without_candidates = false;
  EXPECT_TRUE(SchedulerCore(c).suggest(m).empty());
  // With a cloud pod that fits, ecmus reorders as part of the suggestion again.
  m.add_pod(0, kCloud);
  EXPECT_FALSE(SchedulerCore(c).suggest(m).empty());
}

yaml::Ctx args(const std::string& text) {
  return {"kubedsm.yaml", yaml::parse_document(text, "kubedsm.yaml"), "args", 1};
}

TEST(EcmusOptions, ParseAndDefaults) {
  const Options d = parse_options(args("mC2E: 5\n"));
  EXPECT_EQ(d.core.qos.shape, QosShape::kLinear);
  EXPECT_EQ(d.core.frag, FragFormula::kMineDraft);
  EXPECT_EQ(d.core.pod_size, PodSize::kEq11);
  EXPECT_FALSE(d.core.last_pod);
  EXPECT_TRUE(d.core.reorder_without_candidates);
  EXPECT_FALSE(d.abandon_migrations);
  EXPECT_TRUE(parse_options(args("abandonMigrations: true\n")).abandon_migrations);
  const Options o =
      parse_options(args("qosFunction: sqrt\nfragmentation: orrery\npodSize: ecmus\nlastPod: true\n"
                         "reorderWithoutCandidates: false\n"));
  EXPECT_EQ(o.core.qos.shape, QosShape::kSqrt);
  EXPECT_EQ(o.core.frag, FragFormula::kOrrery);
  EXPECT_EQ(o.core.pod_size, PodSize::kEcmus);
  EXPECT_TRUE(o.core.last_pod);
  EXPECT_FALSE(o.core.reorder_without_candidates);
  try {
    parse_options(args("qosFunction: cubic\n"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "kubedsm.yaml:1: args.qosFunction: expected \"linear\" or \"sqrt\", got "
                  "\"cubic\""),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace orrery::kubedsm
