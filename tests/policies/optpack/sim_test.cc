// The packer in the simulator: scenarios/optpack/fragmentation.yaml under kube-optpack and under
// kube-default (issue 13's simulation acceptance).
#include <gtest/gtest.h>

#include <string>

#include "policies/catalog.h"
#include "sim/scenario.h"
#include "sim/simulation.h"

namespace orrery::optpack {
namespace {

struct Outcome {
  int pending_high = 0;  // pending pods of priority >= 1000 at the end
  bool over_capacity = false;
  Json summary;
};

Outcome run(const std::string& policy, Time duration) {
  const sim::Scenario sc =
      sim::load_scenario(std::string(ORRERY_SOURCE_DIR) + "/scenarios/optpack/fragmentation.yaml");
  const fw::PolicyRegistry reg = policies::catalog();
  sim::RunOptions opt;
  opt.policy = policy;
  opt.duration = duration;
  opt.wall_clock = false;
  sim::Simulation s(sc, reg, opt);
  s.run();
  Outcome o;
  const ClusterState& st = s.backend().state();
  for (PodId p : st.pods())
    if (st.pod_node(p) == kNoNode && !is_terminal(st.pod(p).phase) &&
        st.pod(p).spec->priority >= 1000)
      ++o.pending_high;
  for (NodeId n : st.nodes())
    if (!st.requested_of(n).fits_in(st.allocatable_of(n))) o.over_capacity = true;
  o.summary = s.summary();
  return o;
}

TEST(OptpackSimulation, FewerPendingHighPriorityPodsThanKubeDefaultOverTime) {
  for (Time t : {20 * kSecond, 60 * kSecond, 120 * kSecond, 180 * kSecond}) {
    SCOPED_TRACE(t);
    const Outcome opt = run("kube-optpack", t);
    const Outcome kube = run("kube-default", t);
    EXPECT_FALSE(opt.over_capacity);
    EXPECT_FALSE(kube.over_capacity);
    if (t < 30 * kSecond) {  // before job b arrives, both place everything
      EXPECT_EQ(opt.pending_high, 0);
      EXPECT_EQ(kube.pending_high, 0);
    } else {
      EXPECT_EQ(kube.pending_high, 2);  // fragmentation that preemption cannot fix
      EXPECT_EQ(opt.pending_high, 0);
    }
  }
}

TEST(OptpackSimulation, OnePlanWithMovesAndNoEvictionCompletes) {
  const Outcome o = run("kube-optpack", 180 * kSecond);
  const Json& op = o.summary["scheduler"]["optpack"];
  EXPECT_EQ(op["plans"], 1);
  EXPECT_EQ(op["plans_completed"], 1);
  EXPECT_EQ(op["plans_cancelled"], 0);
  EXPECT_EQ(op["evictions"], 0);
  EXPECT_EQ(op["moves"], 2);
  EXPECT_EQ(op["new_binds"], 2);
  const Json& steps = op["plan_history"][0]["steps"];
  ASSERT_EQ(steps.size(), 8u);  // 2 evict, 2 create (replacements), 4 bind
  EXPECT_EQ(steps[0]["action"], "evict");
  EXPECT_EQ(steps[1]["action"], "evict");
  EXPECT_EQ(steps[7]["action"], "bind");
  EXPECT_EQ(op["plan_history"][0]["status"], "completed");
}

}  // namespace
}  // namespace orrery::optpack
