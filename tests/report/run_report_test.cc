#include "report/run_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "core/error.h"
#include "scratch_dir.h"
#include "xml_check.h"

namespace orrery::report {
namespace {

namespace fs = std::filesystem;
using testing::check_xml;
using testing::count_of;

const std::string kData = std::string(ORRERY_SOURCE_DIR) + "/tests/data/report/";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

using Scratch = orrery::testing::ScratchDir;

std::string error_of(const std::vector<std::string>& dirs, const std::string& out) {
  try {
    write_run_report(dirs, out);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(RunReport, LoadsEveryFileOfARunDirectory) {
  const RunData r = load_run(kData + "kube-default");
  EXPECT_EQ(r.files, (std::vector<std::string>{"summary.json", "jobs.csv", "pods.csv",
                                               "timeseries.csv", "edge_ratio.csv"}));
  EXPECT_EQ(r.summary["profile"], "kube-default");
  ASSERT_TRUE(r.has_jobs);
  EXPECT_EQ(r.job_delay_s.size(), 60u);
  EXPECT_EQ(r.job_jrt_s.size(), 60u);
  EXPECT_TRUE(std::is_sorted(r.job_delay_s.begin(), r.job_delay_s.end()));
  EXPECT_EQ(r.long_delay_s.size(), 60u);
  EXPECT_TRUE(r.short_delay_s.empty());
  ASSERT_TRUE(r.has_pods);
  EXPECT_EQ(r.pods, 80u);
  EXPECT_EQ(r.pods_unbound, 2u);  // empty pending time: never bound
  EXPECT_EQ(r.pod_pending_s.size(), 78u);
  EXPECT_EQ(std::count(r.pod_outcome.begin(), r.pod_outcome.end(), "oomkilled"), 8);
  // Numeric extra column kept, non-numeric "phase" ignored.
  std::vector<std::string> ts;
  for (const auto& [name, v] : r.ts_columns) ts.push_back(name);
  EXPECT_EQ(ts, (std::vector<std::string>{"cpu_util", "mem_util", "slot_util", "pending", "running",
                                          "nodes_ready"}));
  EXPECT_EQ(r.ts_time_s.size(), 61u);
  ASSERT_EQ(r.edge.size(), 3u);
  EXPECT_EQ(r.edge[0].deployment, "svc-a");
  EXPECT_EQ(r.edge[2].ratio.size(), 13u);
}

TEST(RunReport, PartialDirectoriesAndLabels) {
  std::vector<RunData> runs{load_run(kData + "jobs-only"), load_run(kData + "megha/")};
  label_runs(runs);
  EXPECT_EQ(runs[0].label, "jobs-only");  // no summary: directory name
  EXPECT_EQ(runs[1].label, "megha-rand");
  EXPECT_TRUE(runs[0].summary.is_null());
  EXPECT_EQ(runs[0].job_delay_s.size(), 10u);  // CRLF, quoted extra column ignored
  EXPECT_DOUBLE_EQ(runs[0].job_delay_s[9], 0.1);
  EXPECT_TRUE(runs[0].short_delay_s.empty());  // all long: no split
  EXPECT_FALSE(runs[1].has_pods);
  EXPECT_EQ(runs[1].short_delay_s.size(), 53u);
  EXPECT_EQ(runs[1].long_delay_s.size(), 27u);
}

TEST(RunReport, SharedProfilesAreDisambiguatedBySeedThenDirectory) {
  auto run = [](const std::string& dir, const std::string& profile, int seed) {
    RunData r;
    r.dir = dir;
    r.summary = {{"profile", profile}, {"seed", seed}};
    r.policy = profile;
    r.seed = std::to_string(seed);
    return r;
  };
  std::vector<RunData> runs{run("out/a", "kubedsm", 1), run("out/b", "kubedsm", 2),
                            run("out/c", "bef", 1), run("x/c", "rnd", 1), run("y/c", "rnd", 1)};
  label_runs(runs);
  EXPECT_EQ(runs[0].label, "kubedsm \u00b7 seed 1");
  EXPECT_EQ(runs[1].label, "kubedsm \u00b7 seed 2");
  EXPECT_EQ(runs[2].label, "bef \u00b7 seed 1");
  EXPECT_EQ(runs[3].label, "rnd \u00b7 seed 1 [c]");
  EXPECT_EQ(runs[4].label, "rnd \u00b7 seed 1 [c] #2");
}

// The finding: three different scenarios run by one policy all became "kube-default (seed N)".
TEST(RunReport, RunsOfDifferentScenariosAreLabelledByScenarioPolicyAndSeed) {
  Scratch s("labels");
  for (const auto& [dir, scenario, seed] :
       {std::tuple{"x", "oom", 2}, std::tuple{"y", "bursty", 1}, std::tuple{"z", "demo", 1}}) {
    s.write(std::string(dir) + "/summary.json", std::string("{\"scenario\": \"") + scenario +
                                                    "\", \"profile\": \"kube-default\", "
                                                    "\"seed\": " +
                                                    std::to_string(seed) + "}\n");
  }
  std::vector<RunData> runs{load_run(s.path("x")), load_run(s.path("y")), load_run(s.path("z"))};
  label_runs(runs);
  EXPECT_EQ(runs[0].label, "oom \u00b7 kube-default \u00b7 seed 2");
  EXPECT_EQ(runs[1].label, "bursty \u00b7 kube-default \u00b7 seed 1");
  EXPECT_EQ(runs[2].label, "demo \u00b7 kube-default \u00b7 seed 1");
  // One scenario and one seed: the policy alone tells the runs apart.
  std::vector<RunData> demo{load_run(kData + "kube-default"), load_run(kData + "kubedsm")};
  label_runs(demo);
  EXPECT_EQ(demo[0].label, "kube-default");
  EXPECT_EQ(demo[1].label, "kubedsm");
  // The report's columns and legends carry the labels.
  write_run_report({s.path("x"), s.path("y"), s.path("z")}, s.path("r.html"));
  const std::string html = slurp(s.path("r.html"));
  EXPECT_NE(html.find("oom \u00b7 kube-default \u00b7 seed 2"), std::string::npos);
  EXPECT_EQ(html.find("(seed 2)"), std::string::npos);
}

TEST(RunReport, ReportOverSeveralRunsHasEverySectionAndIsDeterministic) {
  Scratch s("several");
  const std::vector<std::string> dirs{kData + "kube-default", kData + "kubedsm", kData + "megha",
                                      kData + "jobs-only"};
  write_run_report(dirs, s.path("r.html"), "Fixture <report>");
  const std::string html = slurp(s.path("r.html"));
  const auto xml = check_xml(html);
  ASSERT_TRUE(xml.ok) << xml.error;
  EXPECT_NE(html.find("<h1>Fixture &lt;report&gt;</h1>"), std::string::npos);
  for (const char* section : {">Runs</h2>", ">Jobs</h2>", ">Pods</h2>", ">Cluster over time</h2>",
                              ">Edge ratio</h2>", ">All summary values</h2>"})
    EXPECT_NE(html.find(section), std::string::npos) << section;
  // 3 job CDFs (delay, JRT, short jobs), 2 pod CDFs, 3 edge-ratio charts, and the time series as
  // small multiples: 5 columns that vary × 2 runs with timeseries.csv (nodes_ready is constant).
  EXPECT_EQ(xml.elements.at("svg"), 18);
  EXPECT_NE(html.find("Constant in every run (not drawn): nodes_ready"), std::string::npos);
  // The delay CDF overlays all four runs; the pod CDFs only the two runs with pods.csv.
  const size_t delay = html.find("CDF of job delay</title>");
  const size_t jrt = html.find("CDF of job response time</title>");
  ASSERT_NE(delay, std::string::npos);
  EXPECT_EQ(count_of(html.substr(delay, jrt - delay), "class=\"series\""), 4);
  const size_t pending = html.find("CDF of pod pending time</title>");
  EXPECT_EQ(
      count_of(html.substr(pending, html.find("</svg>", pending) - pending), "class=\"series\""),
      2);
  // Side-by-side summary with extra federated keys; a log axis for delays spanning decades.
  EXPECT_NE(html.find(">inconsistencies</th>"), std::string::npos);
  EXPECT_NE(html.find(">jobs.short.count</th>"), std::string::npos);
  EXPECT_NE(html.find(">100 ms</text>"), std::string::npos);
  EXPECT_NE(html.find(">syn_250 \u00b7 megha-rand \u00b7 seed 3</th><td>short</td>"),
            std::string::npos);
  // Same inputs, same bytes.
  write_run_report(dirs, s.path("r2.html"), "Fixture <report>");
  EXPECT_EQ(html, slurp(s.path("r2.html")));
}

TEST(RunReport, RunsWithoutAFileTheOthersHaveAreNamed) {
  Scratch s("missing");
  // kube-default has every file, megha no pods.csv, timeseries.csv or edge_ratio.csv, jobs-only
  // nothing but jobs.csv.
  write_run_report({kData + "kube-default", kData + "megha", kData + "jobs-only"},
                   s.path("r.html"));
  const std::string html = slurp(s.path("r.html"));
  ASSERT_TRUE(check_xml(html).ok);
  const std::string megha = "syn_250 \u00b7 megha-rand \u00b7 seed 3";
  EXPECT_NE(
      html.find("Not every run wrote the same files: jobs-only without summary.json; " + megha +
                ", jobs-only without pods.csv; " + megha + ", jobs-only without timeseries.csv; " +
                megha + ", jobs-only without edge_ratio.csv."),
      std::string::npos);
  for (const std::string& note : {"Not shown here (no pods.csv): " + megha + ", jobs-only.",
                                  "Not shown here (no timeseries.csv): " + megha + ", jobs-only.",
                                  "Not shown here (no edge_ratio.csv): " + megha + ", jobs-only.",
                                  std::string("Not shown here (no summary.json): jobs-only.")})
    EXPECT_NE(html.find(note), std::string::npos) << note;
  EXPECT_EQ(html.find("(no jobs.csv)"), std::string::npos);  // every run has one

  // Runs with the same files get no such notes.
  write_run_report({kData + "kube-default", kData + "kubedsm"}, s.path("same.html"));
  const std::string same = slurp(s.path("same.html"));
  EXPECT_EQ(same.find("Not every run"), std::string::npos);
  EXPECT_EQ(same.find("Not shown here"), std::string::npos);
}

TEST(RunReport, EdgeRatioTableHasTimeWeightedMeansAndSpread) {
  Scratch s("edge");
  const std::string dir = s.path("run");
  s.write("run/edge_ratio.csv",
          "time_s,deployment,edge_ratio\n0,A,1\n0,B,0\n10,A,0.5\n30,A,0.5\n30,B,0\n");
  write_run_report({dir}, s.path("r.html"));
  const std::string html = slurp(s.path("r.html"));
  ASSERT_TRUE(check_xml(html).ok);
  // A: 1 for 10 s, then 0.5 for 20 s and (last sample) 20 s more -> 0.6; B: 0.
  // Mean 0.3, population sd 0.3.
  EXPECT_NE(html.find("<th scope=\"row\">A</th><td class=\"num\" title=\"0.6\">60%"),
            std::string::npos);
  EXPECT_NE(html.find("mean over deployments</th><td class=\"num\" title=\"0.3\">30%"),
            std::string::npos);
  EXPECT_NE(html.find("sd across deployments</th><td class=\"num\" title=\"0.3\">30%"),
            std::string::npos);
  EXPECT_EQ(html.find(">Jobs</h2>"), std::string::npos);  // absent files, absent sections
}

TEST(RunReport, TimeWeightedMean) {
  // Weights 1, 2 and 2 (the last sample repeats the previous interval).
  EXPECT_DOUBLE_EQ(time_weighted_mean({0, 1, 3}, {4, 1, 100}), (4 * 1 + 1 * 2 + 100 * 2) / 5.0);
  // Regular sampling: the plain mean, as the simulator's summary computes it.
  EXPECT_DOUBLE_EQ(time_weighted_mean({0, 5, 10, 15}, {0.2, 0.4, 0.6, 1.0}), 0.55);
  EXPECT_DOUBLE_EQ(time_weighted_mean({5, 5}, {1, 3}), 2);  // one instant: plain mean
  // A NaN sample ends the previous value's interval and carries no weight itself.
  EXPECT_DOUBLE_EQ(time_weighted_mean({0, 1, 2}, {2, std::nan(""), 4}), 3);
  EXPECT_TRUE(std::isnan(time_weighted_mean({}, {})));
}

TEST(RunReport, UserTextIsEscaped) {
  Scratch s("escape");
  s.write("run/summary.json", R"({"profile": "<script>alert('x')</script>", "note": "a&b"})");
  write_run_report({s.path("run")}, s.path("r.html"));
  const std::string html = slurp(s.path("r.html"));
  ASSERT_TRUE(check_xml(html).ok);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find(">a&amp;b<"), std::string::npos);
}

TEST(RunReport, LongArraysInTheSummaryAreShortened) {
  // The simulator writes per-cycle demand as a nested array; the table keeps a readable prefix.
  Scratch dir("arrays");
  dir.write("run/summary.json",
            R"({"profile": "p", "demand_cycles": [[1.5, 0.25, 1.125, 0.5, 1.75, 0.625, 1.875,)"
            R"( 0.375, 1.0625, 0.9375, 1.3125, 0.6875]], "short_list": [1, 2]})");
  write_run_report({dir.path("run")}, dir.path("r.html"));
  const std::string html = slurp(dir.path("r.html"));
  EXPECT_NE(html.find("[[1.5, 0.25, 1.125"), std::string::npos);
  EXPECT_EQ(html.find("0.6875"), std::string::npos) << "the tail of a long array is cut";
  EXPECT_NE(html.find(", …] (12 values)"), std::string::npos);
  EXPECT_NE(html.find("[1, 2]"), std::string::npos) << "short arrays are shown whole";
}

TEST(RunReport, SummaryValuesAreFormattedByWholeWordsOfTheirKey) {
  Scratch dir("formats");
  dir.write("run/summary.json",
            R"({"scheduler": {"migrations": 23, "wall_total_s": 0.5},)"
            R"( "utilization": {"cpu_mean": 0.25, "samples": 217}, "edge_ratio": {"mean": 0.5}})");
  write_run_report({dir.path("run")}, dir.path("r.html"));
  const std::string html = slurp(dir.path("r.html"));
  auto cell_after = [&](const std::string& key) {
    const size_t k = html.find(">" + key + "<");
    EXPECT_NE(k, std::string::npos) << key;
    const size_t td = html.find("<td", k + 1);
    const size_t open = html.find('>', td) + 1;
    return html.substr(open, html.find("</td>", open) - open);
  };
  EXPECT_EQ(cell_after("scheduler.migrations"), "23");  // "migrations" contains "ratio"
  EXPECT_EQ(cell_after("utilization.samples"), "217");
  EXPECT_EQ(cell_after("utilization.cpu_mean"), "25%");
  EXPECT_EQ(cell_after("edge_ratio.mean"), "50%");
  EXPECT_EQ(cell_after("scheduler.wall_total_s"), "500 ms");
}

TEST(RunReport, BadInputFailsWithLocationAndWritesNothing) {
  Scratch s("bad");
  const std::string out = s.path("r.html");
  s.write("r.html", "previous report");
  s.write("rows/jobs.csv",
          "job,arrival_s,tasks,ideal_s,jrt_s,delay_s,short\n1,0,1,1,1.5,0.5,0\n2,1,1\n");
  EXPECT_EQ(error_of({s.path("rows")}, out),
            s.path("rows/jobs.csv") + ":3: expected 7 fields (as in the header), got 3");
  s.write("num/pods.csv", "pod,pending_s\np1,0.1\np2,soon\n");
  EXPECT_EQ(error_of({s.path("num")}, out),
            s.path("num/pods.csv") + ":3: column 'pending_s': expected a number, got \"soon\"");
  s.write("col/jobs.csv", "job,jrt_s\n1,2\n");
  EXPECT_EQ(error_of({s.path("col")}, out),
            s.path("col/jobs.csv") + ":1: missing column 'delay_s' (columns: job,jrt_s)");
  s.write("ts/timeseries.csv", "time_s,cpu_util\n0,0.5\n1,high\n");
  EXPECT_EQ(error_of({s.path("ts")}, out),
            s.path("ts/timeseries.csv") + ":3: column 'cpu_util': expected a number, got \"high\"");
  s.write("cls/jobs.csv", "job,delay_s,short\n1,0.5,true\n2,0.1,maybe\n");
  EXPECT_EQ(error_of({s.path("cls")}, out),
            s.path("cls/jobs.csv") + ":3: column 'short': expected 0 or 1, got \"maybe\"");
  s.write("json/summary.json", "{\n  \"profile\": \"a\",\n  \"seed\": ,\n}\n");
  const std::string json_error = error_of({s.path("json")}, out);
  EXPECT_EQ(json_error.rfind(s.path("json/summary.json") + ":3: invalid JSON: syntax error", 0), 0u)
      << json_error;
  s.write("arr/summary.json", "[1, 2]");
  EXPECT_EQ(error_of({s.path("arr")}, out),
            s.path("arr/summary.json") + ":1: expected a JSON object at the top level");
  fs::create_directories(s.path("empty"));
  EXPECT_EQ(error_of({s.path("empty")}, out),
            s.path("empty") +
                ": not a run directory: expected summary.json, setup.json, jobs.csv, "
                "pods.csv, timeseries.csv or edge_ratio.csv");
  EXPECT_EQ(error_of({s.path("missing")}, out), s.path("missing") + ": not a directory");
  // A good directory followed by a bad one still writes nothing.
  EXPECT_NE(error_of({kData + "kubedsm", s.path("rows")}, out), "");
  EXPECT_EQ(error_of({}, out), "no run directories given");
  EXPECT_EQ(slurp(out), "previous report");
  EXPECT_FALSE(fs::exists(out + ".tmp"));
}

TEST(RunReport, CommandLineExitCodes) {
  Scratch s("cli");
  const std::string bin = ORRERY_BINARY;
  const std::string ok = bin + " report " + kData + "kubedsm " + kData + "megha --out " +
                         s.path("r.html") + " > " + s.path("stdout") + " 2>&1";
  EXPECT_EQ(std::system(ok.c_str()), 0);
  EXPECT_NE(slurp(s.path("stdout")).find("wrote " + s.path("r.html") + " (2 runs"),
            std::string::npos);
  EXPECT_TRUE(check_xml(slurp(s.path("r.html"))).ok);
  s.write("bad/jobs.csv", "delay_s\nx\n");
  const std::string bad = bin + " report " + s.path("bad") + " --out " + s.path("b.html") + " > " +
                          s.path("err") + " 2>&1";
  const int status = std::system(bad.c_str());
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(slurp(s.path("err"))
                .find("orrery: error: " + s.path("bad/jobs.csv") + ":2: column 'delay_s'"),
            std::string::npos)
      << slurp(s.path("err"));
  EXPECT_FALSE(fs::exists(s.path("b.html")));
  const std::string usage = bin + " report " + s.path("bad") + " > /dev/null 2>&1";  // no --out
  EXPECT_EQ(WEXITSTATUS(std::system(usage.c_str())), 1);
}

}  // namespace
}  // namespace orrery::report
