// `orrery solve` run as a user would: the plan.json contract, exit codes, bad input, determinism,
// and instances of the evaluation re-run from their snapshot files.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "io/k8s_objects.h"
#include "experiments/optpack/evaluation.h"
#include "run_orrery.h"
#include "scratch_dir.h"

namespace {

using Result = orrery::testing::RunResult;
const auto run = orrery::testing::run_orrery;
const std::string kData = std::string(ORRERY_SOURCE_DIR) + "/tests/data/optpack/";

std::string tmp_file(const std::string& name) {
  static const orrery::testing::ScratchDir dir("optpack-cli");
  return dir.path(name);
}

std::string write(const std::string& name, const std::string& text) {
  const std::string path = tmp_file(name);
  std::ofstream(path) << text;
  return path;
}

const char* kNode =
    "- {apiVersion: v1, kind: Node, metadata: {name: n1}, "
    "status: {allocatable: {cpu: \"2\", memory: 4Gi, pods: \"110\"}}}\n";

std::string pod(const std::string& name, const std::string& mem, const std::string& extra = "") {
  return "- {apiVersion: v1, kind: Pod, metadata: {name: " + name + "}, spec: {" + extra +
         "containers: [{name: c, resources: {requests: {memory: " + mem + "}}}]}}\n";
}

TEST(OptpackCli, FigureOneWritesTheContractedPlan) {
  const std::string out = tmp_file("plan.json");
  Result r = run("solve --cluster " + kData + "figure1.yaml --deterministic --out " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("2 -> 3  OPTIMAL"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("improved: 1 move(s), 0 eviction(s)"), std::string::npos) << r.output;
  const auto j = nlohmann::ordered_json::parse(orrery::read_text_file(out));
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys,
            (std::vector<std::string>{"status", "solve_time_s", "tiers", "placements", "steps"}));
  EXPECT_EQ(j["status"], "improved");
  ASSERT_EQ(j["tiers"].size(), 1u);
  const auto& t = j["tiers"][0];
  std::vector<std::string> tkeys;
  for (auto it = t.begin(); it != t.end(); ++it) tkeys.push_back(it.key());
  EXPECT_EQ(tkeys,
            (std::vector<std::string>{"priority", "pods", "placed_before", "placed_after",
                                      "placement_status", "disruption", "disruption_status"}));
  EXPECT_EQ(t["placed_before"], 2);
  EXPECT_EQ(t["placed_after"], 3);
  EXPECT_EQ(t["disruption"], 1);
  EXPECT_EQ(t["placement_status"], "OPTIMAL");
  ASSERT_EQ(j["placements"].size(), 3u);
  EXPECT_TRUE(j["placements"][2]["from"].is_null());  // pod-3 was pending
  EXPECT_FALSE(j["placements"][2]["to"].is_null());
  ASSERT_EQ(j["steps"].size(), 4u);
  EXPECT_EQ(j["steps"][0]["action"], "evict");  // evictions first
  EXPECT_EQ(j["steps"][3]["action"], "bind");
}

TEST(OptpackCli, DeterministicRunsGiveTheSamePlan) {
  // A generated 8-node instance after the baseline.
  const auto b =
      orrery::optpack::run_baseline(orrery::optpack::generate_instance_yaml({8, 8, 2, 105}, 3));
  ASSERT_GT(b.pending, 0);
  const std::string snap = write("inst.yaml", b.snapshot_yaml);
  auto plan = [&](const std::string& name) {
    Result r =
        run("solve --cluster " + snap + " --deterministic --timeout 0.2s --out " + tmp_file(name));
    EXPECT_EQ(r.code, 0) << r.output;
    auto j = nlohmann::json::parse(orrery::read_text_file(tmp_file(name)));
    j.erase("solve_time_s");
    return j;
  };
  const auto a = plan("a.json");
  EXPECT_EQ(a, plan("b.json"));
  EXPECT_NE(a["status"], "failed");
}

TEST(OptpackCli, BadInputIsAClearErrorOrSkippedWithAReason) {
  const std::string head = "apiVersion: v1\nkind: List\nitems:\n";
  Result r =
      run("solve --cluster " + kData + "figure1.yaml --timeout 0s --out " + tmp_file("z.json"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("--timeout: must be positive"), std::string::npos) << r.output;
  r = run("solve --cluster " + write("neg.yaml", head + kNode + pod("p", "\"-1Gi\"")) + " --out " +
          tmp_file("z.json"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("neg.yaml:5:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("negative quantity"), std::string::npos) << r.output;
  r = run("solve --cluster " + write("absurd.yaml", head + kNode + pod("p", "\"1e30\"")) +
          " --out " + tmp_file("z.json"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("quantity too large"), std::string::npos) << r.output;
  r = run("solve --cluster " + write("dup.yaml", head + kNode + pod("p", "1Gi") + pod("p", "1Gi")) +
          " --out " + tmp_file("z.json"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("dup.yaml"), std::string::npos) << r.output;
  r = run("solve --cluster " +
          write("pc.yaml", head + kNode + pod("p", "1Gi", "priorityClassName: nope, ")) +
          " --out " + tmp_file("z.json"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("unknown PriorityClass \"nope\""), std::string::npos) << r.output;
  // A pod larger than any node and a zero-capacity node: skipped / warned, with a proof.
  const std::string zero =
      head + kNode +
      "- {apiVersion: v1, kind: Node, metadata: {name: empty}, status: {allocatable: {cpu: \"0\", "
      "memory: \"0\"}}}\n" +
      pod("huge", "64Gi") + pod("ok", "1Gi", "nodeName: n1, ");
  const std::string out = tmp_file("zero.json");
  r = run("solve --cluster " + write("zero.yaml", zero) + " --out " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("node empty has no cpu or memory capacity"), std::string::npos);
  EXPECT_NE(r.output.find("default/huge not considered: larger than every node"),
            std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(orrery::read_text_file(out))["status"], "baseline-optimal");
  // Absurd solve sizes fail fast.
  r = run("solve --cluster " + kData + "figure1.yaml --max-nodes 1 --out " + tmp_file("z.json"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("more than the solve limit"), std::string::npos) << r.output;
}

}  // namespace
