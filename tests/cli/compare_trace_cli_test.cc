// `orrery compare --trace FILE.tr --cluster-config FILE_C.json --profiles ...` run as a user would:
// framework policies and federated architectures side by side on one trace, the error for an
// architecture without a trace, and byte-identical outputs for equal seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/k8s_objects.h"

#include "run_orrery.h"
#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;

using Result = orrery::testing::RunResult;
using Scratch = orrery::testing::ScratchDir;
const auto run = orrery::testing::run_orrery;

const std::string kData = std::string(ORRERY_DATA_DIR) + "/megha/";
const std::string kConfigs =
    kData + "megha_config_G1L1S9_C.json," + kData + "pigeon_config_D1M1S9_C.json";
constexpr int kJobs = 4;

// The first kJobs jobs of syn_250 (250 one-second tasks each), for the 9-worker configurations.
std::string small_trace(const Scratch& s) {
  std::ifstream in(kData + "syn_250.0.tr");
  std::string text, line;
  for (int i = 0; i < kJobs && std::getline(in, line); ++i) text += line + "\n";
  return s.write("small.tr", text);
}

nlohmann::json summary_of(const std::string& dir) {
  return nlohmann::json::parse(orrery::read_text_file(dir + "/summary.json"));
}

size_t csv_rows(const std::string& path) {
  const std::string text = orrery::read_text_file(path);
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) - 1;  // minus header
}

// Every regular file under `dir`, relative, sorted.
std::vector<std::string> files_under(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(fs::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(CompareTraceCli, PoliciesAndArchitecturesRunSideBySide) {
  Scratch s("compare-trace");
  const std::string trace = small_trace(s), out = s.path("cmp");
  const Result r =
      run("compare --trace " + trace + " --cluster-config " + kConfigs +
          " --profiles kube-default,megha,pigeonc --no-wall-clock --jobs 2 --out " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  // Summaries in the order of --profiles, each in its own form.
  const size_t kube = r.output.find("small: kube-default, seed 1:");
  const size_t megha = r.output.find("megha on small (9 workers): 4 jobs");
  const size_t pigeonc = r.output.find("pigeonc on small (9 workers): 4 jobs");
  ASSERT_NE(kube, std::string::npos) << r.output;
  ASSERT_NE(megha, std::string::npos) << r.output;
  ASSERT_NE(pigeonc, std::string::npos) << r.output;
  EXPECT_LT(kube, megha);
  EXPECT_LT(megha, pigeonc);

  for (const char* p : {"kube-default", "megha", "pigeonc"}) {
    const std::string dir = out + "/" + p;
    for (const char* f : {"summary.json", "jobs.csv", "timeseries.csv"})
      EXPECT_TRUE(fs::exists(dir + "/" + f)) << dir << "/" << f;
    const nlohmann::json sum = summary_of(dir);
    EXPECT_EQ(sum["profile"], p);  // the name as given, not megha_rand
    EXPECT_EQ(sum["scenario"], "small");
    EXPECT_EQ(sum["seed"], 1);
    EXPECT_EQ(sum["jobs"]["count"], kJobs) << p;
    EXPECT_EQ(csv_rows(dir + "/jobs.csv"), static_cast<size_t>(kJobs)) << p;
  }
  EXPECT_TRUE(fs::exists(out + "/kube-default/pods.csv"));
  EXPECT_FALSE(fs::exists(out + "/megha/pods.csv"));
  // The policy ran on the configuration's workers: 9 one-slot nodes.
  EXPECT_EQ(summary_of(out + "/kube-default")["nodes"], 9);
  EXPECT_EQ(summary_of(out + "/megha")["cluster"]["workers"], 9);
  EXPECT_EQ(summary_of(out + "/pigeonc")["cluster"]["arch"], "pigeonc");

  const std::string html = orrery::read_text_file(out + "/report.html");
  for (const char* p : {">kube-default</th>", ">megha</th>", ">pigeonc</th>"})
    EXPECT_NE(html.find(p), std::string::npos) << p;
  // The architectures write no pods.csv; the report says so instead of failing.
  EXPECT_NE(html.find("Not shown here (no pods.csv): megha, pigeonc."), std::string::npos);
}

TEST(CompareTraceCli, AnArchitectureNeedsATraceAndAConfigurationOfItsKind) {
  Scratch s("compare-trace-errors");
  const std::string trace = small_trace(s), out = s.path("cmp");
  const std::string scenario = std::string(ORRERY_SOURCE_DIR) + "/scenarios/demo.yaml";
  Result r = run("compare " + scenario + " --profiles kube-default,megha-minc --out " + out);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("--profiles: \"megha-minc\" is a federated architecture, not a policy: "
                          "it needs a trace and a cluster configuration"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out)) << "nothing is written before the inputs are checked";

  r = run("sim --trace " + trace + " --workers 9 --profile pigeonc --out " + out);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("--profile: \"pigeonc\" is a federated architecture"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("--arch pigeonc"), std::string::npos) << r.output;

  r = run("compare --trace " + trace + " --profiles megha --out " + out);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("--trace needs --cluster-config"), std::string::npos) << r.output;

  r = run("compare --trace " + trace + " --cluster-config " + kData +
          "megha_config_G1L1S9_C.json --profiles megha,pigeonc --out " + out);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("--profiles: \"pigeonc\" needs a PigeonC (pigeon_config_*_C.json) "
                          "cluster configuration"),
            std::string::npos)
      << r.output;

  r = run("compare --trace " + trace + " --cluster-config " + kData +
          "megha_config_G1L1S9_C.json," + kData +
          "pigeon_config_D10M100S10000_C.json --profiles megha --out " + out);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("(9 workers) and "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(10000 workers) describe different workers"), std::string::npos)
      << r.output;

  r = run("compare --trace " + trace + " --cluster-config " + kConfigs +
          " --profiles kube-default,borg --out " + out);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("--profiles: unknown profile \"borg\""), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  pigeonc-minc-ref  "), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST(CompareTraceCli, EqualSeedsGiveByteIdenticalOutputs) {
  Scratch s("compare-trace-determinism");
  const std::string trace = small_trace(s);
  const std::string base = "compare --trace " + trace + " --cluster-config " + kConfigs +
                           " --profiles megha-minc,kube-default,pigeonc-ref --no-wall-clock -q ";
  // Same directory name each time (the report names it), moved aside between runs.
  const std::string out = s.path("cmp");
  ASSERT_EQ(run(base + "--seed 3 --jobs 1 --out " + out).code, 0);
  fs::rename(out, s.path("first"));
  ASSERT_EQ(run(base + "--seed 3 --jobs 2 --out " + out).code, 0);
  fs::rename(out, s.path("second"));
  ASSERT_EQ(run(base + "--seed 4 --jobs 2 --out " + out).code, 0);

  const std::vector<std::string> files = files_under(s.path("first"));
  EXPECT_EQ(files, files_under(s.path("second")));
  EXPECT_EQ(files.size(), 12u);  // 3 + 5 (with setup.json) + 3 run files and the report
  for (const std::string& f : files) {
    EXPECT_EQ(orrery::read_text_file(s.path("first/" + f)),
              orrery::read_text_file(s.path("second/" + f)))
        << f;
  }
  // The seed reaches the architectures (task constraints, heartbeat phases).
  EXPECT_NE(orrery::read_text_file(s.path("first/megha-minc/summary.json")),
            orrery::read_text_file(out + "/megha-minc/summary.json"));
}

}  // namespace
