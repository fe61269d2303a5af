// The federated architectures next to the framework policies: the name table
// (architectures.h), the catalog's kind_of, the data centre as a simulator scenario
// (worker_scenario.h) and the checks TraceRunner makes before any run.
#include "policies/federated/architectures.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/error.h"
#include "fixtures.h"
#include "policies/catalog.h"
#include "policies/federated/run.h"
#include "policies/federated/trace_runner.h"
#include "policies/federated/worker_scenario.h"
#include "scratch_dir.h"
#include "sim/simulation.h"

namespace orrery::federated {
namespace {

using testing::megha_data;

TEST(Architectures, NamesSayArchitectureMatchingAndReferenceBehaviour) {
  std::set<std::string_view> names;
  for (const Architecture& a : architectures()) {
    EXPECT_TRUE(names.insert(a.name).second) << a.name;
    EXPECT_EQ(find_architecture(a.name), &a);
    EXPECT_TRUE(a.name.starts_with(arch_name(a.arch))) << a.name;
    EXPECT_EQ(a.name.find("-minc") != std::string_view::npos, a.pick == Pick::kMinConstraints);
    EXPECT_EQ(a.name.ends_with("-ref"), a.reference);
  }
  EXPECT_EQ(names.size(), 8u);
  EXPECT_EQ(find_architecture("megha_rand"), nullptr);
  EXPECT_EQ(find_architecture("kube-default"), nullptr);
  EXPECT_EQ(sim_flags(*find_architecture("megha")), "--arch megha");
  EXPECT_EQ(sim_flags(*find_architecture("pigeonc-minc-ref")),
            "--arch pigeonc --match minc --reference");
}

TEST(Architectures, ApplySetsTheReferenceBehaviourOfItsOwnArchitectureOnly) {
  RunOptions o;
  apply(*find_architecture("megha-minc-ref"), &o);
  EXPECT_EQ(o.pick, Pick::kMinConstraints);
  EXPECT_FALSE(o.retry_rejected);  // Megha's reference: rejected tasks wait in the queue
  EXPECT_FALSE(o.reference_cs);
  apply(*find_architecture("pigeonc-ref"), &o);
  EXPECT_EQ(o.pick, Pick::kRandom);
  EXPECT_TRUE(o.retry_rejected);
  EXPECT_TRUE(o.reference_cs);  // PigeonC's reference: its CS_i counting
  apply(*find_architecture("pigeonc"), &o);
  EXPECT_FALSE(o.reference_cs);
}

TEST(Architectures, TheCatalogTellsPoliciesFromArchitectures) {
  using policies::Kind;
  EXPECT_EQ(policies::kind_of("kube-default"), Kind::kPolicy);
  EXPECT_EQ(policies::kind_of("kubedsm"), Kind::kPolicy);
  EXPECT_EQ(policies::kind_of("megha"), Kind::kArchitecture);
  EXPECT_EQ(policies::kind_of("pigeonc-minc"), Kind::kArchitecture);
  EXPECT_EQ(policies::kind_of("borg"), std::nullopt);
  for (const std::string& n : policies::catalog().names())
    EXPECT_EQ(find_architecture(n), nullptr) << n << " is both a policy and an architecture";
  const std::string list = policies::name_list(true);
  EXPECT_EQ(list.rfind(policies::name_list(false), 0), 0u) << "policies first, unchanged";
  EXPECT_NE(list.find("\n  megha-minc  Megha with Minimum Constraints"), std::string::npos);
}

TEST(WorkerScenario, OneNodePerWorkerWithItsMachineConstraints) {
  // Two GMs x one LM, 3 workers per partition, 2 constraints: worker 4 (partition 2, worker 1)
  // satisfies none.
  orrery::testing::ScratchDir dir("worker-scenario");
  const ClusterConfig c =
      parse_cluster_config(testing::megha_json({{{"110", "011"}, {"101", "100"}}}), "c.json");
  const std::string trace = dir.write("t.tr", "1 2 1 1 1\n");
  const sim::Scenario sc = worker_scenario(trace, c);
  ASSERT_EQ(sc.node_groups.size(), 6u);
  EXPECT_EQ(sc.node_groups[0].node_names(), std::vector<std::string>{"worker-0"});
  EXPECT_EQ(sc.node_groups[5].node_names(), std::vector<std::string>{"worker-5"});
  const auto constraints = [&](size_t w) -> std::string {
    auto v = sc.node_groups[w].tmpl.annotations.get(std::string_view("orrery.io/constraints"));
    return v ? std::string(*v) : "(none)";
  };
  EXPECT_EQ(constraints(0), "0");
  EXPECT_EQ(constraints(1), "0,1");
  EXPECT_EQ(constraints(2), "1");
  EXPECT_EQ(constraints(3), "0,1");
  EXPECT_EQ(constraints(4), "(none)");
  EXPECT_EQ(constraints(5), "0");
  ASSERT_EQ(sc.traces.size(), 1u);
  EXPECT_EQ(sc.traces[0].trace->task_count(), 2u);
  EXPECT_EQ(sc.traces[0].tmpl.spec->constraints, 0u);  // tasks carry no constraints

  // The simulator derives each node's constraint set from the annotation.
  const fw::PolicyRegistry reg = policies::catalog();
  sim::Simulation s(sc, reg, {});
  const ClusterState& st = s.backend().state();
  ASSERT_EQ(st.nodes().size(), 6u);
  for (NodeId n : st.nodes()) {
    const Node& node = st.node(n);
    const size_t w = std::stoul(node.name.substr(node.name.find('-') + 1));
    EXPECT_EQ(node.constraints, c.groups.worker_mask(w)) << node.name;
    EXPECT_EQ(node.allocatable[kPods], 1);
  }
}

// The InputError a TraceRunner raises for these inputs, "" when it accepts them.
std::string runner_error(const TraceSetup& setup, const std::vector<std::string>& profiles) {
  try {
    TraceRunner runner(setup, profiles, policies::catalog());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(TraceRunner, ChecksEveryInputBeforeAnyRun) {
  // A configuration without task_constraint_model.json beside it: enough for a policy (which
  // draws no task constraints), an error naming the model file for an architecture.
  orrery::testing::ScratchDir dir("trace-runner");
  const std::string config =
      dir.write("alone/pigeon_C.json", testing::pigeon_json({{"110", "011"}}, 1, 20, 2));
  TraceSetup setup;
  setup.trace = dir.write("t.tr", "1 2 1 1 1\n");
  setup.cluster_configs = {config};
  EXPECT_EQ(runner_error(setup, {"kube-default"}), "");
  EXPECT_NE(
      runner_error(setup, {"kube-default", "pigeonc"}).find("alone/task_constraint_model.json"),
      std::string::npos);
  // Configurations of different workers.
  setup.cluster_configs = {config, megha_data("megha_config_G1L1S9_C.json")};
  EXPECT_NE(runner_error(setup, {"megha"}).find("pigeon_C.json (3 workers) and "),
            std::string::npos);
  // --duration would cut the policies' runs but not the architectures'.
  setup.cluster_configs = {megha_data("pigeon_config_D1M1S9_C.json")};
  setup.duration_us = 10 * sim::kSecond;
  EXPECT_EQ(runner_error(setup, {"kube-default"}), "");
  EXPECT_NE(runner_error(setup, {"kube-default", "pigeonc-minc"})
                .find("--duration: \"pigeonc-minc\" runs until every job of the trace is done"),
            std::string::npos);
  // A bad trace is named before the configurations are read.
  setup.trace = dir.write("bad.tr", "1 2 1 1\n");
  EXPECT_NE(runner_error(setup, {"kube-default"}).find("bad.tr:1:"), std::string::npos);
}

}  // namespace
}  // namespace orrery::federated
