// Runs the real `orrery` binary: outputs, byte-identical reruns, exit codes and the rule that a
// failed run leaves no summary.json behind.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;

using Scratch = orrery::testing::ScratchDir;

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int run(const std::string& args, const std::string& output) {
  const std::string cmd = std::string(ORRERY_BINARY) + " " + args + " > " + output + " 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

const char* kScenario = R"(name: cli
seed: 5
duration: 5m
lifecycle: {bind: {dist: uniform, min: 5ms, max: 20ms}, startup: 1s}
cluster:
  nodes:
  - {name: edge, count: 2, cpu: 4, memory: 8Gi, tier: edge}
  - {name: cloud, cpu: 16, memory: 32Gi, tier: cloud}
workloads:
- deployment: {name: web, requests: {cpu: 500m, memory: 256Mi}, hpa: {maxReplicas: 20}}
- demand_cycles: {deployments: [web], cycles: 3, period: 100s, mean: 0.8, sd: 0.3}
- arrivals: {name: b, process: poisson, rate: 0.2, stop: 200s, job: {completions: 3, requests: {cpu: 1}, work: 20s}}
)";

TEST(SimCli, WritesEveryOutputAndRerunsAreByteIdentical) {
  Scratch s("ok");
  const std::string sc = s.write("s.yaml", kScenario);
  ASSERT_EQ(run("sim " + sc + " --out " + s.path("a") + " --no-wall-clock", s.path("log")), 0)
      << slurp(s.path("log"));
  ASSERT_EQ(run("sim " + sc + " --out " + s.path("b") + " --no-wall-clock -q", s.path("log2")), 0);
  for (const char* f :
       {"summary.json", "jobs.csv", "pods.csv", "timeseries.csv", "edge_ratio.csv"}) {
    ASSERT_TRUE(fs::exists(s.path(std::string("a/") + f))) << f;
    EXPECT_EQ(slurp(s.path(std::string("a/") + f)), slurp(s.path(std::string("b/") + f))) << f;
  }
  const std::string summary = slurp(s.path("a/summary.json"));
  EXPECT_EQ(summary.rfind("{\n  \"scenario\": \"cli\",\n  \"profile\": \"kube-default\",\n  "
                          "\"seed\": 5,\n  \"sim_time_s\": 300.0,\n  \"wall_time_s\": 0.0,\n",
                          0),
            0u)
      << summary;
  EXPECT_NE(slurp(s.path("log")).find("wrote " + s.path("a") + "/"), std::string::npos);
  EXPECT_EQ(slurp(s.path("log2")), "");  // --quiet
  // A different seed changes the run.
  ASSERT_EQ(
      run("sim " + sc + " --seed 6 --out " + s.path("c") + " --no-wall-clock -q", s.path("l")), 0);
  EXPECT_NE(slurp(s.path("a/pods.csv")), slurp(s.path("c/pods.csv")));
}

TEST(SimCli, TraceReplay) {
  Scratch s("trace");
  const std::string tr = s.write("t.tr", "0 2 1.5 1 2\n1 1 1 1\n");
  ASSERT_EQ(run("sim --trace " + tr + " --workers 2 --out " + s.path("o") + " -q", s.path("log")),
            0)
      << slurp(s.path("log"));
  EXPECT_EQ(slurp(s.path("o/jobs.csv")),
            "job,arrival_s,tasks,ideal_s,jrt_s,delay_s,short\n0,0,2,2,2,0,0\n1,1,1,1,1,0,0\n");
}

TEST(SimCli, BadInputExitsOneWithLocationAndWritesNoSummary) {
  Scratch s("bad");
  // A malformed trace line: wrong number of durations.
  const std::string tr = s.write("bad.tr", "0 2 1 1 1\n1 3 1 1 1\n");
  s.write("o/summary.json", "{\"stale\": true}\n");  // left by an earlier run
  EXPECT_EQ(run("sim --trace " + tr + " --workers 2 --out " + s.path("o"), s.path("err")), 1);
  EXPECT_NE(
      slurp(s.path("err")).find("orrery: error: " + tr + ":2: expected 3 task durations, got 2"),
      std::string::npos)
      << slurp(s.path("err"));
  EXPECT_FALSE(fs::exists(s.path("o/summary.json")));
  // Negative and non-numeric values.
  const std::string neg = s.write("neg.tr", "0 1 1 -2\n");
  EXPECT_EQ(run("sim --trace " + neg + " --workers 2 --out " + s.path("o"), s.path("err")), 1);
  EXPECT_NE(
      slurp(s.path("err")).find(neg + ":1: expected a task duration in seconds, got negative -2"),
      std::string::npos);
  // A bad scenario field.
  std::string text = kScenario;
  text.replace(text.find("rate: 0.2"), 9, "rate: fast");
  const std::string sc = s.write("bad.yaml", text);
  EXPECT_EQ(run("sim " + sc + " --out " + s.path("o"), s.path("err")), 1);
  EXPECT_NE(slurp(s.path("err"))
                .find(sc + ":12: workloads[2].arrivals.rate: expected a number, got \"fast\""),
            std::string::npos)
      << slurp(s.path("err"));
  EXPECT_FALSE(fs::exists(s.path("o/summary.json")));
  // Usage errors.
  EXPECT_EQ(run("sim " + sc, s.path("err")), 1);
  EXPECT_EQ(run("sim --trace " + tr + " --out " + s.path("o"), s.path("err")), 1);
  EXPECT_NE(slurp(s.path("err")).find("--trace needs --workers"), std::string::npos);
  EXPECT_EQ(run("sim " + s.write("g.yaml", kScenario) + " --profile nope --out " + s.path("o"),
                s.path("err")),
            1);
  EXPECT_NE(slurp(s.path("err")).find("unknown policy \"nope\""), std::string::npos);
  // A negative seed is refused, not wrapped into a huge unsigned one.
  EXPECT_EQ(run("sim " + s.path("g.yaml") + " --seed -1 --out " + s.path("o"), s.path("err")), 1);
  EXPECT_NE(slurp(s.path("err")).find("--seed: expected a non-negative integer, got \"-1\""),
            std::string::npos)
      << slurp(s.path("err"));
  EXPECT_FALSE(fs::exists(s.path("o/summary.json")));
}

