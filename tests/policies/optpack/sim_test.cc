// The packer in the simulator: scenarios/optpack/fragmentation.yaml under kube-optpack and under
// kube-default (issue 13's simulation acceptance).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "core/error.h"
#include "io/files.h"
#include "io/k8s_objects.h"
#include "io/yaml_util.h"
#include "policies/catalog.h"
#include "policies/optpack/packer.h"
#include "scratch_dir.h"
#include "sim/scenario.h"
#include "sim/simulation.h"

namespace orrery::optpack {
namespace {

struct Outcome {
  int pending_high = 0;  // pending pods of priority >= 1000 at the end
  bool over_capacity = false;
  Json summary;
};

const std::string kScenario =
    std::string(ORRERY_SOURCE_DIR) + "/scenarios/optpack/fragmentation.yaml";

Outcome run_scenario(const sim::Scenario& sc, const std::string& policy, Time duration);

Outcome run(const std::string& policy, Time duration) {
  return run_scenario(sim::load_scenario(kScenario), policy, duration);
}

// The fragmentation scenario with a KubeSchedulerConfiguration giving the plugin `args`.
Outcome run_with_args(const std::string& args, Time duration) {
  static const orrery::testing::ScratchDir dir("optpack-sim");
  const std::string config = dir.path("sched.yaml");
  std::ofstream(config) << "apiVersion: kubescheduler.config.k8s.io/v1\n"
                           "kind: KubeSchedulerConfiguration\nprofiles:\n"
                           "- schedulerName: default-scheduler\n  plugins:\n"
                           "    preFilter: {enabled: [{name: PriorityOptimalPacking}]}\n"
                           "    postFilter: {enabled: [{name: PriorityOptimalPacking}]}\n"
                           "  pluginConfig:\n  - name: PriorityOptimalPacking\n    args: " +
                               args + "\n";
  std::string text = read_text_file(kScenario);
  const std::string from = "  args: {deterministic: true}\n";
  text.replace(text.find(from), from.size(),
               "  args: {deterministic: true}\n  config: " + config + "\n");
  return run_scenario(sim::parse_scenario(text, kScenario, ORRERY_SOURCE_DIR), "", duration);
}

Outcome run_scenario(const sim::Scenario& sc, const std::string& policy, Time duration) {
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

TEST(OptpackSimulation, SyncModeAndPeriodicTriggerAlsoPlaceThePendingPods) {
  // Sync: pods outside the plan wait while it runs; the result is the same here.
  Outcome o = run_with_args("{mode: sync, timeout: 500ms}", 120 * kSecond);
  EXPECT_EQ(o.pending_high, 0);
  EXPECT_FALSE(o.over_capacity);
  EXPECT_EQ(o.summary["scheduler"]["optpack"]["plans_completed"], 1);
  // Periodic only (every 45 s): nothing happens on PostFilter; the solve at 45 s places them.
  o = run_with_args("{trigger: [periodic], period: 45s}", 40 * kSecond);
  EXPECT_EQ(o.pending_high, 2);
  EXPECT_EQ(o.summary["scheduler"]["optpack"]["solves"], 0);
  o = run_with_args("{trigger: [periodic], period: 45s}", 60 * kSecond);
  EXPECT_EQ(o.pending_high, 0);
  // On demand at 100 s.
  o = run_with_args("{trigger: [on-demand], onDemandAt: [100s]}", 90 * kSecond);
  EXPECT_EQ(o.pending_high, 2);
  o = run_with_args("{trigger: [on-demand], onDemandAt: [100s]}", 120 * kSecond);
  EXPECT_EQ(o.pending_high, 0);
}

TEST(OptpackSimulation, PluginArgsAreChecked) {
  auto parse = [](const std::string& text) {
    YAML::Node n = yaml::parse_document(text, "args.yaml");
    return parse_packer_options(yaml::Ctx{"args.yaml", n, "args"});
  };
  const PackerOptions o = parse(
      "{timeout: 2s, alpha: 0.5, mode: sync, trigger: [postfilter, periodic], period: 1m, "
      "maxPods: 500, maxNodes: 40}");
  EXPECT_DOUBLE_EQ(o.timeout_s, 2.0);
  EXPECT_DOUBLE_EQ(o.alpha, 0.5);
  EXPECT_TRUE(o.sync);
  EXPECT_TRUE(o.on_postfilter);
  EXPECT_EQ(o.period_us, 60 * kSecond);
  EXPECT_EQ(o.max_pods, 500u);
  EXPECT_EQ(o.max_nodes, 40u);
  EXPECT_THROW(parse("{timeout: 0s}"), InputError);
  EXPECT_THROW(parse("{alpha: 1.5}"), InputError);
  EXPECT_THROW(parse("{mode: later}"), InputError);
  EXPECT_THROW(parse("{trigger: [sometimes]}"), InputError);
  EXPECT_THROW(parse("{maxPods: -1}"), InputError);
  EXPECT_THROW(parse("{timout: 1s}"), InputError);
}

}  // namespace
}  // namespace orrery::optpack
