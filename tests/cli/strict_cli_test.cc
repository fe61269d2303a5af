// Issue 11, the command line: strict scenario files and bounded inputs as a user meets them (exit
// 1, FILE:LINE, fast), -o json|yaml|table, shell completion, and help that claims nothing unbuilt.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include <yaml-cpp/yaml.h>

#include "io/k8s_objects.h"

#include "run_orrery.h"
#include "scratch_dir.h"

namespace orrery::testing {
namespace {

const orrery::testing::ScratchDir& scratch() {
  static const orrery::testing::ScratchDir dir("strict-cli");
  return dir;
}

std::string write(const std::string& name, const std::string& text) {
  const std::string path = scratch().path(name);
  std::ofstream(path) << text;
  return path;
}

// A shell command's stdout only (stderr discarded) and exit code.
RunResult run_shell(const std::string& cmd) {
  RunResult r;
  FILE* p = popen((cmd + " 2>/dev/null").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

const std::string kBin = ORRERY_BIN;

TEST(StrictCli, ScenarioTyposAreErrorsWithFileLineAndSuggestion) {
  const std::string f =
      write("typo.yaml",
            "duration: 1m\ncluster:\n  nodes:\n  - {name: n, cpu: 4, memory: 4Gi}\n"
            "workloads:\n- job: {name: j, work: 1s, requests: {cpu: 1, memroy: "
            "1Gi}}\n");
  const RunResult r = run_orrery("sim " + f + " --out " + scratch().path("o1"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find(f + ":6: workloads[0].job.requests.memroy: invalid resource name "
                              "\"memroy\""),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("(did you mean \"memory\"?)"), std::string::npos) << r.output;
  const std::string d = write("dup.yaml",
                              "duration: 1m\ncluster:\n  nodes:\n  - {name: n, cpu: 4}\n"
                              "duration: 2m\n");
  const RunResult dup = run_orrery("sim " + d + " --out " + scratch().path("o2"));
  EXPECT_EQ(dup.code, 1);
  EXPECT_NE(dup.output.find(d + ":5: duration: duplicate key \"duration\" (first given at line 1)"),
            std::string::npos)
      << dup.output;
}

TEST(StrictCli, APolicyNameTypoUnderPoliciesIsAnError) {
  const std::string f = write("pol.yaml",
                              "duration: 1m\ncluster:\n  nodes:\n  - {name: n, cpu: 4}\npolicies:\n"
                              "  kube-defualt: {args: {queue: hints}}\n");
  const RunResult r = run_orrery("sim " + f + " --out " + scratch().path("pol"));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find(f + ":6: policies.kube-defualt: unknown scheduling policy "
                              "\"kube-defualt\" (did you mean \"kube-default\"?)"),
            std::string::npos)
      << r.output;
}

TEST(OutputCli, CompareJsonListsTheRunsSummaries) {
  const std::string dir = scratch().path("cmp");
  const RunResult r = run_shell(kBin +
                                " compare scenarios/oom.yaml --profiles kube-default,"
                                "kube-binpack -j 1 --no-wall-clock -o json --out " +
                                dir);
  ASSERT_EQ(r.code, 0) << r.output;
  const auto doc = nlohmann::ordered_json::parse(r.output);
  EXPECT_EQ(doc["report"], dir + "/report.html");
  ASSERT_EQ(doc["runs"].size(), 2u);
  EXPECT_EQ(
      doc["runs"][1]["summary"],
      nlohmann::ordered_json::parse(orrery::read_text_file(dir + "/kube-binpack/summary.json")));
}

// `count: 100000000` nodes used to run for minutes into std::bad_alloc (exit 2). Now it is an
// input error found while parsing: the process runs under a 1 GiB address-space limit, which the
// 100 million node names would exceed, so exit 1 with the message shows nothing was allocated.
TEST(StrictCli, AbsurdSizesFailFastBeforeAllocating) {
  const std::string nodes = write(
      "nodes.yaml", "duration: 1m\ncluster:\n  nodes:\n  - {name: n, cpu: 4, count: 100000000}\n");
  const std::string jobs = write("jobs.yaml",
                                 "duration: 1m\ncluster: {nodes: [{name: n, cpu: 4}]}\nworkloads:\n"
                                 "- job: {name: j, work: 1s, completions: 99999999999}\n");
  const std::string flood = write(
      "flood.yaml",
      "duration: 100000h\nmetrics: {sample_interval: 1h}\ncluster: {nodes: [{name: n, cpu: 4}]}\n"
      "workloads:\n- arrivals: {name: a, rate: 1000, job: {work: 1s}}\n");
  struct Case {
    std::string file, expect;
  };
#ifdef __SANITIZE_ADDRESS__
  // ASan reserves terabytes of shadow address space at start-up, so under `ulimit -v` the
  // sanitized binary cannot even start. The asan build checks the errors without the limit (the
  // release build's run of this test checks that nothing big is allocated first).
  const std::string limit;
  std::cout << "[ NOTE     ] ASan build: run without `ulimit -v` (ASan's shadow memory)\n";
#else
  const std::string limit = "ulimit -v 1048576; ";
#endif
  for (const Case& c : {Case{nodes, ":4: cluster.nodes[0].count: too many: 100,000,000"},
                        Case{jobs, ":4: workloads[0].job.completions: too many: 99,999,999,999"},
                        Case{flood, ":5: workloads[0].arrivals: pods this run would create"}}) {
    const std::string cmd = "(" + limit + "exec " + kBin + " sim " + c.file + " --out " +
                            scratch().path("big") + " 2>&1)";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
    const int status = pclose(p);
    ASSERT_TRUE(WIFEXITED(status)) << out;
    EXPECT_EQ(WEXITSTATUS(status), 1) << out;
    EXPECT_NE(out.find(c.file + c.expect), std::string::npos) << out;
    EXPECT_NE(out.find("pass --allow-large to lift it"), std::string::npos) << out;
  }
  // --allow-large lifts the limits but not the 32-bit range of a count.
  const RunResult lifted =
      run_orrery("sim " + jobs + " --allow-large --out " + scratch().path("b"));
  EXPECT_EQ(lifted.code, 1);
  EXPECT_NE(lifted.output.find("expected an integer <= 2147483647"), std::string::npos)
      << lifted.output;
}

TEST(StrictCli, TraceTimesBeyondRangeAreErrorsNotCrashes) {
  const std::string ok = write("ok.tr", "0 1 1 1\n");
  const RunResult workers =
      run_orrery("sim --trace " + ok + " --workers 100000000 --out " + scratch().path("w"));
  EXPECT_EQ(workers.code, 1);
  EXPECT_NE(workers.output.find("--workers: too many: 100,000,000, more than the limit of "
                                "1,000,000 nodes"),
            std::string::npos)
      << workers.output;
  for (const char* t : {"1e308", "9223372036854775808"}) {
    const std::string f = write("big.tr", std::string(t) + " 1 1 1\n");
    const RunResult r =
        run_orrery("sim --trace " + f + " --workers 2 --out " + scratch().path("t"));
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_NE(r.output.find(f + ":1: expected an arrival time in seconds of at most 4e12"),
              std::string::npos)
        << r.output;
  }
}

TEST(OutputCli, SimJsonIsTheSummaryItWrites) {
  const std::string dir = scratch().path("sim-json");
  const RunResult r =
      run_shell(kBin + " sim scenarios/oom.yaml --no-wall-clock -o json --out " + dir);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(nlohmann::ordered_json::parse(r.output),
            nlohmann::ordered_json::parse(orrery::read_text_file(dir + "/summary.json")));
  // YAML: the same document.
  const RunResult y =
      run_shell(kBin + " sim scenarios/oom.yaml --no-wall-clock -o yaml --out " + dir);
  ASSERT_EQ(y.code, 0);
  const YAML::Node doc = YAML::Load(y.output);
  const auto summary = nlohmann::json::parse(orrery::read_text_file(dir + "/summary.json"));
  EXPECT_EQ(doc["scenario"].as<std::string>(), summary["scenario"].get<std::string>());
  EXPECT_EQ(doc["seed"].as<uint64_t>(), summary["seed"].get<uint64_t>());
  EXPECT_EQ(doc["pods"]["count"].as<size_t>(), summary["pods"]["count"].get<size_t>());
  // table: the terminal summary.
  const RunResult t = run_shell(kBin + " sim scenarios/oom.yaml -o table --out " + dir);
  EXPECT_NE(t.output.find("  pods: "), std::string::npos) << t.output;
  EXPECT_EQ(run_orrery("sim scenarios/oom.yaml -o xml --out " + dir).code, 1);
}

TEST(OutputCli, ScheduleJsonIsTheOutFileAndScoreHasATable) {
  const std::string data = std::string(ORRERY_SOURCE_DIR) + "/tests/data/schedule/";
  const std::string out = scratch().path("placements.json");
  const RunResult j =
      run_shell(kBin + " schedule --cluster " + data + "cluster.yaml -o json --out " + out);
  ASSERT_EQ(j.code, 0);
  EXPECT_EQ(j.output, orrery::read_text_file(out));
  const RunResult y = run_shell(kBin + " schedule --cluster " + data + "cluster.yaml -o yaml");
  const YAML::Node doc = YAML::Load(y.output);
  EXPECT_EQ(doc["placements"][0]["pod"].as<std::string>(), "default/urgent");
  EXPECT_TRUE(doc["placements"][2]["node"].IsNull());
  EXPECT_EQ(doc["evictions"][0]["preemptor"].as<std::string>(), "default/urgent");
  const RunResult t = run_shell(kBin + " score --cluster " + data + "cluster.yaml --pod " + data +
                                "pod.yaml -o table");
  ASSERT_EQ(t.code, 0);
  EXPECT_NE(t.output.find("NODE  FEASIBLE  TOTAL  REASONS"), std::string::npos) << t.output;
  EXPECT_NE(t.output.find("n2    no        -      node(s) had untolerated taint"),
            std::string::npos)
      << t.output;
  const RunResult v = run_shell(kBin + " version -o json");
  EXPECT_EQ(nlohmann::json::parse(v.output)["version"], "0.1.0");
}

TEST(CompletionCli, BashScriptParsesAndCompletesCommands) {
  const std::string script = scratch().path("orrery.bash");
  ASSERT_EQ(run_shell(kBin + " completion bash > " + script).code, 0);
  EXPECT_EQ(run_shell("bash -n " + script).code, 0);
  auto complete = [&](const std::string& words, int cword) {
    return run_shell("bash -c 'source " + script + "; COMP_WORDS=(" + words + "); COMP_CWORD=" +
                     std::to_string(cword) + "; _orrery; printf \"%s \" \"${COMPREPLY[@]}\"'")
        .output;
  };
  EXPECT_EQ(complete("orrery sch", 1), "schedule ");
  // Under `repro`, its subcommands (whichever reproductions this binary has), not the top level.
  const std::string repro = complete("orrery repro \"\"", 2);
  EXPECT_NE(repro.find("federated "), std::string::npos) << repro;
  EXPECT_NE(repro.find("kubedsm "), std::string::npos) << repro;
  EXPECT_EQ(repro.find("schedule"), std::string::npos) << repro;
  // schedule lists its own formats (wide is its own); score the standard ones.
  EXPECT_EQ(complete("orrery schedule -o \"\"", 3), "table wide json yaml ");
  EXPECT_EQ(complete("orrery score -o \"\"", 3), "table json yaml ");
  EXPECT_EQ(complete("orrery sim --allow", 2), "--allow-large ");
}

TEST(CompletionCli, ZshScriptParses) {
  if (run_shell("command -v zsh").code != 0) GTEST_SKIP() << "zsh is not installed";
  const std::string script = scratch().path("_orrery");
  ASSERT_EQ(run_shell(kBin + " completion zsh > " + script).code, 0);
  EXPECT_EQ(run_shell("zsh -n " + script).code, 0);
}

TEST(HelpCli, RealClusterClaimsSayWhatWasTested) {
  // The real-cluster world exists (orrery serve) but was exercised only against the in-repo fake
  // API server: the help says so rather than claiming more.
  const RunResult r = run_orrery("--help");
  EXPECT_NE(r.output.find("tested against a fake API server only"), std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace orrery::testing
