// `orrery repro kubedsm` and KubeDSM scenarios through `orrery sim`, run as a user would.
#include <gtest/gtest.h>
#include <unistd.h>
#include <algorithm>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "run_orrery.h"
#include "scratch_dir.h"

namespace {

using Result = orrery::testing::RunResult;
const auto run = orrery::testing::run_orrery;

// Each test's scratch directory, removed when the test ends (also when it fails).
struct TempDir {
  orrery::testing::ScratchDir dir{"kubedsm-cli"};
  std::string operator()(const std::string& name) const { return dir.path(name); }
};

// The cells of a CSV line (runs.csv quotes nothing).
std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream ss(line);
  for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(KubeDsmCli, QuickReproWritesTheReportDeterministically) {
  const TempDir tmp_dir;
  const std::string a = tmp_dir("a"), b = tmp_dir("b");
  const Result r = run("repro kubedsm --quick --seeds 1 --out " + a);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("kubedsm.html"), std::string::npos) << r.output;
  for (const char* f :
       {"kubedsm.html", "runs.csv", "points.csv", "summary.json", "scenarios/1.5_0.4-KubeDSM.yaml"})
    EXPECT_TRUE(std::filesystem::exists(a + "/" + f)) << f;
  const auto sum = nlohmann::json::parse(slurp(a + "/summary.json"));
  EXPECT_GT(sum["runs"].get<int>(), 50);
  EXPECT_TRUE(sum["claims"].contains("fig4_gain_relative"));
  EXPECT_TRUE(sum["figures"]["fig4"]["1.5_0.4"].contains("KubeDSM"));
  // Fig. 10's pairs beside the authors' runs (1.3_0.4): NoCloudOffload 0/3 never migrates, as in
  // ecmus, so its runs are NoMigration's (ties); the migrating variants lead by several points.
  const auto& pairs = sum["paired"]["fig10"]["1.3_0.4"];
  ASSERT_EQ(pairs.size(), 10u) << pairs.dump();  // every pair of the five variants
  const auto& tie = pairs["NoCloudOffload − NoMigration"];
  EXPECT_EQ(tie["ties"].get<int>(), 1) << tie.dump();
  EXPECT_GT(tie["authors_mean_diff"].get<double>(), 0.0);
  EXPECT_EQ(tie["verdict"], "neither resolves it");
  EXPECT_DOUBLE_EQ(tie["holm_p"].get<double>(), 1.0);
  EXPECT_GT(tie["authors_holm_p"].get<double>(), 0.05);
  const std::string html = slurp(a + "/kubedsm.html");
  EXPECT_NE(html.find("Fig. 10 pairs, the better in the authors&#39; means first"), std::string::npos);
  for (const char* s : {"Fig. 4", "Fig. 5", "Figs 8–9", "Fig. 10", "Fig. 11", "<svg"})
    EXPECT_NE(html.find(s), std::string::npos) << s;
  // The same command gives the same bytes.
  ASSERT_EQ(run("repro kubedsm --quick --seeds 1 --threads 1 --out " + b).code, 0);
  EXPECT_EQ(slurp(a + "/runs.csv"), slurp(b + "/runs.csv"));
  EXPECT_EQ(slurp(a + "/summary.json"), slurp(b + "/summary.json"));
  EXPECT_EQ(slurp(a + "/kubedsm.html"), slurp(b + "/kubedsm.html"));
}

