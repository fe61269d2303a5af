// The issue-11 findings about honest results, each reproduced on real runs: statistics of empty
// sets, censored CDFs, one definition of migrations and restarts, the verdict and setup sections.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.h"
#include "policies/catalog.h"
#include "report/charts.h"
#include "report/csv.h"
#include "report/metrics.h"
#include "report/run_report.h"
#include "scratch_dir.h"
#include "sim/demo_scenario.h"
#include "sim/metrics.h"
#include "sim/simulation.h"
#include "xml_check.h"

namespace orrery::report {
namespace {

using Json = nlohmann::ordered_json;
using Scratch = orrery::testing::ScratchDir;
using testing::count_of;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs a scenario file (or the demo) under `policy` into `dir`; returns the summary.
Json run_into(const std::string& dir, const std::string& policy, const std::string& file = "") {
  const sim::Scenario sc =
      file.empty() ? sim::parse_scenario(sim::demo_scenario_yaml(), "<demo scenario>", "")
                   : sim::load_scenario(std::string(ORRERY_SOURCE_DIR) + "/" + file);
  const fw::PolicyRegistry reg = policies::catalog();
  sim::RunOptions opt;
  opt.policy = policy;
  opt.wall_clock = false;
  sim::Simulation s(sc, reg, opt);
  s.run();
  s.write_outputs(dir);
  return Json::parse(slurp(dir + "/summary.json"));
}

// The finding: `orrery sim scenarios/oom.yaml` reported jobs.count 0 with delay_p50_s 0.0.
TEST(HonestStatistics, EmptySetsAreNullNotZero) {
  EXPECT_TRUE(std::isnan(summarize({}).p50));
  const Json jobs = sim::jobs_summary({});
  EXPECT_EQ(jobs["count"], 0);
  for (const char* k : {"delay_p50_s", "delay_p90_s", "delay_p99_s", "delay_mean_s"})
    EXPECT_TRUE(jobs[k].is_null()) << k;

  Scratch s("oom");
  const Json sum = run_into(s.path("oom"), "", "scenarios/oom.yaml");
  EXPECT_EQ(sum["jobs"]["count"], 0);
  EXPECT_TRUE(sum["jobs"]["delay_p50_s"].is_null());
  EXPECT_TRUE(sum["jobs"]["delay_mean_s"].is_null());
  // Wall time was not measured (0); per-decision statistics exist since there were decisions.
  EXPECT_GT(sum["scheduler"]["decisions"].get<int>(), 0);
  EXPECT_EQ(sum["scheduler"]["wall_per_decision_p50_us"], 0.0);
  // The report shows a dash for them, never "0 s".
  write_run_report({s.path("oom")}, s.path("r.html"));
  const std::string html = slurp(s.path("r.html"));
  const size_t row = html.find(">job delay p50 \u2193</th>");
  ASSERT_NE(row, std::string::npos);
  EXPECT_EQ(html.substr(row, html.find("</tr>", row) - row).find("0 s"), std::string::npos);
  EXPECT_NE(html.substr(row, html.find("</tr>", row) - row).find("\u2014"), std::string::npos);
}

TEST(HonestStatistics, NoDecisionHasNoPerDecisionTime) {
  fw::PolicyStats stats;
  Json j = stats.summary(true);
  EXPECT_TRUE(j["wall_per_decision_mean_us"].is_null());
  stats.decision(true, 2000);
  j = stats.summary(true);
  EXPECT_DOUBLE_EQ(j["wall_per_decision_mean_us"].get<double>(), 2.0);
  EXPECT_EQ(stats.summary(false)["wall_per_decision_mean_us"], 0.0);
}

// A CDF of 3 values with 1 censored item ends at 3/4 and says so in its legend.
TEST(CensoredCdf, CurveStopsBelowOneAndTheLegendCountsTheCensored) {
  CdfChart c;
  c.title = "t";
  c.x = Axis{"delay", Format::kSeconds};
  c.series.push_back({"done-all", {1, 2, 3, 4}, 0, "unfinished"});
  c.series.push_back({"left-one", {1, 2, 3}, 1, "unfinished"});
  const std::string svg = render_svg(c, "c1");
  EXPECT_NE(svg.find(">left-one (1 unfinished)</text>"), std::string::npos);
  EXPECT_NE(svg.find(">done-all</text>"), std::string::npos);
  EXPECT_NE(svg.find("the curve stops at 75%"), std::string::npos);
  // p50 of all four items is 2.5 s for both (the censored one ranks above every value: the
  // finished values' percentile 50 * 4/3 = 66.7 → 2.33 s); p90 of left-one falls among the
  // censored, so it has no marker and reads "not reached".
  EXPECT_NE(svg.find("left-one: p50 = 2.333 s"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("left-one: p90 ="), std::string::npos);
  EXPECT_NE(svg.find("p90 = not reached"), std::string::npos);
  EXPECT_NE(svg.find("done-all: p90 = 3.7 s"), std::string::npos);
  // The left-one curve's last step is at 3/4 of the plot height, never at the top.
  const size_t group = svg.find("<g class=\"series\"><title>left-one: n = 3");
  ASSERT_NE(group, std::string::npos);
  const size_t d = svg.find(" d=\"", group);
  const std::string path = svg.substr(d, svg.find('"', d + 4) - d);
  const size_t last_v = path.rfind('V');
  const double y_last = std::stod(path.substr(last_v + 1));
  // Plot top and bottom from the done-all curve, which starts at 0 ("M x y") and reaches 1.
  const size_t dg = svg.find(" d=\"M", svg.find("<g class=\"series\"><title>done-all: n = 4"));
  const std::string full = svg.substr(dg + 5, svg.find('"', dg + 5) - dg - 5);
  const double top = std::stod(full.substr(full.rfind('V') + 1));
  const double bottom = std::stod(full.substr(full.find(' ') + 1));
  EXPECT_NEAR((bottom - y_last) / (bottom - top), 0.75, 0.01);
}

// The finding: kube-binpack left jobs unfinished and pods unbound in the demo, yet its CDFs
// reached 1.
TEST(CensoredCdf, DemoReportCountsUnfinishedJobsAndUnboundPods) {
  Scratch s("binpack");
  const Json sum = run_into(s.path("kube-binpack"), "kube-binpack");
  const size_t unfinished = sum["jobs"]["unfinished"].get<size_t>();
  const size_t unbound = sum["pods"]["count"].get<size_t>() - sum["pods"]["bound"].get<size_t>();
  ASSERT_GT(unfinished, 0u);
  ASSERT_GT(unbound, 0u);
  const RunData r = load_run(s.path("kube-binpack"));
  EXPECT_EQ(r.jobs_censored, unfinished + sum["jobs"]["failed"].get<size_t>());
  EXPECT_EQ(r.pods_unbound, unbound);
  write_run_report({s.path("kube-binpack")}, s.path("r.html"));
  const std::string html = slurp(s.path("r.html"));
  EXPECT_NE(html.find("kube-binpack (" + std::to_string(unfinished) + " unfinished)"),
            std::string::npos);
  EXPECT_NE(html.find("kube-binpack (" + std::to_string(unbound) + " never bound)"),
            std::string::npos);
}

// One definition of each counter: on a KubeDSM run of the demo, the report's "migrated" equals
// summary.json's pods.outcomes.Migrated and the pods.csv rows with outcome Migrated, bounded by
// scheduler.migrations (completed plans) and migrations_planned; the per-pod migrations and
// restarts columns never count more events than their owner's pods show; nothing failed, so no
// restart.
TEST(Counters, MigrationsAndRestartsAgreeAcrossSummaryCsvAndReport) {
  Scratch s("kubedsm");
  const Json sum = run_into(s.path("kubedsm"), "kubedsm");
  const int64_t migrated = sum["pods"]["outcomes"]["Migrated"].get<int64_t>();
  ASSERT_GT(migrated, 0);
  EXPECT_LE(sum["scheduler"]["migrations"].get<int64_t>(), migrated);
  EXPECT_LE(migrated, sum["scheduler"]["kubedsm"]["migrations_planned"].get<int64_t>());
  const CsvFile pods = CsvFile::read(s.path("kubedsm/pods.csv"));
  const std::vector<std::string> owner = pods.strings("owner"), outcome = pods.strings("outcome");
  const std::vector<double> restarts = pods.numbers("restarts"),
                            migrations = pods.numbers("migrations");
  std::map<std::string, int> moved, failed, max_migrations, max_restarts;
  int rows_migrated = 0;
  for (size_t i = 0; i < owner.size(); ++i) {
    rows_migrated += outcome[i] == "Migrated";
    moved[owner[i]] += outcome[i] == "Migrated";
    failed[owner[i]] += is_failure_outcome(outcome[i]);
    max_migrations[owner[i]] = std::max(max_migrations[owner[i]], static_cast<int>(migrations[i]));
    max_restarts[owner[i]] = std::max(max_restarts[owner[i]], static_cast<int>(restarts[i]));
  }
  EXPECT_EQ(rows_migrated, migrated);
  bool carried = false;
  for (const auto& [o, m] : max_migrations) {
    EXPECT_LE(m, moved[o]) << o << ": a pod counts more moves than its owner's pods show";
    EXPECT_LE(max_restarts[o], failed[o]) << o << ": a restart without a failure";
    carried = carried || m > 0;
  }
  EXPECT_TRUE(carried) << "replacements carry their replica's migrations";
  // The report reads the same numbers: verdict "pods migrated" and the pods table.
  write_run_report({s.path("kubedsm")}, s.path("r.html"));
  const std::string html = slurp(s.path("r.html"));
  const size_t row = html.find(">pods migrated</th>");
  ASSERT_NE(row, std::string::npos);
  EXPECT_NE(
      html.find("title=\"" + std::to_string(migrated) + "\">" + std::to_string(migrated), row),
      std::string::npos);
  const size_t failures = html.find(">pod failures \u2193</th>");
  ASSERT_NE(failures, std::string::npos);
  EXPECT_NE(html.find("title=\"0\">0<", failures), std::string::npos);
}

// Restarts count failures: OOM kills in scenarios/oom.yaml are replaced, and every restart a pod
// carries is one of its owner's failures.
TEST(Counters, RestartsCountOnlyFailures) {
  Scratch s("oomr");
  run_into(s.path("oom"), "", "scenarios/oom.yaml");
  const CsvFile pods = CsvFile::read(s.path("oom/pods.csv"));
  const std::vector<std::string> owner = pods.strings("owner"), outcome = pods.strings("outcome");
  const std::vector<double> restarts = pods.numbers("restarts");
  std::map<std::string, int> failed, max_restarts;
  for (size_t i = 0; i < owner.size(); ++i) {
    failed[owner[i]] += is_failure_outcome(outcome[i]);
    max_restarts[owner[i]] = std::max(max_restarts[owner[i]], static_cast<int>(restarts[i]));
  }
  int any = 0;
  for (const auto& [o, r] : max_restarts) {
    EXPECT_LE(r, failed[o]) << o;
    any += r;
  }
  EXPECT_GT(any, 0);
}

TEST(Verdict, BestMarkedDifferencesAgainstTheBaselineAndOneReadingPerMetric) {
  Scratch s("verdict");
  run_into(s.path("kube-default"), "kube-default");
  run_into(s.path("bef"), "bef");
  run_into(s.path("kube-binpack"), "kube-binpack");
  const std::vector<std::string> dirs{s.path("bef"), s.path("kube-binpack"),
                                      s.path("kube-default")};
  write_run_report(dirs, s.path("r.html"));
  const std::string html = slurp(s.path("r.html"));
  ASSERT_TRUE(testing::check_xml(html).ok);
  // The verdict comes first, then the setup.
  const size_t verdict = html.find(">Verdict</h2>"), setup = html.find(">Setup</h2>");
  ASSERT_NE(verdict, std::string::npos);
  ASSERT_NE(setup, std::string::npos);
  EXPECT_LT(verdict, setup);
  EXPECT_LT(setup, html.find(">Jobs</h2>"));
  // kube-default is the default baseline even when it is not the first run.
  EXPECT_NE(html.find(">kube-default (baseline)</th>"), std::string::npos);
  // One row per key metric with its reading; the best job-delay p99 is marked.
  const std::string table = html.substr(verdict, setup - verdict);
  EXPECT_GE(count_of(table, "<td>best: "), 6);
  EXPECT_GE(count_of(table, "class=\"num best\""), 6);
  EXPECT_NE(table.find("vs kube-default"), std::string::npos);
  // kube-binpack has a better median job delay than kube-default but left more jobs unfinished:
  // the reading says so.
  write_run_report({s.path("kube-default"), s.path("kube-binpack")}, s.path("two.html"));
  const std::string two = slurp(s.path("two.html"));
  EXPECT_NE(two.find("best: kube-binpack (11.47 s, \u221229% vs kube-default); worst: "
                     "kube-default (16.25 s); but kube-binpack left 4 jobs unfinished, which "
                     "this percentile leaves out"),
            std::string::npos);
  // --baseline by policy; an unknown one is an error naming the runs.
  write_run_report(dirs, s.path("b.html"), "", "bef");
  EXPECT_NE(slurp(s.path("b.html")).find(">bef (baseline)</th>"), std::string::npos);
  try {
    write_run_report(dirs, s.path("c.html"), "", "kube-defualt");
    ADD_FAILURE() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--baseline: no run is \"kube-defualt\""),
              std::string::npos);
  }
  // The setup says what the nodes, workloads and policies are.
  const std::string setup_text = html.substr(setup, html.find(">Runs</h2>") - setup);
  EXPECT_NE(setup_text.find("<td>edge</td><td>cpu=5, memory=5Gi</td>"), std::string::npos);
  EXPECT_NE(setup_text.find("<td>cloud</td><td>cpu=22, memory=17Gi</td>"), std::string::npos);
  EXPECT_NE(setup_text.find("deployment a: 1 replica, HPA up to 40"), std::string::npos);
  EXPECT_NE(setup_text.find("Sencillo Biggest Edge node First"), std::string::npos);
}

// Issue 13: the packer's plans appear in the report, with their steps in order and their outcome,
// read from a real run of the fragmentation scenario (two moves free room for two pods).
TEST(PlansSection, ThePackersPlanIsListedWithItsStepsAndOutcome) {
  Scratch s("plans");
  const Json sum = run_into(s.path("opt"), "", "scenarios/optpack/fragmentation.yaml");
  const Json& history = sum["scheduler"]["optpack"]["plan_history"];
  ASSERT_EQ(history.size(), 1u);
  ASSERT_EQ(history[0]["steps"].size(), 8u);
  const std::string html_path = s.path("report.html");
  write_run_report({s.path("opt")}, html_path);
  const std::string html = slurp(html_path);
  ASSERT_NE(html.find(">Plans<"), std::string::npos);
  EXPECT_NE(html.find(">optpack-1<"), std::string::npos);
  EXPECT_NE(html.find(">completed<"), std::string::npos);
  // The first step as the summary has it, and the 8 steps cut to the shown maximum ("… and N").
  const Json& first = history[0]["steps"][0];
  const std::string pod = first["pod"].get<std::string>();
  const std::string step = first["action"].get<std::string>() + " " +
                           pod.substr(pod.find('/') + 1) + " from " +
                           first["node"].get<std::string>();
  EXPECT_NE(html.find(step), std::string::npos) << step;
  EXPECT_EQ(html.find("more plans are not shown"), std::string::npos);
  // A run without plans (the demo under kube-default) has no Plans section.
  run_into(s.path("demo"), "kube-default");
  write_run_report({s.path("demo")}, s.path("demo.html"));
  EXPECT_EQ(slurp(s.path("demo.html")).find(">Plans<"), std::string::npos);
}

}  // namespace
}  // namespace orrery::report
