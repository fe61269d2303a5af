// The kube-default profile end to end: upstream messages, queue order, tie-breaking, evaluate().
#include <gtest/gtest.h>

#include <set>

#include "harness.h"
#include "plugins/register.h"

namespace orrery::plugins {
namespace {

using testing::Harness;
using testing::node_doc;
using testing::pod_doc;

const std::string kDefault =
    "apiVersion: kubescheduler.config.k8s.io/v1\n"
    "kind: KubeSchedulerConfiguration\n";
const std::string kDeterministic = kDefault + "profiles:\n- deterministic: true\n";

TEST(DefaultProfile, IssueExampleMessage) {
  std::string objs;
  for (int i = 0; i < 3; ++i)
    objs += node_doc("small-" + std::to_string(i), "{cpu: 500m, memory: 1Gi}");
  for (int i = 0; i < 2; ++i) {
    objs += node_doc("tainted-" + std::to_string(i), "{cpu: 8, memory: 8Gi}", "{}",
                     "{taints: [{key: k, value: v, effect: NoSchedule}]}");
  }
  objs += pod_doc("p", {"{cpu: 1}"});
  Harness h(objs, kDefault);
  std::vector<fw::ScheduleOutcome> outs;
  auto placed = h.schedule_all(&outs);
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(placed["p"], "");
  // The small nodes are too small for the pod even when empty (UnschedulableAndUnresolvable since
  // v1.30), so preemption has no candidate at all.
  EXPECT_EQ(outs[0].message,
            "0/5 nodes are available: 2 node(s) had untolerated taint {k: v}, 3 Insufficient cpu. "
            "preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.");
}

TEST(DefaultProfile, NoPreemptionVictimsMessage) {
  // Busy nodes that would fit the pod when empty, but hold pods of equal priority.
  std::string objs;
  for (int i = 0; i < 3; ++i) {
    const std::string n = "busy-" + std::to_string(i);
    objs += node_doc(n, "{cpu: 1500m, memory: 1Gi}") +
            pod_doc("x" + std::to_string(i), {"{cpu: 1}"}, "nodeName: " + n);
  }
  for (int i = 0; i < 2; ++i) {
    objs += node_doc("tainted-" + std::to_string(i), "{cpu: 8, memory: 8Gi}", "{}",
                     "{taints: [{key: k, value: v, effect: NoSchedule}]}");
  }
  objs += pod_doc("p", {"{cpu: 1}"});
  Harness h(objs, kDefault);
  std::vector<fw::ScheduleOutcome> outs;
  h.schedule_all(&outs);
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].message,
            "0/5 nodes are available: 2 node(s) had untolerated taint {k: v}, 3 Insufficient cpu. "
            "preemption: 0/5 nodes are available: 2 Preemption is not helpful for scheduling, 3 No "
            "preemption victims found for incoming pod.");
}

TEST(DefaultProfile, UnschedulableAndSelectorReasons) {
  Harness h(node_doc("cordoned", "{cpu: 4, memory: 4Gi}", "{}", "{unschedulable: true}") +
                node_doc("other-zone", "{cpu: 4, memory: 4Gi}", "{zone: b}") +
                pod_doc("p", {"{cpu: 1}"}, "nodeSelector: {zone: a}"),
            kDefault);
  std::vector<fw::ScheduleOutcome> outs;
  h.schedule_all(&outs);
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].message,
            "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 "
            "node(s) were unschedulable. preemption: 0/2 nodes are available: 2 Preemption is not "
            "helpful for scheduling.");
}

TEST(DefaultProfile, PreemptionPolicyNever) {
  Harness h(node_doc("n", "{cpu: 1, memory: 1Gi}") + pod_doc("low", {"{cpu: 1}"}, "nodeName: n") +
                pod_doc("high", {"{cpu: 1}"}, "priority: 100\npreemptionPolicy: Never"),
            kDefault);
  std::vector<fw::ScheduleOutcome> outs;
  h.schedule_all(&outs);
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to "
            "preemptionPolicy=Never.");
}

