// Sweeps split across processes (`--shard I/N`) and merged (`orrery merge`) give the outputs of
// one whole run, byte for byte: every file, same names, same bytes. Run as a user would, with
// the real binary; and every way to get a merge wrong fails with exit 1 and a message.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_orrery.h"
#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;
const auto run = orrery::testing::run_orrery;

std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    out[fs::relative(e.path(), dir).string()] = ss.str();
  }
  return out;
}

// Every file of `whole` is in `merged` with the same bytes, and no other file.
void expect_same_files(const fs::path& whole, const fs::path& merged) {
  const auto a = files_of(whole), b = files_of(merged);
  ASSERT_FALSE(a.empty());
  for (const auto& [name, bytes] : a) {
    auto it = b.find(name);
    ASSERT_NE(it, b.end()) << name << " missing from the merged output";
    EXPECT_TRUE(it->second == bytes)
        << name << " differs (" << bytes.size() << " vs " << it->second.size() << " bytes)";
  }
  for (const auto& [name, bytes] : b) EXPECT_TRUE(a.count(name)) << "extra file " << name;
}

// Runs `command` whole into DIR/whole and as `n` shards DIR/s<i>, merges the shards (in reverse
// order: the order of the directories does not matter) into DIR/merged.
void whole_shards_merge(const std::string& command, int n, const fs::path& dir) {
  const auto whole = run(command + " --out " + (dir / "whole").string());
  ASSERT_EQ(whole.code, 0) << whole.output;
  std::string dirs;
  for (int i = n - 1; i >= 0; --i) {
    const fs::path s = dir / ("s" + std::to_string(i));
    const auto r = run(command + " --shard " + std::to_string(i) + "/" + std::to_string(n) +
                       " --out " + s.string());
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("shard " + std::to_string(i) + "/" + std::to_string(n) + ":"),
              std::string::npos)
        << r.output;
    EXPECT_TRUE(fs::exists(s / "shard.json"));
    EXPECT_FALSE(fs::exists(s / "summary.json")) << "a shard writes no tables or report";
    dirs += " " + s.string();
  }
  const auto m = run("merge" + dirs + " --out " + (dir / "merged").string());
  ASSERT_EQ(m.code, 0) << m.output;
  expect_same_files(dir / "whole", dir / "merged");
}

TEST(ShardMerge, KubedsmQuickFourShardProcessesEqualOneWholeRun) {
  const orrery::testing::ScratchDir tmp("shard-kubedsm");
  whole_shards_merge("repro kubedsm --quick", 4, tmp.root());
  EXPECT_TRUE(fs::exists(tmp.root() / "merged/kubedsm.html"));
  EXPECT_TRUE(fs::exists(tmp.root() / "merged/scenarios"));
}

TEST(ShardMerge, FederatedRunsFilesAreCopiedFromTheirShards) {
  const orrery::testing::ScratchDir tmp("shard-federated");
  whole_shards_merge(
      "repro federated --quick --workloads syn_250 --no-reference --no-wall-clock "
      "-q --seeds 1,2 --data " +
          std::string(ORRERY_DATA_DIR) + "/megha",
      3, tmp.root());
  EXPECT_TRUE(fs::exists(tmp.root() / "merged/runs/syn_250/megha_rand/seed2/summary.json"));
}

TEST(ShardMerge, CompareSeedsShardsEqualOneWholeRun) {
  const orrery::testing::ScratchDir tmp("shard-compare");
  whole_shards_merge("compare " + std::string(ORRERY_SOURCE_DIR) +
                         "/scenarios/oom.yaml --profiles kube-default,random --seeds 1..3 "
                         "--no-wall-clock -q -j 1",
                     2, tmp.root());
}

