// `orrery explain` and the loader's warnings about what orrery does not model, run as a user
// would (the real binary): exit codes, messages naming the file, and the JSON contract. Expected
// scores are worked out by hand from upstream's arithmetic (kube-scheduler v1.34).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "run_orrery.h"

namespace {

using Result = orrery::testing::RunResult;
const auto run = orrery::testing::run_orrery;

const std::string kData = std::string(ORRERY_SOURCE_DIR) + "/tests/data/explain/";

const nlohmann::json& node_of(const nlohmann::json& doc, const std::string& name) {
  for (const auto& n : doc["nodes"])
    if (n["node"] == name) return n;
  throw std::runtime_error("no node " + name);
}

int64_t score_of(const nlohmann::json& node, const std::string& plugin, const char* field) {
  for (const auto& s : node["scores"])
    if (s["plugin"] == plugin) return s[field].get<int64_t>();
  throw std::runtime_error("no plugin " + plugin);
}

TEST(ExplainCli, ScoresEveryPluginAndNamesTheWinner) {
  Result r = run("explain default/web --cluster " + kData + "cluster.yaml -o json");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["pod"], "default/web");
  EXPECT_EQ(j["profile"], "default-scheduler");
  // n3's taint is not tolerated.
  const auto& n3 = node_of(j, "n3");
  EXPECT_FALSE(n3["feasible"].get<bool>());
  EXPECT_EQ(n3["reasons"],
            nlohmann::json::array({"node(s) had untolerated taint {dedicated: gpu}"}));
  // n1: cpu 4, memory 8Gi, with low (1 cpu, 1Gi) running; web adds 1 cpu, 1Gi.
  //   NodeResourcesFit (LeastAllocated): cpu (4000-2000)*100/4000 = 50, memory (8-2)*100/8 = 75,
  //   (50 + 75) / 2 = 62. BalancedAllocation: fractions 0.5 and 0.25, std = 0.125,
  //   int64((1 - 0.125) * 100) = 87. TaintToleration: no PreferNoSchedule taints: 100 (weight 3).
  // n2: cpu 2, memory 2Gi, empty: Fit cpu 50, memory 50 → 50; BalancedAllocation 0.5/0.5 → 100.
  const auto& n1 = node_of(j, "n1");
  const auto& n2 = node_of(j, "n2");
  EXPECT_EQ(score_of(n1, "NodeResourcesFit", "raw"), 62);
  EXPECT_EQ(score_of(n1, "NodeResourcesFit", "normalized"), 62);
  EXPECT_EQ(score_of(n1, "NodeResourcesBalancedAllocation", "normalized"), 87);
  EXPECT_EQ(score_of(n1, "TaintToleration", "normalized"), 100);
  EXPECT_EQ(score_of(n1, "TaintToleration", "weight"), 3);
  EXPECT_EQ(score_of(n1, "TaintToleration", "weighted"), 300);
  EXPECT_EQ(score_of(n2, "NodeResourcesFit", "normalized"), 50);
  EXPECT_EQ(score_of(n2, "NodeResourcesBalancedAllocation", "normalized"), 100);
  EXPECT_EQ(n1["total"], 300 + 62 + 87);
  EXPECT_EQ(n2["total"], 300 + 50 + 100);
  // No preferred node affinity, no spread constraints or owner, no pod affinity: PreScore skips.
  for (const char* p : {"NodeAffinity", "PodTopologySpread", "InterPodAffinity"}) {
    for (const auto& s : n1["scores"])
      if (s["plugin"] == p) {
        EXPECT_TRUE(s["skipped"].get<bool>()) << p;
      }
  }
  // n2 wins by one point; ranks follow the totals.
  EXPECT_EQ(j["top"], nlohmann::json::array({"n2", "n1"}));
  EXPECT_EQ(n2["rank"], 1);
  EXPECT_EQ(j["decision"]["scheduled"], true);
  EXPECT_EQ(j["decision"]["node"], "n2");
  EXPECT_FALSE(j["decision"]["preemption"]["helps"].get<bool>());
}