TEST(DefaultProfile, QueueOrderIsPriorityThenCreation) {
  // One node with room for one pod at a time is not needed: record the order of attempts.
  std::string objs = node_doc("n", "{cpu: 100, memory: 100Gi}");
  objs += pod_doc("late-low", {"{cpu: 1}"}, "priority: 1",
                  "creationTimestamp: \"2024-01-01T00:00:03Z\"");
  objs += pod_doc("early-low", {"{cpu: 1}"}, "priority: 1",
                  "creationTimestamp: \"2024-01-01T00:00:01Z\"");
  objs +=
      pod_doc("high", {"{cpu: 1}"}, "priority: 50", "creationTimestamp: \"2024-01-01T00:00:05Z\"");
  objs +=
      pod_doc("mid", {"{cpu: 1}"}, "priority: 10", "creationTimestamp: \"2024-01-01T00:00:02Z\"");
  Harness h(objs, kDefault);
  std::vector<fw::ScheduleOutcome> outs;
  h.schedule_all(&outs);
  std::vector<std::string> order;
  for (auto& o : outs) order.push_back(h.state().pod(o.pod).name);
  EXPECT_EQ(order, (std::vector<std::string>{"high", "mid", "early-low", "late-low"}));
}

TEST(DefaultProfile, DeterministicTiesPickSmallestName) {
  Harness h(node_doc("n-b", "{cpu: 4, memory: 4Gi}") + node_doc("n-a", "{cpu: 4, memory: 4Gi}") +
                node_doc("n-c", "{cpu: 4, memory: 4Gi}") + pod_doc("p", {"{cpu: 1}"}),
            kDeterministic);
  EXPECT_EQ(h.schedule_all()["p"], "n-a");
}

TEST(DefaultProfile, SpreadsReplicasByDefault) {
  // Four replicas of one ReplicaSet on four equal nodes: the system default spreading (hostname,
  // maxSkew 3) plus LeastAllocated put them on four different nodes.
  std::string objs;
  for (int i = 0; i < 4; ++i) objs += node_doc("n" + std::to_string(i), "{cpu: 4, memory: 4Gi}");
  for (int i = 0; i < 4; ++i) {
    objs += pod_doc("web-" + std::to_string(i), {"{cpu: 100m, memory: 100Mi}"}, "",
                    "labels: {app: web}\nownerReferences: [{kind: ReplicaSet, name: web-1, "
                    "apiVersion: apps/v1, controller: true}]");
  }
  Harness h(objs, kDeterministic);
  auto placed = h.schedule_all();
  std::set<std::string> nodes;
  for (auto& [pod, node] : placed) nodes.insert(node);
  EXPECT_EQ(nodes.size(), 4u);
}

TEST(DefaultProfile, EvaluateReportsEveryScorePlugin) {
  Harness h(
      node_doc("a", "{cpu: 4, memory: 4Gi}") +
          node_doc("b", "{cpu: 2, memory: 4Gi}", "{}", "{taints: [{key: x, effect: NoSchedule}]}") +
          pod_doc("p", {"{cpu: 1, memory: 1Gi}"}),
      kDefault);
  auto e = h.evaluate("p");
  ASSERT_TRUE(e["a"].feasible);
  EXPECT_FALSE(e["b"].feasible);
  EXPECT_EQ(e["b"].reasons, std::vector<std::string>{"node(s) had untolerated taint {x: }"});
  std::map<std::string, int64_t> s(e["a"].scores.begin(), e["a"].scores.end());
  ASSERT_EQ(s.size(), 7u);
  EXPECT_EQ(s["TaintToleration"], 100);
  EXPECT_EQ(s["NodeAffinity"], 0);       // skipped: no preferred terms
  EXPECT_EQ(s["PodTopologySpread"], 0);  // skipped: no constraints, no owner
  EXPECT_EQ(s["InterPodAffinity"], 0);   // skipped: no pod (anti-)affinity anywhere
  // Fit: cpu (4000-1000)*100/4000 = 75, memory 75 → 75; balanced: 0.25 vs 0.25 → 100.
  EXPECT_EQ(s["NodeResourcesFit"], 75);
  EXPECT_EQ(s["NodeResourcesBalancedAllocation"], 100);
  EXPECT_EQ(s["ImageLocality"], 0);  // no node reports images
  EXPECT_EQ(e["a"].total, 3 * 100 + 75 + 100);
}

}  // namespace
}  // namespace orrery::plugins