TEST(ShardMerge, BadShardsAndBadMergesFailWithExitOneAndSayWhy) {
  const orrery::testing::ScratchDir tmp("shard-errors");
  const fs::path d = tmp.root();
  const std::string cmd = "repro kubedsm --quick --seeds 1";
  for (const char* bad : {"4/4", "0/0", "x", "1/-2"}) {
    const auto r = run(cmd + " --shard " + bad + " --out " + (d / "bad").string());
    EXPECT_EQ(r.code, 1) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("--shard: expected I/N"), std::string::npos) << r.output;
  }
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(run(cmd + " --shard " + std::to_string(i) + "/3 --out " +
                  (d / ("s" + std::to_string(i))).string())
                  .code,
              0);
  ASSERT_EQ(run("repro kubedsm --quick --seeds 2 --shard 1/3 --out " + (d / "t1").string()).code,
            0);
  const std::string s0 = (d / "s0").string(), s1 = (d / "s1").string(), s2 = (d / "s2").string(),
                    t1 = (d / "t1").string();
  const std::string out = " --out " + (d / "merged").string();
  const std::pair<std::string, std::string> cases[] = {
      {"merge " + s0 + " " + s2, "missing shard(s) 1/3"},
      {"merge " + s0 + " " + s1 + " " + s1 + " " + s2, "shard 1/3 given twice"},
      {"merge " + s0 + " " + t1 + " " + s2, "a shard of a different command or options"},
      {"merge " + (d / "nothing").string(), "no shard.json"},
      {cmd + " --shard 0/3 --merge-shards " + s0 + " " + s1 + " " + s2, "not both"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = run(args + out);
    EXPECT_EQ(r.code, 1) << args << ": " << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << ": " << r.output;
    EXPECT_FALSE(fs::exists(d / "merged/summary.json")) << args;
  }
  // The right three merge.
  EXPECT_EQ(run("merge " + s2 + " " + s0 + " " + s1 + out).code, 0);
  EXPECT_TRUE(fs::exists(d / "merged/summary.json"));
}

// deploy/sweep/'s commands as the Indexed Job and the merge Job run them: the index substituted
// for $(JOB_COMPLETION_INDEX), the shared volume a scratch directory, and --quick appended (the
// manifest runs the full sweep). The merged directory equals one whole run of the same command.
TEST(ShardMerge, DeployManifestsCommandsMergeToTheWholeRun) {
  const orrery::testing::ScratchDir tmp("shard-deploy");
  const std::string deploy = std::string(ORRERY_SOURCE_DIR) + "/deploy/sweep/";
  const auto args_of = [](const std::string& file) {
    const YAML::Node job = YAML::LoadFile(file);
    std::vector<std::string> a;
    for (const auto& x : job["spec"]["template"]["spec"]["containers"][0]["args"])
      a.push_back(x.as<std::string>());
    return std::make_pair(job["spec"]["completions"].as<int>(), a);
  };
  const auto substitute = [&](std::string w, int index) {
    const std::string var = "$(JOB_COMPLETION_INDEX)";
    for (size_t at; (at = w.find(var)) != std::string::npos;)
      w.replace(at, var.size(), std::to_string(index));
    if (w.rfind("/sweep", 0) == 0) w = tmp.root().string() + w;
    return w;
  };
  const auto [n, shard_args] = args_of(deploy + "shards-job.yaml");
  ASSERT_EQ(n, 4);
  std::string whole;
  for (size_t i = 0; i < shard_args.size(); ++i) {
    if (shard_args[i] == "--shard" || shard_args[i] == "--out") {
      ++i;
      continue;
    }
    whole += " " + shard_args[i];
  }
  ASSERT_EQ(run(whole + " --quick --out " + tmp.path("whole")).code, 0);
  for (int i = 0; i < n; ++i) {
    std::string cmd;
    for (const std::string& a : shard_args) cmd += " " + substitute(a, i);
    cmd += " --quick";
    const auto r = run(cmd);
    ASSERT_EQ(r.code, 0) << cmd << ": " << r.output;
  }
  std::string merge;
  for (const std::string& a : args_of(deploy + "merge-job.yaml").second)
    merge += " " + substitute(a, 0);
  const auto m = run(merge);
  ASSERT_EQ(m.code, 0) << merge << ": " << m.output;
  expect_same_files(tmp.root() / "whole", tmp.root() / "sweep/merged");  // merge-job.yaml's --out
}

}  // namespace
