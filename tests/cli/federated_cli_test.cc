// `orrery sim --arch megha|pigeonc` and `orrery repro federated` run as a user would: exit codes,
// named errors with no summary written, byte-identical outputs for equal seeds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "io/k8s_objects.h"

#include "run_orrery.h"
#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;

using Result = orrery::testing::RunResult;
const auto run = orrery::testing::run_orrery;

const std::string kData = std::string(ORRERY_DATA_DIR) + "/megha/";

// This test program's scratch directory (removed when the program exits).
fs::path tmp_dir() {
  static const orrery::testing::ScratchDir dir("federated-cli");
  return dir.root();
}

// The first three jobs of syn_250 (750 one-second tasks) on the 9-worker configurations.
std::string small_trace(const fs::path& dir) {
  std::ifstream in(kData + "syn_250.0.tr");
  std::ofstream out(dir / "small.tr");
  std::string line;
  for (int i = 0; i < 3 && std::getline(in, line); ++i) out << line << "\n";
  return (dir / "small.tr").string();
}

TEST(FederatedCli, SimRunsBothArchitecturesDeterministically) {
  const fs::path d = tmp_dir();
  const std::string trace = small_trace(d);
  for (const char* arch : {"megha", "pigeonc"}) {
    const std::string cfg = kData + (std::string(arch) == "megha" ? "megha_config_G1L1S9_C.json"
                                                                  : "pigeon_config_D1M1S9_C.json");
    const std::string base = "sim --trace " + trace + " --cluster-config " + cfg + " --arch " +
                             arch + " --match minc --seed 4 --no-wall-clock --out ";
    Result a = run(base + (d / arch / "a").string());
    ASSERT_EQ(a.code, 0) << a.output;
    EXPECT_NE(a.output.find(std::string(arch) + "_min on small"), std::string::npos) << a.output;
    Result b = run(base + (d / arch / "b").string());
    ASSERT_EQ(b.code, 0) << b.output;
    for (const char* f : {"summary.json", "jobs.csv", "timeseries.csv"}) {
      EXPECT_EQ(orrery::read_text_file((d / arch / "a" / f).string()),
                orrery::read_text_file((d / arch / "b" / f).string()))
          << arch << " " << f;
    }
  }
  fs::remove_all(d);
}

TEST(FederatedCli, BadInputIsExitOneWithNoSummary) {
  const fs::path d = tmp_dir();
  const std::string trace = small_trace(d);
  const std::string out = (d / "bad").string();
  Result r = run("sim --trace " + trace + " --cluster-config " + kData +
                 "pigeon_config_D1M1S9_C.json --arch megha --out " + out);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("this is a PigeonC configuration but --arch megha"), std::string::npos)
      << r.output;
  {
    std::ofstream bad(d / "bad_C.json");
    bad << R"({"LMs": {"1": {"partitions": {"1": ["0b101", "0b01"]}}}})";
  }
  r = run("sim --trace " + trace + " --cluster-config " + (d / "bad_C.json").string() +
          " --task-model " + kData + "task_constraint_model.json --arch megha --out " + out);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("bad_C.json:1: LMs.1.partitions.1[1]: bit string has 2 bits, "
                          "expected 3"),
            std::string::npos)
      << r.output;
  r = run("sim --trace " + trace + " --cluster-config " + kData +
          "megha_config_G1L1S9_C.json --arch megha --workers 10 --out " + out);
  EXPECT_EQ(r.code, 1);
  // Misspelt choices name the flag and every accepted value.
  for (const auto& [flags, message] : std::vector<std::pair<std::string, std::string>>{
           {"--arch borg", "--arch: expected megha or pigeonc, got \"borg\""},
           {"--arch megha --match best", "--match: expected random or minc, got \"best\""},
           {"--arch megha --lm-order any", "--lm-order: expected fixed or rotate, got \"any\""}}) {
    r = run("sim --trace " + trace + " --cluster-config " + kData + "megha_config_G1L1S9_C.json " +
            flags + " --out " + out);
    EXPECT_EQ(r.code, 1) << flags;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  }
  EXPECT_FALSE(fs::exists(out + "/summary.json"));
  fs::remove_all(d);
}

// `--faults FILE`: a bad plan is exit 1 naming the file and line, with no summary; a good one
// runs every task once and the same seed gives the same bytes.
TEST(FederatedCli, FaultsFileIsCheckedAndRunsDeterministically) {
  const fs::path d = tmp_dir() / "faults";
  fs::create_directories(d);
  const std::string trace = small_trace(d);
  const std::string base = "sim --trace " + trace + " --cluster-config " + kData +
                           "megha_config_G1L1S9_C.json --arch megha --seed 2 --no-wall-clock ";
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {"network: {drop: -0.1}\n", "f.yaml:1: network.drop: expected a probability"},
           {"crashes: [{component: lm7, at: 1s, restart: 2s}]\n",
            "f.yaml:1: crashes[0].component: unknown component \"lm7\""},
           {"partitions: [{from: 5s, to: 1s, between: [gm0, lm0]}]\n",
            "partitions[0].to: expected a time after from"}}) {
    { std::ofstream(d / "f.yaml") << text; }
    const Result r =
        run(base + "--faults " + (d / "f.yaml").string() + " --out " + (d / "bad").string());
    EXPECT_EQ(r.code, 1) << text;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  }
  Result r =
      run(base + "--faults " + (d / "missing.yaml").string() + " --out " + (d / "bad").string());
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("missing.yaml"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(d / "bad" / "summary.json"));

  {
    std::ofstream(d / "f.yaml")
        << "network: {drop: 0.2}\ncrashes: [{component: gm0, at: 1s, restart: 3s}]\n";
  }
  for (const char* out : {"a", "b"}) {
    r = run(base + "--faults " + (d / "f.yaml").string() + " --out " + (d / out).string());
    ASSERT_EQ(r.code, 0) << r.output;
  }
  const std::string a = orrery::read_text_file((d / "a" / "summary.json").string());
  EXPECT_EQ(a, orrery::read_text_file((d / "b" / "summary.json").string()));
  // Every runnable task (some need constraints no worker has) launched and completed once.
  auto field = [&](const std::string& key) {
    const size_t at = a.find("\"" + key + "\": ");
    return at == std::string::npos
               ? std::string("missing")
               : a.substr(at + key.size() + 4, a.find_first_of(",\n", at) - at - key.size() - 4);
  };
  EXPECT_EQ(field("task_launches"), field("tasks_runnable")) << a;
  EXPECT_EQ(field("task_completions"), field("tasks_runnable")) << a;
  EXPECT_EQ(field("incomplete"), "false") << a;
  fs::remove_all(d);
}

TEST(FederatedCli, QuickReproWritesTheReport) {
  const fs::path d = tmp_dir();
  Result r = run("repro federated --quick --workloads syn_250 --no-reference -q --data " + kData +
                 " --out " + (d / "repro").string());
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(d / "repro/report.html"));
  EXPECT_TRUE(fs::exists(d / "repro/runs/syn_250/pigeonc_min/seed1/jobs.csv"));
  r = run("repro federated --workloads nope --out " + (d / "x").string());
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("unknown workload \"nope\""), std::string::npos) << r.output;
  fs::remove_all(d);
}

}  // namespace