TEST(ExplainCli, PreemptionNamesTheNodeAndTheVictims) {
  // big (3.5 cpu, priority 1000) fits nowhere: n1 has 3 cpu free, n2 has 2, n3 is tainted.
  // Evicting low (priority 0) on n1 frees 4 cpu.
  Result r = run("explain big --cluster " + kData + "cluster.yaml -o json");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_TRUE(j["top"].empty());
  EXPECT_EQ(j["decision"]["scheduled"], false);
  EXPECT_EQ(j["decision"]["message"].get<std::string>().rfind(
                // Reasons sorted as strings, as upstream's FitError.Error().
                "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 "
                "Insufficient cpu.",
                0),
            0u)
      << j["decision"]["message"];
  EXPECT_TRUE(j["decision"]["preemption"]["helps"].get<bool>());
  EXPECT_EQ(j["decision"]["preemption"]["node"], "n1");
  EXPECT_EQ(j["decision"]["preemption"]["victims"], nlohmann::json::array({"default/low"}));
}

TEST(ExplainCli, HumanOutputAndGatedPods) {
  Result r = run("explain default/web --cluster " + kData + "cluster.yaml --top 1");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("2 of 3 node(s) pass the filters"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("NodeResourcesFit"), std::string::npos);
  EXPECT_NE(r.output.find("50 -> 50"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("62 -> 62"), std::string::npos);  // n1 is not in the top 1
  EXPECT_NE(r.output.find("kube-scheduler binds default/web to n2."), std::string::npos);

  r = run("explain gated --cluster " + kData + "cluster.yaml");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("scheduling gates (example.com/quota)"), std::string::npos) << r.output;
}

TEST(ExplainCli, BadPodNamesAreClearErrors) {
  Result r = run("explain default/wbe --cluster " + kData + "cluster.yaml");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("no pod default/wbe among the snapshot's 3 pending pod(s) (did you "
                          "mean \"default/web\"?)"),
            std::string::npos)
      << r.output;
  r = run("explain low --cluster " + kData + "cluster.yaml");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("pod default/low is not pending: it is bound to n1"), std::string::npos)
      << r.output;
  r = run("explain web --cluster " + kData + "cluster.yaml -o yaml");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("-o: expected table or json"), std::string::npos) << r.output;
}

TEST(UnmodelledInput, WarnedOncePerKindWithCountsAndAnExample) {
  Result r = run("schedule --cluster " + kData + "unmodelled.yaml");
  ASSERT_EQ(r.code, 0) << r.output;
  auto has = [&](const std::string& s) { return r.output.find(s) != std::string::npos; };
  EXPECT_TRUE(has("2 object(s) use spec.resourceClaims (e.g. ml/train-0): DynamicResources"))
      << r.output;
  EXPECT_TRUE(has("1 object(s) use containers[].resources.claims (e.g. ml/train-0)"));
  EXPECT_TRUE(has("1 object(s) use status.nominatedNodeName (e.g. default/preemptor)"));
  EXPECT_TRUE(has("1 object(s) use kind Service"));
  // Volumes, PersistentVolumeClaims and PodDisruptionBudgets are modelled (the volume plugins,
  // preemption); a budget without status is taken as allowing no disruption, with a warning.
  EXPECT_FALSE(has("spec.volumes"));
  EXPECT_FALSE(has("kind PersistentVolumeClaim"));
  EXPECT_FALSE(has("kind PodDisruptionBudget"));
  EXPECT_TRUE(has("1 PodDisruptionBudget(s) have no status.disruptionsAllowed"));
  EXPECT_FALSE(has("Deployment"));  // does not reach kube-scheduler's decisions
  // Each warning names the file and line of the first use.
  EXPECT_TRUE(has("unmodelled.yaml:15: items[1].spec.resourceClaims: 2 object(s)")) << r.output;
  // Partial dump: one line each for finished and running pods on missing nodes; the run goes on.
  EXPECT_TRUE(
      has("1 finished pod(s) are bound to nodes the input does not hold (e.g. "
          "default/old-job on gone-node): ignored"));
  EXPECT_TRUE(
      has("1 running pod(s) are bound to nodes the input does not hold (e.g. "
          "default/elsewhere on gone-node): skipped"));
  EXPECT_TRUE(has("scheduled"));
}

TEST(UnmodelledInput, StrictTurnsTheWarningsIntoAnError) {
  Result r = run("schedule --strict --cluster " + kData + "unmodelled.yaml");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("unmodelled.yaml: --strict: 7 warning(s) about input orrery does not "
                          "model:"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("POD"), std::string::npos);  // no table: nothing was scheduled
  // A dump with nothing unmodelled passes --strict.
  r = run("schedule --strict --cluster " + kData + "cluster.yaml");
  EXPECT_EQ(r.code, 0) << r.output;
  r = run("explain web --strict --cluster " + kData + "unmodelled.yaml");
  EXPECT_EQ(r.code, 1);
}

}  // namespace
