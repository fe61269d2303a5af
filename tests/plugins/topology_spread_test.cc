// PodTopologySpread: hard constraints (skew, missing label, minDomains, inclusion policies,
// preemption what-if updates) and soft-constraint scores recomputed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "harness.h"

namespace orrery::plugins {
namespace {

using testing::config_with;
using testing::Harness;
using testing::node_doc;
using testing::pod_doc;

const char* kPts = "PodTopologySpread";

std::string spread(const std::string& constraints) {
  return "topologySpreadConstraints:\n" + constraints;
}
std::string zone_hard(int skew, const std::string& extra = "") {
  return "- {maxSkew: " + std::to_string(skew) +
         ", topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: "
         "{app: web}}" +
         extra + "}\n";
}
std::string web(const std::string& name, const std::string& node) {
  return pod_doc(name, {""}, "nodeName: " + node, "labels: {app: web}");
}

// zone1: a (1 web), b (1 web); zone2: x (1 web), y (0); z has no zone label.
std::string four_nodes() {
  return node_doc("a", "{cpu: 1}", "{zone: z1}") + node_doc("b", "{cpu: 1}", "{zone: z1}") +
         node_doc("x", "{cpu: 1}", "{zone: z2}") + node_doc("y", "{cpu: 1}", "{zone: z2}") +
         node_doc("z", "{cpu: 1}") + web("w1", "a") + web("w2", "b") + web("w3", "x");
}

TEST(PodTopologySpread, HardSkewAndMissingLabel) {
  // zone1 has 2 matching pods, zone2 1: placing in zone1 gives 2 + 1 - 1 = 2 > 1.
  Harness h(four_nodes() + pod_doc("p", {""}, spread(zone_hard(1)), "labels: {app: web}"),
            config_with({kPts}));
  auto e = h.evaluate("p");
  EXPECT_EQ(h.feasible("p"), (std::set<std::string>{"x", "y"}));
  EXPECT_EQ(e["a"].reasons,
            std::vector<std::string>{"node(s) didn't match pod topology spread constraints"});
  EXPECT_EQ(e["z"].reasons, std::vector<std::string>{
                                "node(s) didn't match pod topology spread constraints (missing "
                                "required label)"});
  // maxSkew 2 allows zone1.
  Harness loose(four_nodes() + pod_doc("p", {""}, spread(zone_hard(2)), "labels: {app: web}"),
                config_with({kPts}));
  EXPECT_EQ(loose.feasible("p"), (std::set<std::string>{"a", "b", "x", "y"}));
}

// metav1.LabelSelectorAsSelector, which filterTopologySpreadConstraints applies: an absent
// labelSelector is labels.Nothing() (no pod counts, not even the incoming one), `{}` is
// labels.Everything() (every pod of the namespace counts). orrery took `{}` as Nothing before the
// brute-force property test covered explicit constraints.
TEST(PodTopologySpread, EmptySelectorSelectsEverythingAbsentSelectsNothing) {
  auto hard = [](const std::string& selector) {
    return spread("- {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule" + selector +
                  "}\n");
  };
  // `{}`: zone1 holds 2 pods, zone2 1; zone1 gives 2 + 1 - 1 = 2 > 1 even for a pod without
  // labels (it matches Everything, itself included).
  Harness all(four_nodes() + pod_doc("p", {""}, hard(", labelSelector: {}")), config_with({kPts}));
  EXPECT_EQ(all.feasible("p"), (std::set<std::string>{"x", "y"}));
  // Absent: nothing is counted, every labelled node passes; z still lacks the key.
  Harness none(four_nodes() + pod_doc("p", {""}, hard(""), "labels: {app: web}"),
               config_with({kPts}));
  EXPECT_EQ(none.feasible("p"), (std::set<std::string>{"a", "b", "x", "y"}));
}

TEST(PodTopologySpread, SelfMatchAndOtherNamespaces) {
  // The incoming pod does not match its own selector: skew 2 + 0 - 1 = 1 is fine everywhere.
  Harness h(four_nodes() + pod_doc("p", {""}, spread(zone_hard(1))) +
                pod_doc("other/p2", {""}, spread(zone_hard(1)), "labels: {app: web}"),
            config_with({kPts}));
  EXPECT_EQ(h.feasible("p"), (std::set<std::string>{"a", "b", "x", "y"}));
  // Pods of other namespaces are not counted: every zone has 0 matching pods for other/p2.
  EXPECT_EQ(h.feasible("other/p2"), (std::set<std::string>{"a", "b", "x", "y"}));
}

TEST(PodTopologySpread, MinDomains) {
  // Only two zones exist; with minDomains 3 the global minimum counts as 0, so zone2 (1 + 1 - 0)
  // exceeds maxSkew 1 too.
  Harness h(four_nodes() +
                pod_doc("p", {""}, spread(zone_hard(1, ", minDomains: 3")), "labels: {app: web}"),
            config_with({kPts}));
  EXPECT_EQ(h.feasible("p"), std::set<std::string>{});
}

TEST(PodTopologySpread, NodeAffinityPolicy) {
  // The pod only selects zone2 nodes. With nodeAffinityPolicy Honor (default) zone1 is not a
  // domain: the minimum is zone2's 1, so x/y (1 + 1 - 1 = 1) fit. With Ignore, zone1 counts (2)
  // and the minimum is still 1: the same here; but selecting zone1 only shows the difference:
  // Honor → minimum 2 (zone1 alone), a/b fit (2 + 1 - 2 = 1); Ignore → minimum 1, skew 2 > 1.
  const std::string sel = "nodeSelector: {zone: z1}\n";
  Harness honor(four_nodes() + pod_doc("p", {""}, sel + spread(zone_hard(1)), "labels: {app: web}"),
                config_with({kPts, "NodeAffinity"}));
  EXPECT_EQ(honor.feasible("p"), (std::set<std::string>{"a", "b"}));
  Harness ignore(
      four_nodes() + pod_doc("p", {""}, sel + spread(zone_hard(1, ", nodeAffinityPolicy: Ignore")),
                             "labels: {app: web}"),
      config_with({kPts, "NodeAffinity"}));
  EXPECT_EQ(ignore.feasible("p"), std::set<std::string>{});
}

TEST(PodTopologySpread, NodeTaintsPolicy) {
  // y is tainted. Honor: zone2 consists of x only (1 pod); Ignore (default): y counts as well;
  // either way the minimum is 1. Put the web pod on y instead to see a difference:
  // zone1 = 2, zone2 = 1 (on tainted y). Honor drops y from zone2 → zone2 still a domain via x
  // with 0 pods → minimum 0 → zone1 2 + 1 - 0 = 3 > 2, zone2 (x) 0 + 1 = 1.
  const std::string nodes =
      node_doc("a", "{cpu: 1}", "{zone: z1}") + node_doc("b", "{cpu: 1}", "{zone: z1}") +
      node_doc("x", "{cpu: 1}", "{zone: z2}") +
      node_doc("y", "{cpu: 1}", "{zone: z2}", "{taints: [{key: t, effect: NoSchedule}]}") +
      web("w1", "a") + web("w2", "b") + web("w3", "y");
  Harness ignore(nodes + pod_doc("p", {""}, spread(zone_hard(2)), "labels: {app: web}"),
                 config_with({kPts}));
  EXPECT_EQ(ignore.feasible("p"), (std::set<std::string>{"a", "b", "x", "y"}));
  Harness honor(nodes + pod_doc("p", {""}, spread(zone_hard(2, ", nodeTaintsPolicy: Honor")),
                                "labels: {app: web}"),
                config_with({kPts}));
  EXPECT_EQ(honor.feasible("p"), (std::set<std::string>{"x", "y"}));
}

TEST(PodTopologySpread, MatchLabelKeys) {
  // matchLabelKeys adds pod-template-hash=v2 to the selector: v1 pods are not counted.
  std::string objs =
      node_doc("a", "{cpu: 1}", "{zone: z1}") + node_doc("x", "{cpu: 1}", "{zone: z2}");
  objs += pod_doc("old1", {""}, "nodeName: a", "labels: {app: web, pod-template-hash: v1}");
  objs += pod_doc("old2", {""}, "nodeName: a", "labels: {app: web, pod-template-hash: v1}");
  objs += pod_doc("new", {""}, "nodeName: x", "labels: {app: web, pod-template-hash: v2}");
  objs += pod_doc("p", {""}, spread(zone_hard(1, ", matchLabelKeys: [pod-template-hash]")),
                  "labels: {app: web, pod-template-hash: v2}");
  Harness h(objs, config_with({kPts}));
  EXPECT_EQ(h.feasible("p"), (std::set<std::string>{"a"}));
}

TEST(PodTopologySpread, ScoreHostnameConstraint) {
  // hostname, maxSkew 1, ScheduleAnyway; matching pods n1: 2, n2: 1, n3: 0. Three candidate
  // nodes → weight ln(3 + 2). Raw: n1 round(2·1.609) = 3, n2 round(1.609) = 2, n3 0.
  // Normalised 100·(max + min - s)/max: n1 0, n2 33, n3 100.
  std::string objs = node_doc("n1", "{cpu: 1}", "{kubernetes.io/hostname: n1}") +
                     node_doc("n2", "{cpu: 1}", "{kubernetes.io/hostname: n2}") +
                     node_doc("n3", "{cpu: 1}", "{kubernetes.io/hostname: n3}") + web("a", "n1") +
                     web("b", "n1") + web("c", "n2");
  objs += pod_doc("p", {""},
                  spread("- {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: "
                         "ScheduleAnyway, labelSelector: {matchLabels: {app: web}}}\n"),
                  "labels: {app: web}");
  Harness h(objs, config_with({kPts}));
  auto s = h.scores("p", kPts);
  EXPECT_EQ(s["n1"], 0);
  EXPECT_EQ(s["n2"], 33);
  EXPECT_EQ(s["n3"], 100);
}

TEST(PodTopologySpread, ScoreZoneConstraint) {
  // zone z1 = {n1, n2} with 1 + 2 pods, z2 = {n3} with 1; 2 domains → weight ln 4 = 1.386.
  // Raw: z1 round(3·1.386) = 4, z2 round(1.386) = 1. Normalised: n1, n2 100·(4+1-4)/4 = 25,
  // n3 100·(4+1-1)/4 = 100. n4 lacks the zone label: ignored → 0.
  std::string objs = node_doc("n1", "{cpu: 1}", "{zone: z1}") +
                     node_doc("n2", "{cpu: 1}", "{zone: z1}") +
                     node_doc("n3", "{cpu: 1}", "{zone: z2}") + node_doc("n4", "{cpu: 1}") +
                     web("a", "n1") + web("b", "n2") + web("c", "n2") + web("d", "n3");
  objs += pod_doc("p", {""},
                  spread("- {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, "
                         "labelSelector: {matchLabels: {app: web}}}\n"),
                  "labels: {app: web}");
  Harness h(objs, config_with({kPts}));
  auto s = h.scores("p", kPts);
  EXPECT_EQ(s["n1"], 25);
  EXPECT_EQ(s["n2"], 25);
  EXPECT_EQ(s["n3"], 100);
  EXPECT_EQ(s["n4"], 0);
}

TEST(PodTopologySpread, SystemDefaultsUseOwnerAndToleratMissingZone) {
  // Pods of ReplicaSet rs-1 get the system defaults (hostname maxSkew 3, zone maxSkew 5) with
  // "same owner" as selector. Nodes have no zone label: hostname spreading still applies and no
  // node is ignored. Pods on n1: 2 of rs-1, 1 of rs-2 (not counted).
  // hostname weight ln(2 + 2) = 1.386: n1 round(2·1.386 + 2) = 5, n2 round(0 + 2) = 2; the zone
  // constraint contributes nothing (no node has the label).
  // Normalised: n1 100·(5+2-5)/5 = 40, n2 100·(5+2-2)/5 = 100.
  auto owned = [](const std::string& name, const std::string& rs, const std::string& node) {
    return pod_doc(name, {""}, node.empty() ? "" : "nodeName: " + node,
                   "ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: " + rs +
                       ", controller: true}]");
  };
  std::string objs = node_doc("n1", "{cpu: 1}", "{kubernetes.io/hostname: n1}") +
                     node_doc("n2", "{cpu: 1}", "{kubernetes.io/hostname: n2}") +
                     owned("a", "rs-1", "n1") + owned("b", "rs-1", "n1") +
                     owned("c", "rs-2", "n1") + owned("p", "rs-1", "") + pod_doc("orphan", {""});
  Harness h(objs, config_with({kPts}));
  auto s = h.scores("p", kPts);
  EXPECT_EQ(s["n1"], 40);
  EXPECT_EQ(s["n2"], 100);
  // A pod without controller gets no default constraints (PreScore skips: 0 everywhere).
  auto o = h.scores("orphan", kPts);
  EXPECT_EQ(o["n1"], 0);
  EXPECT_EQ(o["n2"], 0);
}

TEST(PodTopologySpread, ListDefaultingRequiresAllKeys) {
  // defaultingType List with a zone constraint: nodes without the key are ignored in scoring.
  std::string cfg =
      config_with({kPts},
                  "  pluginConfig:\n  - name: PodTopologySpread\n    args:\n"
                  "      defaultingType: List\n      defaultConstraints:\n"
                  "      - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}\n");
  std::string objs = node_doc("n1", "{cpu: 1}", "{zone: z1}") + node_doc("n2", "{cpu: 1}") +
                     pod_doc("p", {""}, "",
                             "ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: r, "
                             "controller: true}]");
  Harness h(objs, cfg);
  auto s = h.scores("p", kPts);
  EXPECT_EQ(s["n1"], 100);
  EXPECT_EQ(s["n2"], 0);
}

}  // namespace
}  // namespace orrery::plugins
