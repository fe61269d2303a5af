// Exactness fixes for real cluster dumps: nodes keep the labels and figures they report (no
// invented kubernetes.io/hostname, no default pod capacity), PostFilter after a PreFilter
// rejection, and node-affinity terms with invalid label values.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/error.h"
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

std::string required(const std::string& terms) {
  return "affinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n"
         "      nodeSelectorTerms:\n" +
         terms;
}

TEST(NodeAffinityInvalid, TestNodeAffinityPodWithAnInvalidValueInAffinityTermWontBeScheduled) {
  // node_affinity_test.go TestNodeAffinity "Pod with an invalid value in Affinity term won't be
  // scheduled onto the node": NotIn ["invalid value: ___@#$%^"] on a node labelled foo=bar would
  // match as a plain comparison, but the term does not parse: ErrReasonPod.
  Harness h(node_doc("n", "{cpu: 1}", "{foo: bar}") +
                pod_doc("p", {""},
                        required("      - matchExpressions: [{key: foo, operator: NotIn, values: "
                                 "[\"invalid value: ___@#$%^\"]}]\n")),
            config_with({"NodeAffinity"}));
  EXPECT_EQ(h.evaluate("p")["n"].reasons,
            std::vector<std::string>{"node(s) didn't match Pod's node affinity/selector"});
}

TEST(NodeAffinityInvalid, OtherTermsStillMatch) {
  // LazyErrorNodeSelector: terms are ORed; an invalid one only never matches itself.
  Harness h(node_doc("n", "{cpu: 1}", "{foo: bar}") +
                pod_doc("p", {""},
                        required("      - matchExpressions: [{key: foo, operator: DoesNotExist}, "
                                 "{key: x, operator: In, values: [\"a b\"]}]\n"
                                 "      - matchExpressions: [{key: foo, operator: In, values: "
                                 "[bar]}]\n")) +
                pod_doc("gt", {""},
                        required("      - matchExpressions: [{key: gen, operator: Gt, values: "
                                 "[\"x\"]}]\n")) +
                pod_doc("plus", {""},
                        required("      - matchExpressions: [{key: gen, operator: Lt, values: "
                                 "[\"+9\"]}]\n")),
            config_with({"NodeAffinity"}));
  EXPECT_TRUE(h.evaluate("p")["n"].feasible);
  // A Gt value that is no integer, or "+9" (an integer for strconv, but no valid label value):
  // never matches.
  EXPECT_FALSE(h.evaluate("gt")["n"].feasible);
  EXPECT_FALSE(h.evaluate("plus")["n"].feasible);
}

TEST(NodeAffinityInvalid, FieldSelectorNeedsExactlyOneValue) {
  // nodeSelectorRequirementsAsFieldSelector: metadata.name In with two values "must have one
  // element": the term never matches (PreFilter still narrows to the names, as upstream).
  Harness h(node_doc("n1", "{cpu: 1}") + node_doc("n2", "{cpu: 1}") +
                pod_doc("p", {""},
                        required("      - matchFields: [{key: metadata.name, operator: In, "
                                 "values: [n1, n2]}]\n")),
            config_with({"NodeAffinity"}));
  auto e = h.evaluate("p");
  EXPECT_EQ(e["n1"].reasons,
            std::vector<std::string>{"node(s) didn't match Pod's node affinity/selector"});
  EXPECT_FALSE(e["n2"].feasible);
}

TEST(NodeAffinityInvalid, InvalidPreferredTermFailsPreScore) {
  // getPodPreferredNodeAffinity → NewPreferredSchedulingTerms: an error, with upstream's field
  // errors; the pod is not scheduled.
  Harness h(node_doc("n1", "{cpu: 1}") + node_doc("n2", "{cpu: 1}") +
                pod_doc("p", {""},
                        "affinity:\n  nodeAffinity:\n"
                        "    preferredDuringSchedulingIgnoredDuringExecution:\n"
                        "    - {weight: 1, preference: {matchExpressions: [{key: zone, operator: "
                        "In, values: [a]}]}}\n"
                        "    - {weight: 2, preference: {matchExpressions: [{key: zone, operator: "
                        "In, values: [\"a b\"]}]}}\n"),
            config_with({"NodeAffinity"}));
  std::vector<fw::ScheduleOutcome> outs;
  auto placed = h.schedule_all(&outs);
  EXPECT_EQ(placed["p"], "");
  ASSERT_FALSE(outs.empty());
  EXPECT_EQ(outs[0].message,
            "running PreScore plugin \"NodeAffinity\": [1].matchExpressions[0].values[0][zone]: "
            "Invalid value: \"a b\": a valid label must be an empty string or consist of "
            "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
            "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  EXPECT_EQ(outs.size(), 1u) << "parked with the unschedulable pods, not retried in a loop";
}

TEST(NodeAffinityInvalid, InvalidAddedAffinityIsAConfigError) {
  try {
    testing::profiles_from(config_with(
        {"NodeAffinity"},
        "  pluginConfig:\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n"
        "        requiredDuringSchedulingIgnoredDuringExecution:\n          nodeSelectorTerms:\n"
        "          - matchExpressions: [{key: zone, operator: Gt, values: [\"ten\"]}]\n"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "addedAffinity: requiredDuringSchedulingIgnoredDuringExecution."
                  "nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: \"ten\": for "
                  "'Gt', 'Lt' operators, the value must be an integer"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace orrery::plugins
