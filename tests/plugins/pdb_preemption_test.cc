// PodDisruptionBudgets in DefaultPreemption: filterPodsWithPDBViolation, the reprieve order of
// SelectVictimsOnNode and pickOneNodeForPreemption's first criterion, following upstream v1.34's
// TestDryRunPreemption PDB cases ("preemption with violation of the pdb with pod whose eviction
// was processed, the victim doesn't belong to DisruptedPods" / "... belongs to DisruptedPods" /
// "... is treated as 'nonViolating'") and TestSelectBestCandidate's ordering.
#include <gtest/gtest.h>

#include "harness.h"
#include "io/k8s_objects.h"
#include "plugins/defaultpreemption/default_preemption.h"

namespace orrery::plugins {
namespace {

using testing::Harness;
using testing::node_doc;
using testing::pod_doc;

const std::string kConfig =
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    "profiles:\n- deterministic: true\n";

std::string bound(const std::string& name, const std::string& node, int prio,
                  const std::string& labels = "{}", const std::string& ns = "default") {
  return pod_doc(ns + "/" + name, {"{cpu: 1}"},
                 "nodeName: " + node + "\npriority: " + std::to_string(prio),
                 "labels: " + labels + "\ncreationTimestamp: \"2024-01-01T00:00:00Z\"");
}
std::string pdb(const std::string& selector, int allowed, const std::string& disrupted = "{}") {
  return "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: pdb, "
         "namespace: default}\nspec: {minAvailable: 1, selector: " +
         selector + "}\nstatus: {disruptionsAllowed: " + std::to_string(allowed) +
         ", disruptedPods: " + disrupted + "}\n";
}
const std::string kPreemptor = pod_doc("p", {"{cpu: 1}"}, "priority: 100");

// (nominated node, victims) of p's first attempt.
std::pair<std::string, std::vector<std::string>> preempt(const std::string& objects) {
  Harness h(objects + kPreemptor, kConfig);
  h.scheduler->enqueue_pending();
  while (auto o = h.scheduler->schedule_next()) {
    if (h.state().pod(o->pod).name != "p") continue;
    std::vector<std::string> victims;
    for (const auto& d : h.backend.deletions()) victims.push_back(split_pod_key(d.pod).second);
    return {o->nominated_node == kNoNode ? "" : h.state().node(o->nominated_node).name, victims};
  }
  return {};
}

const std::string kTwoNodes =
    node_doc("node1", "{cpu: 1, memory: 1Gi}") + node_doc("node2", "{cpu: 1, memory: 1Gi}");

TEST(PdbPreemption, FewestViolationsFirst) {
  // Without the budget node1 wins (its victim has the lower priority); p1's eviction would take
  // the budget below 0, so node2 (no violation) is chosen.
  const std::string pods = bound("p1", "node1", 1, "{app: foo}") + bound("p2", "node2", 5);
  EXPECT_EQ(preempt(kTwoNodes + pods).first, "node1");
  EXPECT_EQ(preempt(kTwoNodes + pods + pdb("{matchLabels: {app: foo}}", 0)).first, "node2");
  // The budget allows one disruption: no violation, node1 again.
  EXPECT_EQ(preempt(kTwoNodes + pods + pdb("{matchLabels: {app: foo}}", 1)).first, "node1");
}

TEST(PdbPreemption, TestDryRunPreemptionDisruptedPods) {
  // Both victims match; disruptionsAllowed 0. "the victim which belongs to DisruptedPods is
  // treated as 'nonViolating'": p1 is listed, so node1 has 0 violations and node2 1.
  const std::string pods =
      bound("p1", "node1", 5, "{app: foo}") + bound("p2", "node2", 1, "{app: foo}");
  EXPECT_EQ(preempt(kTwoNodes + pods +
                    pdb("{matchLabels: {app: foo}}", 0, "{p1: \"2024-01-01T00:00:00Z\"}"))
                .first,
            "node1");
  // Nobody listed: both violate, the lower priority decides (node2).
  EXPECT_EQ(preempt(kTwoNodes + pods + pdb("{matchLabels: {app: foo}}", 0)).first, "node2");
}

TEST(PdbPreemption, ViolatingVictimsAreReprievedFirst) {
  // node cpu 2: a (prio 1, protected by a budget with no disruption left) and b (prio 2), 1 cpu
  // each; p needs 1 cpu. Without the budget b (more important) is reprieved and a evicted; with
  // it, a is tried first, kept, and b is the victim.
  const std::string objects = node_doc("n", "{cpu: 2, memory: 1Gi}") +
                              bound("a", "n", 1, "{app: foo}") + bound("b", "n", 2);
  EXPECT_EQ(preempt(objects).second, std::vector<std::string>{"a"});
  EXPECT_EQ(preempt(objects + pdb("{matchLabels: {app: foo}}", 0)).second,
            std::vector<std::string>{"b"});
}

TEST(PdbPreemption, SelectorsAndNamespaces) {
  ClusterState st = build_cluster(parse_k8s_objects(
      node_doc("n", "{cpu: 4}") + bound("a", "n", 1, "{app: foo}") +
          bound("b", "n", 1, "{app: foo}", "other") + bound("c", "n", 1) +
          bound("d", "n", 1, "{app: foo}") + pdb("{matchLabels: {app: foo}}", 1) +
          "---\nkind: PodDisruptionBudget\nmetadata: {name: empty}\nspec: {selector: {}}\n"
          "status: {disruptionsAllowed: 0}\n",
      "t.yaml"));
  std::vector<PodId> pods;
  for (const char* key : {"default/a", "other/b", "default/c", "default/d"}) {
    auto [ns, name] = split_pod_key(key);
    pods.push_back(*st.find_pod(ns, name));
  }
  std::vector<PodId> violating, non_violating;
  split_by_pdb_violation(st, pods, &violating, &non_violating);
  // a takes the budget to 0, d below it; b is in another namespace, c has no labels; the empty
  // selector matches nothing.
  EXPECT_EQ(violating, std::vector<PodId>{pods[3]});
  EXPECT_EQ(non_violating, (std::vector<PodId>{pods[0], pods[1], pods[2]}));
}

}  // namespace
}  // namespace orrery::plugins