TEST(SimCli, CompareWritesOneDirectoryPerProfileAndAReport) {
  Scratch s("compare");
  const std::string sc = s.write("s.yaml", kScenario);
  ASSERT_EQ(run("compare " + sc + " --profiles kube-default,kube-binpack --out " + s.path("cmp") +
                    " -j 2 -q --no-wall-clock",
                s.path("log")),
            0)
      << slurp(s.path("log"));
  EXPECT_TRUE(fs::exists(s.path("cmp/kube-default/summary.json")));
  EXPECT_TRUE(fs::exists(s.path("cmp/kube-binpack/summary.json")));
  const std::string html = slurp(s.path("cmp/report.html"));
  EXPECT_NE(html.find("kube-binpack"), std::string::npos);
  EXPECT_NE(slurp(s.path("log")).find("report: " + s.path("cmp") + "/report.html"),
            std::string::npos);
  // Parallel and sequential comparisons give the same runs.
  ASSERT_EQ(run("compare " + sc + " --profiles kube-default,kube-binpack --out " + s.path("seq") +
                    " -j 1 -q --no-wall-clock",
                s.path("log")),
            0);
  EXPECT_EQ(slurp(s.path("cmp/kube-binpack/pods.csv")), slurp(s.path("seq/kube-binpack/pods.csv")));
  // Without -q the summaries come in the order of --profiles, whichever run finishes first.
  ASSERT_EQ(run("compare " + sc + " --profiles kube-binpack,kube-default,random --out " +
                    s.path("ord") + " -j 3 --no-wall-clock",
                s.path("log")),
            0);
  const std::string log = slurp(s.path("log"));
  const size_t binpack = log.find("cli: kube-binpack"), dflt = log.find("cli: kube-default"),
               rnd = log.find("cli: random");
  ASSERT_NE(rnd, std::string::npos) << log;
  EXPECT_LT(binpack, dflt) << log;
  EXPECT_LT(dflt, rnd) << log;
}

TEST(SimCli, QueueModeRequeueAllGivesTheSameRun) {
  // The oracle mode from the command line (docs/simulator.md#the-scheduling-queue): a trace
  // replay overloading two workers, and the scenario above, give the same files in both modes.
  Scratch s("queue-mode");
  std::string trace;
  for (int j = 0; j < 12; ++j) trace += std::to_string(j) + " 6 1 1 1 2 1 1 1\n";
  const std::string tr = s.write("t.tr", trace);
  const std::string sc = s.write("s.yaml", kScenario);
  for (const std::string& input : {"--trace " + tr + " --workers 2", sc}) {
    SCOPED_TRACE(input);
    ASSERT_EQ(run("sim " + input + " --out " + s.path("h") + " -q --no-wall-clock", s.path("log")),
              0)
        << slurp(s.path("log"));
    ASSERT_EQ(run("sim " + input + " --queue-mode requeue-all --out " + s.path("r") +
                      " -q --no-wall-clock",
                  s.path("log")),
              0)
        << slurp(s.path("log"));
    for (const char* f : {"summary.json", "jobs.csv", "pods.csv", "timeseries.csv"}) {
      EXPECT_EQ(slurp(s.path(std::string("h/") + f)), slurp(s.path(std::string("r/") + f))) << f;
    }
  }
  EXPECT_EQ(run("sim " + sc + " --queue-mode sometimes --out " + s.path("x"), s.path("log")), 1);
  EXPECT_NE(slurp(s.path("log")).find("--queue-mode: expected hints or requeue-all"),
            std::string::npos)
      << slurp(s.path("log"));
}

}  // namespace
