// Exactness fixes for real cluster dumps: nodes keep the labels and figures they report (no
// invented kubernetes.io/hostname, no default pod capacity), PostFilter after a PreFilter
// rejection, and node-affinity terms with invalid label values.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "harness.h"

namespace orrery::plugins {
namespace {

using testing::config_with;
using testing::Harness;
using testing::node_doc;
using testing::pod_doc;

const std::string kDefault =
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

// A Node document exactly as given (node_doc adds a pods figure).
std::string raw_node(const std::string& name, const std::string& labels,
                     const std::string& allocatable) {
  return "---\nkind: Node\nmetadata: {name: " + name + ", labels: " + labels +
         "}\nstatus: {allocatable: " + allocatable + "}\n";
}

TEST(NodeLabels, HostnameSpreadingRejectsNodesWithoutTheLabel) {
  // A hard kubernetes.io/hostname constraint: the node that reports no hostname label is
  // "missing required label" (upstream), not silently given one.
  Harness h(raw_node("with", "{kubernetes.io/hostname: with}", "{cpu: 1, pods: 110}") +
                raw_node("without", "{}", "{cpu: 1, pods: 110}") +
                pod_doc("p", {""},
                        "topologySpreadConstraints:\n- {maxSkew: 1, topologyKey: "
                        "kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, "
                        "labelSelector: {matchLabels: {app: a}}}",
                        "labels: {app: a}"),
            config_with({"PodTopologySpread"}));
  auto e = h.evaluate("p");
  EXPECT_TRUE(e["with"].feasible);
  EXPECT_EQ(e["without"].reasons,
            std::vector<std::string>{
                "node(s) didn't match pod topology spread constraints (missing required label)"});
}

TEST(NodeLabels, HostnameScoringIgnoresNodesWithoutTheLabel) {
  // ScheduleAnyway on hostname (the pod's own constraint: every key required): the unlabelled
  // node is ignored in scoring (0), the labelled one scores 100.
  Harness h(raw_node("with", "{kubernetes.io/hostname: with}", "{cpu: 1, pods: 110}") +
                raw_node("without", "{}", "{cpu: 1, pods: 110}") +
                pod_doc("p", {""},
                        "topologySpreadConstraints:\n- {maxSkew: 1, topologyKey: "
                        "kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, "
                        "labelSelector: {matchLabels: {app: a}}}",
                        "labels: {app: a}"),
            config_with({"PodTopologySpread"}));
  auto s = h.scores("p", "PodTopologySpread");
  EXPECT_EQ(s["with"], 100);
  EXPECT_EQ(s["without"], 0);
}

TEST(NodeCapacity, NodeWithoutPodsAllocatableTakesNoPod) {
  // NodeInfo.Allocatable.AllowedPodNumber is 0 without a "pods" figure: "Too many pods".
  Harness h(raw_node("no-pods", "{}", "{cpu: 4, memory: 4Gi}") +
                raw_node("ok", "{}", "{cpu: 4, memory: 4Gi, pods: 110}") +
                pod_doc("p", {"{cpu: 1}"}),
            config_with({"NodeResourcesFit"}));
  auto e = h.evaluate("p");
  EXPECT_EQ(e["no-pods"].reasons, std::vector<std::string>{"Too many pods"});
  EXPECT_TRUE(e["ok"].feasible);
}

TEST(PostFilter, RunsAfterAPreFilterRejection) {
  // NodeAffinity's PreFilter rejects pins to disjoint node names ("pod affinity terms conflict",
  // UnschedulableAndUnresolvable). Upstream still runs PostFilter: preemption finds every node
  // unresolvable and says so.
  const std::string pins =
      "affinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n"
      "      nodeSelectorTerms:\n      - matchFields: [{key: metadata.name, operator: In, "
      "values: [n1]}, {key: metadata.name, operator: In, values: [n2]}]\n";
  Harness h(node_doc("n1", "{cpu: 1}") + node_doc("n2", "{cpu: 1}") +
                pod_doc("conflict", {""}, pins) +
                pod_doc("never", {""}, pins + "preemptionPolicy: Never\n"),
            kDefault);
  std::vector<fw::ScheduleOutcome> outs;
  h.schedule_all(&outs);
  std::map<std::string, std::string> message;
  for (const auto& o : outs) message[h.state().pod(o.pod).name] = o.message;
  EXPECT_EQ(message["conflict"],
            "0/2 nodes are available: pod affinity terms conflict. preemption: 0/2 nodes are "
            "available: 2 Preemption is not helpful for scheduling.");
  EXPECT_EQ(message["never"],
            "0/2 nodes are available: pod affinity terms conflict. preemption: not eligible due "
            "to preemptionPolicy=Never.");
}

}  // namespace
}  // namespace orrery::plugins
