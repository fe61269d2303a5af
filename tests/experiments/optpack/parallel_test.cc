// The solver portfolio on several threads at once, as `orrery repro optpack --jobs N` runs it:
// every instance's outcome is the one it has when solved alone. Under the tsan preset this is the
// race check of the portfolio (local search, branch-and-bound, CBC) — docs/RELIABILITY.md.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/sweep.h"
#include "experiments/optpack/evaluation.h"

namespace orrery::optpack {
namespace {

TEST(OptpackParallel, PortfolioOnTwoThreadsGivesEachInstanceItsSequentialOutcome) {
  // Post-baseline snapshots that leave pods pending (so the portfolio has work to do).
  std::vector<std::string> snapshots;
  for (uint64_t seed = 0; snapshots.size() < 4 && seed < 200; ++seed) {
    BaselineRun b = run_baseline(generate_instance_yaml({4, 4, 2, 105}, seed));
    if (b.pending > 0) snapshots.push_back(std::move(b.snapshot_yaml));
  }
  ASSERT_EQ(snapshots.size(), 4u);
  OptimizeOptions so;
  so.deterministic = true;  // work units, so the answer does not depend on the threads' speed
  so.timeout_s = 0.2;
  const auto solve = [&](size_t i) { return evaluate_snapshot(snapshots[i], so); };
  std::vector<InstanceOutcome> alone;
  for (size_t i = 0; i < snapshots.size(); ++i) alone.push_back(solve(i));
  const std::vector<InstanceOutcome> together = run_sweep(snapshots.size(), 2, solve);
  ASSERT_EQ(together.size(), alone.size());
  for (size_t i = 0; i < alone.size(); ++i) {
    SCOPED_TRACE("instance " + std::to_string(i));
    EXPECT_EQ(together[i].category, alone[i].category);
    EXPECT_EQ(together[i].placed_before, alone[i].placed_before);
    EXPECT_EQ(together[i].placed_after, alone[i].placed_after);
    EXPECT_DOUBLE_EQ(together[i].delta_cpu_pct, alone[i].delta_cpu_pct);
    EXPECT_DOUBLE_EQ(together[i].delta_mem_pct, alone[i].delta_mem_pct);
  }
}

}  // namespace
}  // namespace orrery::optpack
