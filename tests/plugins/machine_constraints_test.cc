// MachineConstraints: feasibility is "the node satisfies every constraint the pod requires", pods
// without constraints are untouched (PreFilter Skip), the reason string, and a property test
// against naive set inclusion.
#include <gtest/gtest.h>

#include <set>

#include "core/rng.h"
#include "harness.h"

namespace orrery::plugins {
namespace {

using testing::config_with;
using testing::Harness;
using testing::node_doc;
using testing::pod_doc;

const std::string kDefaultPlusConstraints =
    "apiVersion: kubescheduler.config.k8s.io/v1\n"
    "kind: KubeSchedulerConfiguration\n"
    "profiles:\n"
    "- plugins:\n"
    "    multiPoint:\n"
    "      enabled: [{name: MachineConstraints}]\n";

std::string constrained_node(const std::string& name, const std::string& ids) {
  return node_doc(name, "{cpu: 4, memory: 4Gi}",
                  ids.empty() ? "{}" : "{orrery.io/constraints: \"" + ids + "\"}");
}

std::string constrained_pod(const std::string& name, const std::string& ids) {
  return pod_doc(name, {"{cpu: 1}"}, "",
                 ids.empty() ? "" : "annotations: {orrery.io/constraints: \"" + ids + "\"}");
}

TEST(MachineConstraints, NodeMustSatisfyEveryRequiredConstraint) {
  Harness h(constrained_node("a", "1,4,5") + constrained_node("b", "1") +
                constrained_node("c", "") + constrained_pod("needs-1-4", "1,4") +
                constrained_pod("needs-1", "1") + constrained_pod("free", ""),
            config_with({"MachineConstraints"}));
  EXPECT_EQ(h.feasible("needs-1-4"), std::set<std::string>{"a"});
  EXPECT_EQ(h.feasible("needs-1"), (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(h.feasible("free"), (std::set<std::string>{"a", "b", "c"}));
  EXPECT_EQ(h.evaluate("needs-1-4")["b"].reasons,
            std::vector<std::string>{"node(s) didn't satisfy the pod's machine constraints"});
}

TEST(MachineConstraints, FitErrorIsUnresolvableSoPreemptionDoesNotTry) {
  Harness h(constrained_node("a", "2") + constrained_node("b", "") + constrained_pod("p", "3"),
            kDefaultPlusConstraints);
  std::vector<fw::ScheduleOutcome> outs;
  auto placed = h.schedule_all(&outs);
  EXPECT_EQ(placed["p"], "");
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].message,
            "0/2 nodes are available: 2 node(s) didn't satisfy the pod's machine constraints. "
            "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
}

// Evicting a lower-priority pod frees the cpu on a, but a still lacks constraint 3: preemption
// finds no victims there (filters appended by multiPoint run after NodeResourcesFit, so a is
// reported as Insufficient cpu first, as upstream reports a node's first failing filter). As
// upstream's SelectVictimsOnNode, the dry run's failing filter status becomes the node's
// preemption reason.
TEST(MachineConstraints, PreemptionNeverEvictsOnANodeLackingTheConstraints) {
  Harness h(constrained_node("a", "2") + constrained_node("b", "") +
                pod_doc("low", {"{cpu: 4}"}, "nodeName: a\npriority: 0") +
                pod_doc("p", {"{cpu: 1}"}, "priority: 100",
                        "annotations: {orrery.io/constraints: \"2,3\"}"),
            kDefaultPlusConstraints);
  std::vector<fw::ScheduleOutcome> outs;
  auto placed = h.schedule_all(&outs);
  EXPECT_EQ(placed["p"], "");
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_TRUE(outs[0].victims.empty());
  EXPECT_EQ(
      outs[0].message,
      "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't satisfy the pod's "
      "machine constraints. preemption: 0/2 nodes are available: 1 Preemption is not helpful for "
      "scheduling, 1 node(s) didn't satisfy the pod's machine constraints.");
}

TEST(MachineConstraints, DefaultProfileWithPluginPlacesOnlyOnSatisfyingNodes) {
  Harness h(constrained_node("a", "0") + constrained_node("b", "0,7") + constrained_node("c", "") +
                constrained_pod("p1", "7") + constrained_pod("p2", "7") + constrained_pod("p3", ""),
            kDefaultPlusConstraints);
  auto placed = h.schedule_all();
  EXPECT_EQ(placed["p1"], "b");
  EXPECT_EQ(placed["p2"], "b");
  EXPECT_NE(placed["p3"], "");
}

// Property: on random constraint sets, the feasible nodes are exactly those whose set includes
// the pod's (naive std::set inclusion).
TEST(MachineConstraints, MatchesNaiveSetInclusion) {
  Rng rng(20261122);
  for (int trial = 0; trial < 40; ++trial) {
    auto random_set = [&](int max_ids) {
      std::set<int> s;
      const int k = static_cast<int>(rng.uniform_int(0, max_ids));
      for (int i = 0; i < k; ++i) s.insert(static_cast<int>(rng.uniform_int(0, 9)));
      return s;
    };
    auto join = [](const std::set<int>& s) {
      std::string out;
      for (int id : s) out += (out.empty() ? "" : ",") + std::to_string(id);
      return out;
    };
    std::string objs;
    std::vector<std::set<int>> node_sets;
    for (int n = 0; n < 6; ++n) {
      node_sets.push_back(random_set(8));
      objs += constrained_node("n" + std::to_string(n), join(node_sets.back()));
    }
    const std::set<int> pod_set = random_set(3);
    objs += constrained_pod("p", join(pod_set));
    Harness h(objs, config_with({"MachineConstraints"}));
    std::set<std::string> expected;
    for (int n = 0; n < 6; ++n) {
      bool ok = true;
      for (int id : pod_set) ok = ok && node_sets[n].count(id);
      if (ok) expected.insert("n" + std::to_string(n));
    }
    EXPECT_EQ(h.feasible("p"), expected) << "trial " << trial << " pod {" << join(pod_set) << "}";
  }
}

}  // namespace
}  // namespace orrery::plugins
