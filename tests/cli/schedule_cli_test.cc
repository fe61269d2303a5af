// `orrery schedule` / `orrery score` run as a user would: exit codes (0 ok, 1 usage/input error),
// error messages naming the file and field, and the JSON contracts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "io/k8s_objects.h"

#include "run_orrery.h"
#include "scratch_dir.h"

namespace {

using Result = orrery::testing::RunResult;
const auto run = orrery::testing::run_orrery;

const std::string kData = std::string(ORRERY_SOURCE_DIR) + "/tests/data/schedule/";

// A file in this test program's scratch directory (removed when the program exits).
std::string tmp_file(const std::string& name) {
  static const orrery::testing::ScratchDir dir("schedule-cli");
  return dir.path(name);
}

TEST(ScheduleCli, PlacesPreemptsAndWritesJson) {
  const std::string out = tmp_file("placements.json");
  Result r = run("schedule --cluster " + kData + "cluster.yaml --out " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("default/huge    -     0/2 nodes are available"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("have no profile"), std::string::npos);
  auto j = nlohmann::json::parse(orrery::read_text_file(out));
  ASSERT_EQ(j["placements"].size(), 3u);
  EXPECT_EQ(j["placements"][0]["pod"], "default/urgent");
  EXPECT_EQ(j["placements"][0]["node"], "n1");
  EXPECT_EQ(j["placements"][0]["reason"], "");
  EXPECT_TRUE(j["placements"][2]["node"].is_null());
  EXPECT_EQ(j["placements"][2]["reason"],
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint "
            "{dedicated: gpu}. preemption: 0/2 nodes are available: 2 Preemption is not helpful "
            "for scheduling.");
  ASSERT_EQ(j["evictions"].size(), 1u);
  EXPECT_EQ(j["evictions"][0]["pod"], "default/low");
  EXPECT_EQ(j["evictions"][0]["preemptor"], "default/urgent");
  // Same seed, same output.
  const std::string again = tmp_file("again.json");
  ASSERT_EQ(run("schedule --cluster " + kData + "cluster.yaml --out " + again).code, 0);
  EXPECT_EQ(orrery::read_text_file(out), orrery::read_text_file(again));
  std::filesystem::remove_all(std::filesystem::path(out).parent_path());
}

// Any plugin of the catalog may be named in a configuration: KubCG (with its pluginConfig history)
// schedules the snapshot's pods; a plugin that needs its policy is refused, naming the policy.
TEST(ScheduleCli, AConfigMayNameAnyCatalogPlugin) {
  const std::string db = tmp_file("kubcg.db"), cfg = tmp_file("kubcg.yaml");
  std::ofstream(cfg) << "apiVersion: kubescheduler.config.k8s.io/v1\n"
                        "kind: KubeSchedulerConfiguration\n"
                        "profiles:\n"
                        "- schedulerName: default-scheduler\n"
                        "  plugins:\n"
                        "    filter: {enabled: [{name: KubCG}]}\n"
                        "    mutate: {enabled: [{name: KubCG}]}\n"
                        "  pluginConfig:\n"
                        "  - {name: KubCG, args: {db: \"sqlite:"
                     << db << "\"}}\n";
  const std::string out = tmp_file("kubcg-placements.json");
  Result r = run("schedule --cluster " + kData + "cluster.yaml --config " + cfg + " --out " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(orrery::read_text_file(out))["placements"].size(), 3u);
  EXPECT_TRUE(std::filesystem::exists(db)) << "KubCG opened the history its pluginConfig names";

  const std::string carico = tmp_file("carico.yaml");
  std::ofstream(carico) << "profiles:\n- plugins: {filter: {enabled: [{name: CaricoCapacity}]}}\n";
  r = run("schedule --cluster " + kData + "cluster.yaml --config " + carico);
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("plugin CaricoCapacity runs only in the carico policy"),
            std::string::npos)
      << r.output;
}

TEST(ScheduleCli, PodsBeingDeletedAndHostPorts) {
  // skipPodSchedule: a pending pod with a deletionTimestamp is reported, not scheduled; NodePorts
  // keeps the second port-80 pod off the node.
  const std::string out = tmp_file("exact.json");
  Result r = run("schedule --cluster " + kData + "exact.yaml --out " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  auto j = nlohmann::json::parse(orrery::read_text_file(out));
  ASSERT_EQ(j["placements"].size(), 3u);
  EXPECT_EQ(j["placements"][0]["pod"], "default/leaving");
  EXPECT_TRUE(j["placements"][0]["node"].is_null());
  EXPECT_EQ(j["placements"][0]["reason"], "skip schedule deleting pod: default/leaving");
  EXPECT_EQ(j["placements"][1]["node"], "n1");
  EXPECT_EQ(j["placements"][2]["reason"],
            "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod "
            "ports. preemption: 0/1 nodes are available: 1 No preemption victims found for "
            "incoming pod.");
}

TEST(ScheduleCli, GoldenSnapshot) {
  // The 50-node / 500-pod golden snapshot: byte-for-byte the frozen output (see
  // tests/plugins/golden_test.cc for the independent verification of those placements).
  const std::string golden = std::string(ORRERY_SOURCE_DIR) + "/tests/data/golden/";
  const std::string out = tmp_file("golden.json");
  Result r = run("schedule --cluster " + golden + "golden-cluster.json --config " + golden +
                 "golden-config.yaml --out " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(orrery::read_text_file(out), orrery::read_text_file(golden + "expected.json"));
  std::filesystem::remove(out);
}

TEST(ScoreCli, JsonPerNode) {
  Result r = run("score --cluster " + kData + "cluster.yaml --pod " + kData + "pod.yaml");
  ASSERT_EQ(r.code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["pod"], "default/probe");
  ASSERT_EQ(j["nodes"].size(), 2u);
  const auto& n1 = j["nodes"][0];
  EXPECT_EQ(n1["node"], "n1");
  EXPECT_TRUE(n1["feasible"]);
  // cpu (2000 - 1500 - 250)·100/2000 = 12, memory (4Gi - 1Gi - 256Mi)·100/4Gi = 68 → 40.
  EXPECT_EQ(n1["scores"]["NodeResourcesFit"], 40);
  EXPECT_EQ(n1["scores"]["TaintToleration"], 100);
  EXPECT_EQ(n1["total"], 3 * 100 + 2 * 0 + 40 + 2 * 0 + 71);
  const auto& n2 = j["nodes"][1];
  EXPECT_FALSE(n2["feasible"]);
  EXPECT_EQ(n2["reasons"][0], "node(s) had untolerated taint {dedicated: gpu}");
}

TEST(Cli, HelpOnEveryCommand) {
  for (const char* cmd : {"schedule --help", "score --help", "--help"}) {
    Result r = run(cmd);
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_NE(r.output.find("Usage"), std::string::npos) << cmd;
  }
  EXPECT_NE(run("schedule --help").output.find("--cluster"), std::string::npos);
}

TEST(Cli, BadInputsExitOneWithLocatedErrors) {
  struct Case {
    std::string args, expect;
  };
  const std::vector<Case> cases = {
      {"schedule", "--cluster is required"},
      {"schedule --cluster " + kData + "missing.yaml", "missing.yaml: cannot open file"},
      {"schedule --cluster " + kData + "malformed.yaml", "malformed.yaml:"},
      {"schedule --cluster " + kData + "bad_quantity.yaml",
       "bad_quantity.yaml:14: items[1].spec.containers[0].resources.requests.cpu"},
      {"schedule --cluster " + kData + "duplicate_nodes.yaml",
       "duplicate_nodes.yaml: duplicate node name \"n1\""},
      {"schedule --cluster " + kData + "cluster.yaml --config " + kData + "unknown_plugin.yaml",
       "unknown_plugin.yaml:8: profiles[0].plugins.score.enabled[0].name: unknown plugin "
       "\"NodeResourcesMostAllocated\""},
      {"schedule --cluster " + kData + "cluster.yaml --config " + kData + "malformed.yaml",
       "malformed.yaml:"},
      {"score --cluster " + kData + "cluster.yaml --pod " + kData + "two_pods.yaml",
       "two_pods.yaml: expected exactly one Pod"},
      {"score --cluster " + kData + "cluster.yaml --pod " + kData + "bad_quantity.yaml",
       "bad_quantity.yaml:14"},
  };
  for (const Case& c : cases) {
    Result r = run(c.args);
    EXPECT_EQ(r.code, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expect), std::string::npos) << c.args << "\n" << r.output;
  }
}

TEST(ScheduleCli, PodAntiAffinityAndTheNamespaceWarning) {
  // Two web replicas with hostname anti-affinity on two nodes, one more than fits; the third's
  // term also selects namespaces by label while the input has no Namespace objects.
  const orrery::testing::ScratchDir dir("affinity-cli");
  const std::string path = dir.path("affinity.yaml");
  std::string yaml;
  for (const char* n : {"n1", "n2"}) {
    yaml += std::string("---\nkind: Node\nmetadata: {name: ") + n +
            ", labels: {kubernetes.io/hostname: " + n +
            "}}\nstatus: {allocatable: {cpu: 4, memory: 8Gi, pods: 110}}\n";
  }
  for (const char* p : {"web-1", "web-2", "web-3"}) {
    yaml += std::string("---\nkind: Pod\nmetadata: {name: ") + p +
            ", labels: {app: web}}\nspec:\n  containers: [{name: c}]\n  affinity:\n"
            "    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
            "      - {labelSelector: {matchLabels: {app: web}}, topologyKey: "
            "kubernetes.io/hostname" +
            (std::string(p) == "web-3" ? ", namespaceSelector: {matchLabels: {team: a}}" : "") +
            "}\n";
  }
  std::ofstream(path) << yaml;
  Result r = run("schedule --cluster " + path);
  ASSERT_EQ(r.code, 0) << r.output;
  // web-3's own term selects no namespace (no Namespace objects carry team=a); the others' terms
  // keep it off both nodes.
  EXPECT_NE(r.output.find("affinity.yaml:35: document[4].spec.affinity.podAntiAffinity."
                          "requiredDuringSchedulingIgnoredDuringExecution[0].namespaceSelector: "
                          "namespaceSelector names namespace labels, but the input has no "
                          "Namespace objects"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("default/web-3  -     0/2 nodes are available: 2 node(s) didn't "
                          "satisfy existing pods anti-affinity rules."),
            std::string::npos)
      << r.output;
  // A weight out of range is an input error naming the file, line and field.
  std::ofstream(path) << "kind: Pod\nmetadata: {name: p}\nspec:\n  containers: []\n"
                         "  affinity:\n    podAffinity:\n"
                         "      preferredDuringSchedulingIgnoredDuringExecution:\n"
                         "      - {weight: 0, podAffinityTerm: {topologyKey: zone}}\n";
  r = run("schedule --cluster " + path);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("affinity.yaml:8: spec.affinity.podAffinity."
                          "preferredDuringSchedulingIgnoredDuringExecution[0].weight: weight must "
                          "be in 1..100"),
            std::string::npos)
      << r.output;
}

}  // namespace
