// The top-level command line: --version, unknown commands, a missing command.
#include <gtest/gtest.h>

#include "run_orrery.h"

namespace orrery::testing {
namespace {

TEST(MainCli, VersionPrintsTheVersionAndWhatTheBinaryWasBuiltFrom) {
  for (const char* args : {"--version", "version"}) {
    const RunResult r = run_orrery(args);
    EXPECT_EQ(r.code, 0) << args;
    EXPECT_EQ(r.output.rfind("orrery 0.1.0\n", 0), 0u) << r.output;
    EXPECT_NE(r.output.find("commit: "), std::string::npos);
    EXPECT_NE(r.output.find("compiler: GNU"), std::string::npos);
  }
}

TEST(MainCli, AMistypedCommandGetsTheClosestCommand) {
  const RunResult r = run_orrery("schedul --cluster x.yaml");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.output,
            "orrery: error: unknown command \"schedul\" (did you mean \"schedule\"?); run `orrery "
            "--help` for the list\n");
  const RunResult far = run_orrery("frobnicate");
  EXPECT_EQ(far.code, 1);
  EXPECT_EQ(far.output.find("did you mean"), std::string::npos) << far.output;
}

TEST(MainCli, NoCommandIsAnErrorAfterTheHelp) {
  const RunResult r = run_orrery("");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("orrery: error: a command is required"), std::string::npos);
}

TEST(MainCli, ASeedTooLargeForSixtyFourBitsIsAnErrorNotClamped) {
  const RunResult r =
      run_orrery("sim scenarios/oom.yaml --seed 99999999999999999999999 --out /nonexistent");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("--seed: out of range: \"99999999999999999999999\""), std::string::npos)
      << r.output;
}

TEST(MainCli, AnEmptySnapshotIsAnError) {
  for (const char* cmd : {"schedule --cluster /dev/null",
                          "score --cluster /dev/null --pod tests/data/schedule/pod.yaml"}) {
    const RunResult r = run_orrery(cmd);
    EXPECT_EQ(r.code, 1) << cmd;
    EXPECT_NE(r.output.find("/dev/null: the cluster has no nodes"), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace orrery::testing