// runs.csv has one row per simulation, and its parameter columns (all but the results) tell every
// row apart: a row that matched another there would be a run whose distinguishing setting has no
// column.
TEST(KubeDsmCli, RunsCsvParametersTellEveryRunApart) {
  const TempDir tmp_dir;
  const std::string out = tmp_dir("runs");
  const Result r = run("repro kubedsm --quick --seeds 1 --out " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  const std::set<std::string> results = {
      "edge_ratio",        "edge_ratio_sd",         "A", "B", "C", "D", "migrations",
      "edge_ratio_pooled", "edge_ratio_pooled_busy"};
  std::stringstream csv(slurp(out + "/runs.csv"));
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  const std::vector<std::string> header = split(line);
  EXPECT_EQ(header.back(), "reorder_without_candidates");
  std::set<std::string> keys;
  size_t rows = 0;
  while (std::getline(csv, line)) {
    const std::vector<std::string> cells = split(line);
    ASSERT_EQ(cells.size(), header.size()) << line;
    std::string key;
    for (size_t c = 0; c < cells.size(); ++c)
      if (!results.count(header[c])) key += header[c] + "=" + cells[c] + ";";
    EXPECT_TRUE(keys.insert(key).second) << "two runs with the same parameters: " << key;
    ++rows;
  }
  const auto sum = nlohmann::json::parse(slurp(out + "/summary.json"));
  EXPECT_EQ(rows, sum["runs"].get<size_t>());
}

// --hpa-metric podRate: every run's HPA reads the measured rate (runs.csv "podRate:0.075", with
// --hpa-window 60 "podRate:0.075:60s"), except the ablation row that reverts it ("demand").
TEST(KubeDsmCli, HpaMetricOptionReachesEveryRun) {
  const TempDir tmp_dir;
  for (const bool window : {false, true}) {
    SCOPED_TRACE(window);
    const std::string out = tmp_dir(window ? "window" : "rate");
    const Result r = run("repro kubedsm --quick --seeds 1 --hpa-metric podRate " +
                         std::string(window ? "--hpa-window 60 " : "") + "--out " + out);
    ASSERT_EQ(r.code, 0) << r.output;
    std::stringstream csv(slurp(out + "/runs.csv"));
    std::string line;
    ASSERT_TRUE(std::getline(csv, line));
    const std::vector<std::string> header = split(line);
    const size_t col =
        static_cast<size_t>(std::find(header.begin(), header.end(), "hpa_metric") - header.begin());
    ASSERT_LT(col, header.size());
    size_t rate = 0, demand = 0;
    while (std::getline(csv, line)) {
      const std::string cell = split(line).at(col);
      rate += cell == (window ? "podRate:0.075:60s" : "podRate:0.075");
      demand += cell == "demand";
    }
    EXPECT_GT(rate, 50u);
    EXPECT_EQ(demand, 1u);  // quick: one ablation scenario, one seed
    EXPECT_NE(slurp(out + "/kubedsm.html").find("hpaMetric: demand"), std::string::npos);
    const std::string scenario = slurp(out + "/scenarios/1.5_0.4-KubeDSM.yaml");
    EXPECT_NE(scenario.find("metric: podRate"), std::string::npos);
    EXPECT_EQ(scenario.find("metricWindow: 60s") != std::string::npos, window) << scenario;
  }
}

TEST(KubeDsmCli, BadArgumentsAreUsageErrors) {
  const TempDir tmp_dir;
  EXPECT_EQ(run("repro kubedsm --seeds 0 --out " + tmp_dir("c")).code, 1);
  EXPECT_EQ(run("repro kubedsm").code, 1);  // --out is required
  EXPECT_EQ(run("repro kubedsm --hpa-metric cpu --out " + tmp_dir("h")).code, 1);
  EXPECT_EQ(run("repro kubedsm --hpa-noise -1 --out " + tmp_dir("h")).code, 1);
  EXPECT_EQ(run("repro kubedsm --hpa-window -5 --out " + tmp_dir("h")).code, 1);
  const Result r = run("repro kubedsm --quick --seeds 1 --out /proc/orrery-cannot-write");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("/proc/orrery-cannot-write"), std::string::npos) << r.output;
}

TEST(KubeDsmCli, SimRunsTheBundledScenarioAndRejectsBadQosTargets) {
  const TempDir tmp_dir;
  const std::string src = std::string(ORRERY_SOURCE_DIR) + "/scenarios/kubedsm/";
  const Result ok = run("sim " + src + "1.5_0.4-kubedsm.yaml --out " + tmp_dir("sim"));
  ASSERT_EQ(ok.code, 0) << ok.output;
  EXPECT_NE(ok.output.find("edge ratio"), std::string::npos) << ok.output;

  std::string text = slurp(src + "1.5_0.4-kubedsm.yaml");
  const std::string from = "mC2E: 5";
  text.replace(text.find(from), from.size(), "qosTargets: {D: 1.5}, mC2E: 5");
  const std::string bad = tmp_dir("bad.yaml");
  std::ofstream(bad) << text;
  const Result r = run("sim " + bad + " --out " + tmp_dir("bad"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("bad.yaml:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("qosTargets.D: expected a QoS target in [0, 1], got 1.5"),
            std::string::npos)
      << r.output;
}

}  // namespace
