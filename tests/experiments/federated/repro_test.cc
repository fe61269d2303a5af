#include "experiments/federated/repro.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"
#include "io/k8s_objects.h"
#include "scratch_dir.h"
#include "sim/metrics.h"

namespace orrery::federated {
namespace {

namespace fs = std::filesystem;

ReproOptions tiny(const std::string& out, unsigned threads) {
  ReproOptions o;
  o.data_dir = std::string(ORRERY_DATA_DIR) + "/megha";
  o.out_dir = out;
  o.seeds = {1, 2};
  o.threads = threads;
  o.wall_clock = false;
  o.workloads = {{"syn_250", "syn_250.0.tr", 1, 2, 12}, {"yahoo", "YH1_sub.tr", 1, 90, 30}};
  return o;
}

// Independent runs on a thread pool: the outputs do not depend on the thread count.
TEST(Repro, OutputsAreCompleteAndIndependentOfThreads) {
  const orrery::testing::ScratchDir scratch("federated-repro");
  const fs::path base = scratch.root();
  const ReproResult one = run_repro(tiny((base / "one").string(), 1));
  const ReproResult two = run_repro(tiny((base / "two").string(), 2));
  EXPECT_EQ(one.runs, 2u * 8 * 2);  // workloads x profiles x seeds
  for (const char* f : {"results.csv", "summary.json", "report.html"})
    EXPECT_EQ(read_text_file((base / "one" / f).string()),
              read_text_file((base / "two" / f).string()))
        << f;
  EXPECT_TRUE(fs::exists(base / "one/runs/yahoo/megha_min_ref/seed2/summary.json"));
  const sim::Json s = sim::Json::parse(read_text_file((base / "one/summary.json").string()));
  EXPECT_EQ(s["workloads"]["syn_250"]["jobs"], 12);
  EXPECT_EQ(s["workloads"]["syn_250"]["profiles"]["megha_rand"]["paper_delay_p50_s"], 0.0015);
  const std::string html = read_text_file(one.report);
  for (const char* h : {"Figure 6: syn_250", "Figure 7: yahoo", "Figure 9", "Figure 10"})
    EXPECT_THAT(html, ::testing::HasSubstr(h));
}

TEST(Repro, MissingDataIsAnInputErrorAndWritesNothing) {
  const orrery::testing::ScratchDir scratch("federated-repro-missing");
  const fs::path out = scratch.root() / "out";
  ReproOptions o = tiny(out.string(), 1);
  o.data_dir = "/nonexistent";
  EXPECT_THROW(run_repro(o), InputError);
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace orrery::federated
