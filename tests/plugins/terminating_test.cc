// Pods being deleted (metadata.deletionTimestamp → Pod::terminating): a pending one is never
// scheduled (upstream skipPodSchedule); PodTopologySpread does not count them (upstream
// countPodsMatchSelector, #87621).
#include <gtest/gtest.h>

#include <set>

#include "harness.h"

namespace orrery::plugins {
namespace {

using testing::config_with;
using testing::Harness;
using testing::node_doc;
using testing::pod_doc;

const char* kPts = "PodTopologySpread";
const char* kDeleting = "deletionTimestamp: 2024-05-01T12:00:00Z";

std::string foo_pod(const std::string& name, const std::string& node, bool terminating) {
  return pod_doc(name, {""}, "nodeName: " + node,
                 std::string("labels: {foo: \"\"}") + (terminating ? "\n" + std::string(kDeleting) : ""));
}

TEST(Terminating, PendingPodBeingDeletedIsNeverScheduled) {
  Harness h(node_doc("n1", "{cpu: 4, memory: 4Gi}") + pod_doc("gone", {"{cpu: 1}"}, "", kDeleting) +
                pod_doc("live", {"{cpu: 1}"}),
            config_with({"NodeResourcesFit"}));
  EXPECT_TRUE(h.state().pod(h.pod("gone")).terminating);
  std::vector<fw::ScheduleOutcome> outcomes;
  auto placed = h.schedule_all(&outcomes);
  EXPECT_EQ(placed["gone"], "");
  EXPECT_EQ(placed["live"], "n1");
  int attempts = 0;
  for (const auto& o : outcomes) {
    if (o.pod != h.pod("gone")) continue;
    ++attempts;
    EXPECT_FALSE(o.scheduled);
    EXPECT_EQ(o.message, "skip schedule deleting pod: default/gone");
  }
  EXPECT_EQ(attempts, 1) << "dropped from the queue, not retried";
  EXPECT_EQ(h.scheduler->queue().active_size(), 0u);
}

TEST(Terminating, TestSingleConstraintTerminatingPodsShouldBeExcluded) {
  // filtering_test.go TestSingleConstraint "terminating Pods should be excluded": maxSkew 1 on
  // key "node"; p-a (terminating) on node-a, p-b on node-b → node-a fits, node-b is rejected.
  Harness h(node_doc("node-a", "{cpu: 1}", "{node: node-a}") +
                node_doc("node-b", "{cpu: 1}", "{node: node-b}") + foo_pod("p-a", "node-a", true) +
                foo_pod("p-b", "node-b", false) +
                pod_doc("p", {""},
                        "topologySpreadConstraints:\n- {maxSkew: 1, topologyKey: node, "
                        "whenUnsatisfiable: DoNotSchedule, labelSelector: {matchExpressions: "
                        "[{key: foo, operator: Exists}]}}",
                        "labels: {foo: \"\"}"),
            config_with({kPts}));
  auto e = h.evaluate("p");
  EXPECT_TRUE(e["node-a"].feasible);
  EXPECT_EQ(e["node-b"].reasons,
            std::vector<std::string>{"node(s) didn't match pod topology spread constraints"});
}

TEST(Terminating, TestPodTopologySpreadScoreTerminatingPodsShouldBeExcluded) {
  // scoring_test.go TestPodTopologySpreadScore "terminating Pods should be excluded": hostname,
  // ScheduleAnyway, maxSkew 1; node-a holds only a terminating pod → node-a 100, node-b 0.
  Harness h(node_doc("node-a", "{cpu: 1}", "{kubernetes.io/hostname: node-a}") +
                node_doc("node-b", "{cpu: 1}", "{kubernetes.io/hostname: node-b}") +
                foo_pod("p-a", "node-a", true) + foo_pod("p-b", "node-b", false) +
                pod_doc("p", {""},
                        "topologySpreadConstraints:\n- {maxSkew: 1, topologyKey: "
                        "kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, "
                        "labelSelector: {matchExpressions: [{key: foo, operator: Exists}]}}",
                        "labels: {foo: \"\"}"),
            config_with({kPts}));
  auto s = h.scores("p", kPts);
  EXPECT_EQ(s["node-a"], 100);
  EXPECT_EQ(s["node-b"], 0);
}

TEST(Terminating, DefaultSpreadingDoesNotCountReplicasBeingDeleted) {
  // System default spreading counts the controller's replicas per node from ClusterState's group
  // counts: a replica being deleted leaves them, at load time or when it starts terminating.
  auto owned = [](const std::string& name, const std::string& node, bool terminating) {
    return pod_doc(name, {""}, node.empty() ? "" : "nodeName: " + node,
                   "ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, "
                   "controller: true}]" +
                       (terminating ? "\n" + std::string(kDeleting) : std::string()));
  };
  Harness h(node_doc("n1", "{cpu: 1}", "{kubernetes.io/hostname: n1}") +
                node_doc("n2", "{cpu: 1}", "{kubernetes.io/hostname: n2}") +
                owned("a", "n1", true) + owned("b", "n2", false) + owned("p", "", false),
            config_with({kPts}));
  const GroupId g = h.state().pod_group(h.pod("p"));
  EXPECT_EQ(h.state().group_count(g, 0), 0);
  EXPECT_EQ(h.state().group_count(g, 1), 1);
  // hostname weight ln 4: n1 round(0 + 2) = 2, n2 round(1.386 + 2) = 3 → n1 100·(3+2-2)/3 = 100,
  // n2 100·(3+2-3)/3 = 66.
  auto s = h.scores("p", kPts);
  EXPECT_EQ(s["n1"], 100);
  EXPECT_EQ(s["n2"], 66);
  h.state().set_terminating(h.pod("b"));
  EXPECT_EQ(h.state().group_count(g, 1), 0);
  EXPECT_EQ(h.state().requested(kPods)[1], 1) << "it keeps its room until it is gone";
}

}  // namespace
}  // namespace orrery::plugins
