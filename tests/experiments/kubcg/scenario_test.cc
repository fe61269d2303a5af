// KubCG in the simulator: the paper's cluster and images (evaluation.h), the feedback loop, the
// switch, incompatibility learning, and the acceptance scenario (20 mixed pods in batches).
#include <gtest/gtest.h>

#include "experiments/kubcg/evaluation.h"

namespace orrery::kubcg {
namespace {

const std::vector<Record>& history() {
  static const std::vector<Record> h = warm_up(100, 1);
  return h;
}

TEST(KubcgSim, WarmUpRecordsEveryRunAndLearnsTensorflowOnCpu1AndCpu2) {
  const auto& h = history();
  EXPECT_EQ(h.size(), 400u);  // 100 per image
  auto store = open_history("sqlite::memory:");
  store->insert(h);
  EXPECT_EQ(store->incompatible(),
            (std::vector<std::pair<std::string, std::string>>{{"kubcg/tensorflow:cpu", "node-1"},
                                                              {"kubcg/tensorflow:cpu", "node-2"}}));
  // The statistics reflect the per-node run times: matrix on node-5, CPU vs GPU ≈ 28.4 (plus
  // the container creation time T_Cr of 2–4 s in both).
  StatsCache c;
  c.load(store->statistics());
  const auto* cpu = c.find("kubcg/matrix:cpu", "node-5", Resource::kCpu);
  const auto* gpu = c.find("kubcg/matrix:gpu", "node-5", Resource::kGpu);
  ASSERT_TRUE(cpu && gpu);
  EXPECT_NEAR(cpu->min_s, 284 + 3, 1.5);
  EXPECT_NEAR(gpu->min_s, 10 + 3, 1.5);
  for (const Record& r : h) {
    EXPECT_GE(r.t_create_s, 2 - 1e-6);
    EXPECT_LE(r.t_create_s, 4 + 1e-6);
  }
}

TEST(KubcgSim, SwitchesImagesAndNeverRetriesIncompatibleNodes) {
  // 12 tensorflow pods at once: KubCG+GPU uses GPUs and CPU3–5 only, never node-1/node-2.
  std::vector<Arrival> a;
  for (int i = 0; i < 12; ++i) a.push_back({0, 3});
  const RunResult r = run_case(Case::kKCpuGpu, a, history(), 3);
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.failed_runs, 0);
  EXPECT_GT(r.switches, 0);
  for (const auto& [where, n] : r.placements) {
    EXPECT_EQ(where.find("node-1"), std::string::npos) << where;
    EXPECT_EQ(where.find("node-2"), std::string::npos) << where;
  }
  EXPECT_GT(r.placements.count("node-4/GPU"), 0u);
}

TEST(KubcgSim, LearnsAnIncompatibilityFromAFailedRunWithoutHistory) {
  // No history at all: the first tensorflow pods go to idle nodes (cold start), fail on node-1
  // or node-2, are retried, and KubCG never sends tensorflow there again.
  std::vector<Arrival> a;
  for (int i = 0; i < 6; ++i) a.push_back({i * 10.0, 3});
  std::vector<std::string> why;
  const RunResult r = run_case(Case::kKCpu, a, {}, 5, &why);
  ASSERT_TRUE(r.complete);
  EXPECT_GE(r.failed_runs, 1);
  EXPECT_LE(r.failed_runs, 2);  // at most once per CPU-only node
  ASSERT_FALSE(why.empty());
  EXPECT_NE(why.front().find("cold start"), std::string::npos) << why.front();
}

TEST(KubcgSim, WaitsForTheGpuWhenThatIsFaster) {
  // Three matrix pods at once: GPU 10 s vs CPU ≥ 260 s. Two GPUs are fast, GPU3 is slow (40 s):
  // the pods never run on a CPU.
  std::vector<Arrival> a;
  for (int i = 0; i < 6; ++i) a.push_back({0, 2});
  const RunResult r = run_case(Case::kKCpuGpu, a, history(), 2);
  ASSERT_TRUE(r.complete);
  for (const auto& [where, n] : r.placements)
    EXPECT_NE(where.find("/GPU"), std::string::npos) << where;
  EXPECT_GT(r.gpu_waits, 0);
  EXPECT_LT(r.makespan_s, 60);
}

// Acceptance: concurrent batches of 20 mixed pods (5 of each image): KubCG+GPU's total
// completion time is at most 80 % of kube-default's (the better of D-CPU and D-GPU).
TEST(KubcgSim, MixedBatchOf20CompletesWithin80PercentOfKubeDefault) {
  for (uint64_t seed : {1, 2, 3}) {
    std::vector<Arrival> a;
    for (int i = 0; i < 20; ++i) a.push_back({0, i % 4});
    const RunResult k = run_case(Case::kKCpuGpu, a, history(), seed);
    const RunResult dc = run_case(Case::kDCpu, a, history(), seed);
    const RunResult dg = run_case(Case::kDGpu, a, history(), seed);
    ASSERT_TRUE(k.complete && dc.complete && dg.complete);
    const double best_default = std::min(dc.makespan_s, dg.makespan_s);
    EXPECT_LE(k.makespan_s, 0.8 * best_default)
        << "seed " << seed << ": K-CPU+GPU " << k.makespan_s << " s, D-CPU " << dc.makespan_s
        << " s, D-GPU " << dg.makespan_s << " s";
  }
}

}  // namespace
}  // namespace orrery::kubcg
