// TaintToleration, NodeAffinity, NodeUnschedulable and NodeName: filter reasons, matching rules
// (taint/toleration semantics, selector operators, matchFields) and upstream's score examples.
#include <gtest/gtest.h>

#include <set>

#include "harness.h"
#include "plugins/nodename/node_name.h"
#include "plugins/tainttoleration/taint_toleration.h"

namespace orrery::plugins {
namespace {

using testing::config_with;
using testing::Harness;
using testing::node_doc;
using testing::pod_doc;

std::string taints(const std::string& list) {
  return "{taints: " + list + "}";
}

TEST(TaintToleration, FilterUsesFirstUntoleratedHardTaint) {
  Harness h(node_doc("a", "{cpu: 1}", "{}",
                     taints("[{key: soft, effect: PreferNoSchedule}, {key: gpu, value: \"true\", "
                            "effect: NoSchedule}, {key: evict, effect: NoExecute}]")) +
                node_doc("b", "{cpu: 1}", "{}", taints("[{key: evict, effect: NoExecute}]")) +
                node_doc("c", "{cpu: 1}") + pod_doc("plain", {""}) +
                pod_doc("gpu", {""},
                        "tolerations: [{key: gpu, operator: Equal, value: \"true\", effect: "
                        "NoSchedule}]") +
                pod_doc("all", {""}, "tolerations: [{operator: Exists}]"),
            config_with({"TaintToleration"}));
  auto plain = h.evaluate("plain");
  EXPECT_EQ(plain["a"].reasons,
            std::vector<std::string>{"node(s) had untolerated taint {gpu: true}"});
  EXPECT_EQ(plain["b"].reasons,
            std::vector<std::string>{"node(s) had untolerated taint {evict: }"});
  EXPECT_TRUE(plain["c"].feasible);
  // Tolerating gpu moves the rejection on a to the next hard taint.
  EXPECT_EQ(h.evaluate("gpu")["a"].reasons,
            std::vector<std::string>{"node(s) had untolerated taint {evict: }"});
  EXPECT_EQ(h.feasible("all"), (std::set<std::string>{"a", "b", "c"}));
}

TEST(TaintToleration, TolerationMatchingRules) {
  const Taint t{intern("k"), intern("v"), TaintEffect::kNoSchedule};
  auto tol = [](const char* key, TolerationOp op, const char* value, TaintEffect e) {
    Toleration x;
    x.key = intern(key);
    x.op = op;
    x.value = intern(value);
    x.effect = e;
    return x;
  };
  EXPECT_TRUE(tol("k", TolerationOp::kEqual, "v", TaintEffect::kNoSchedule).tolerates(t));
  EXPECT_FALSE(tol("k", TolerationOp::kEqual, "w", TaintEffect::kNoSchedule).tolerates(t));
  EXPECT_TRUE(tol("k", TolerationOp::kExists, "", TaintEffect::kNone).tolerates(t));
  EXPECT_FALSE(tol("k", TolerationOp::kExists, "", TaintEffect::kNoExecute).tolerates(t));
  EXPECT_TRUE(tol("", TolerationOp::kExists, "", TaintEffect::kNone).tolerates(t));
  EXPECT_FALSE(tol("other", TolerationOp::kExists, "", TaintEffect::kNone).tolerates(t));
}

TEST(TaintToleration, ScoreCountsIntolerablePreferNoSchedule) {
  // taint_toleration_test.go "the more intolerable taints a node has, the lower score it gets":
  // pod tolerates foo=bar:PreferNoSchedule; A has no taint (0), B one intolerable taint (1),
  // C two (2) → reversed normalisation by max 2: 100, 50, 0.
  const std::string pref = "effect: PreferNoSchedule";
  Harness h(
      node_doc("A", "{cpu: 1}") +
          node_doc("B", "{cpu: 1}", "{}", taints("[{key: cpu-type, value: arm64, " + pref + "}]")) +
          node_doc("C", "{cpu: 1}", "{}",
                   taints("[{key: cpu-type, value: arm64, " + pref +
                          "}, {key: disk-type, value: ssd, " + pref + "}]")) +
          pod_doc("p", {""},
                  "tolerations: [{key: foo, operator: Equal, value: bar, " + pref + "}]"),
      config_with({"TaintToleration"}));
  auto s = h.scores("p", "TaintToleration");
  EXPECT_EQ(s["A"], 100);
  EXPECT_EQ(s["B"], 50);
  EXPECT_EQ(s["C"], 0);
}

TEST(TaintToleration, ScoreIgnoresTolerationsForOtherEffects) {
  // A toleration with effect NoSchedule does not tolerate PreferNoSchedule taints in scoring;
  // one without effect does.
  Harness h(node_doc("A", "{cpu: 1}", "{}", taints("[{key: k, effect: PreferNoSchedule}]")) +
                node_doc("B", "{cpu: 1}") +
                pod_doc("nosched", {""},
                        "tolerations: [{key: k, operator: Exists, effect: NoSchedule}]") +
                pod_doc("any", {""}, "tolerations: [{key: k, operator: Exists}]"),
            config_with({"TaintToleration"}));
  EXPECT_EQ(h.scores("nosched", "TaintToleration")["A"], 0);
  EXPECT_EQ(h.scores("nosched", "TaintToleration")["B"], 100);
  EXPECT_EQ(h.scores("any", "TaintToleration")["A"], 100);
}

TEST(TaintToleration, UniformScoreOnlyWithoutPreferNoScheduleTaints) {
  // uniform_score() must equal score() + normalize() on every node, and be given only when no
  // node has a PreferNoSchedule taint (hard taints do not matter for scoring).
  for (const bool prefer : {false, true}) {
    Harness h(node_doc("A", "{cpu: 1}", "{}", taints("[{key: k, effect: NoSchedule}]")) +
                  node_doc("B", "{cpu: 1}", "{}",
                           taints(prefer ? "[{key: s, effect: PreferNoSchedule}]" : "[]")) +
                  node_doc("C", "{cpu: 1}") + pod_doc("p", {""}),
              config_with({"TaintToleration"}));
    TaintToleration plugin;
    const PodId id = h.pod("p");
    Rng rng(1);
    const fw::CycleContext cycle{h.state(), id, h.state().pod(id), *h.state().pod(id).spec, 0, rng};
    const std::vector<NodeId> nodes(h.state().nodes().begin(), h.state().nodes().end());
    ASSERT_TRUE(plugin.pre_score(cycle, nodes).is_ok());
    std::vector<int64_t> scores(nodes.size());
    plugin.score(cycle, nodes, scores.data());
    plugin.normalize(cycle, nodes, scores.data());
    const std::optional<int64_t> uniform = plugin.uniform_score(cycle, nodes);
    SCOPED_TRACE(prefer ? "with a PreferNoSchedule taint" : "hard taints only");
    EXPECT_EQ(uniform.has_value(), !prefer);
    if (prefer) {
      EXPECT_EQ(scores, (std::vector<int64_t>{100, 0, 100}));
    } else {
      EXPECT_EQ(uniform, 100);
      EXPECT_EQ(scores, std::vector<int64_t>(3, *uniform));
    }
  }
}

TEST(NodeAffinity, SelectorOperators) {
  std::string nodes = node_doc("n1", "{cpu: 1}", "{zone: a, gen: \"3\", ssd: \"true\"}") +
                      node_doc("n2", "{cpu: 1}", "{zone: b, gen: \"5\"}") +
                      node_doc("n3", "{cpu: 1}", "{zone: c, gen: x}");
  auto req = [](const std::string& expr) {
    return "affinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n"
           "      nodeSelectorTerms:\n      - matchExpressions: [" +
           expr + "]\n";
  };
  nodes += pod_doc("in", {""}, req("{key: zone, operator: In, values: [a, c]}"));
  nodes += pod_doc("notin", {""}, req("{key: zone, operator: NotIn, values: [a]}"));
  nodes += pod_doc("exists", {""}, req("{key: ssd, operator: Exists}"));
  nodes += pod_doc("dne", {""}, req("{key: ssd, operator: DoesNotExist}"));
  nodes += pod_doc("gt", {""}, req("{key: gen, operator: Gt, values: [\"4\"]}"));
  nodes += pod_doc("lt", {""}, req("{key: gen, operator: Lt, values: [\"4\"]}"));
  nodes += pod_doc(
      "and", {""},
      req("{key: zone, operator: In, values: [a, b]}, {key: gen, operator: Gt, values: [\"4\"]}"));
  nodes += pod_doc("selector", {""}, "nodeSelector: {zone: b}");
  nodes += pod_doc("selector-and-affinity", {""},
                   "nodeSelector: {zone: b}\n" + req("{key: gen, operator: Lt, values: [\"4\"]}"));
  nodes +=
      pod_doc("or", {""},
              "affinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n"
              "      nodeSelectorTerms:\n      - matchExpressions: [{key: zone, operator: In, "
              "values: [a]}]\n"
              "      - matchExpressions: [{key: zone, operator: In, values: [c]}]\n");
  Harness h(nodes, config_with({"NodeAffinity"}));
  EXPECT_EQ(h.feasible("in"), (std::set<std::string>{"n1", "n3"}));
  EXPECT_EQ(h.feasible("notin"), (std::set<std::string>{"n2", "n3"}));
  EXPECT_EQ(h.feasible("exists"), (std::set<std::string>{"n1"}));
  EXPECT_EQ(h.feasible("dne"), (std::set<std::string>{"n2", "n3"}));
  EXPECT_EQ(h.feasible("gt"), (std::set<std::string>{"n2"}));  // "x" is not an integer
  EXPECT_EQ(h.feasible("lt"), (std::set<std::string>{"n1"}));
  EXPECT_EQ(h.feasible("and"), (std::set<std::string>{"n2"}));
  EXPECT_EQ(h.feasible("selector"), (std::set<std::string>{"n2"}));
  EXPECT_EQ(h.feasible("selector-and-affinity"), std::set<std::string>{});
  EXPECT_EQ(h.feasible("or"), (std::set<std::string>{"n1", "n3"}));
  EXPECT_EQ(h.evaluate("in")["n2"].reasons,
            std::vector<std::string>{"node(s) didn't match Pod's node affinity/selector"});
}

TEST(NodeAffinity, MatchFieldsNarrowCandidatesAndConflict) {
  auto fields = [](const std::string& terms) {
    return "affinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n"
           "      nodeSelectorTerms:\n" +
           terms;
  };
  Harness h(
      node_doc("n1", "{cpu: 1}") + node_doc("n2", "{cpu: 1}") + node_doc("n3", "{cpu: 1}") +
          pod_doc("pinned", {""},
                  fields("      - matchFields: [{key: metadata.name, operator: In, values: [n2]}]\n"
                         "      - matchFields: [{key: metadata.name, operator: In, values: "
                         "[gone]}]\n")) +
          pod_doc("conflict", {""},
                  fields("      - matchFields: [{key: metadata.name, operator: In, values: [n1]}, "
                         "{key: metadata.name, operator: In, values: [n2]}]\n")),
      config_with({"NodeAffinity"}));
  auto e = h.evaluate("pinned");
  EXPECT_TRUE(e["n2"].feasible);
  EXPECT_EQ(e["n1"].reasons,
            std::vector<std::string>{"node(s) didn't satisfy plugin(s) [NodeAffinity]"});
  for (auto& [n, ev] : h.evaluate("conflict")) {
    EXPECT_FALSE(ev.feasible);
    EXPECT_EQ(ev.reasons, std::vector<std::string>{"pod affinity terms conflict"});
  }
  std::vector<fw::ScheduleOutcome> outs;
  auto placed = h.schedule_all(&outs);
  EXPECT_EQ(placed["pinned"], "n2");
  for (auto& o : outs) {
    if (h.state().pod(o.pod).name == "conflict") {
      EXPECT_EQ(o.message, "0/3 nodes are available: pod affinity terms conflict.");
    }
  }
}

TEST(NodeAffinity, PreferredTermsScore) {
  // Weights 2 (foo=bar), 4 (key=value), 5 (az=az1 AND foo=bar). n1 matches the first (2), n2 all
  // three (11), n3 only the second (4) → 100·2/11 = 18, 100, 100·4/11 = 36. Empty preference
  // terms are ignored.
  Harness h(
      node_doc("n1", "{cpu: 1}", "{foo: bar}") +
          node_doc("n2", "{cpu: 1}", "{foo: bar, key: value, az: az1}") +
          node_doc("n3", "{cpu: 1}", "{key: value}") +
          pod_doc(
              "p", {""},
              "affinity:\n  nodeAffinity:\n    preferredDuringSchedulingIgnoredDuringExecution:\n"
              "    - {weight: 2, preference: {matchExpressions: [{key: foo, operator: In, values: "
              "[bar]}]}}\n"
              "    - {weight: 4, preference: {matchExpressions: [{key: key, operator: In, values: "
              "[value]}]}}\n"
              "    - {weight: 5, preference: {matchExpressions: [{key: az, operator: In, values: "
              "[az1]}, "
              "{key: foo, operator: In, values: [bar]}]}}\n"
              "    - {weight: 50, preference: {}}\n"),
      config_with({"NodeAffinity"}));
  auto s = h.scores("p", "NodeAffinity");
  EXPECT_EQ(s["n1"], 18);
  EXPECT_EQ(s["n2"], 100);
  EXPECT_EQ(s["n3"], 36);
}

TEST(NodeAffinity, AddedAffinityArgs) {
  Harness h(node_doc("edge", "{cpu: 1}", "{tier: edge}") +
                node_doc("cloud", "{cpu: 1}", "{tier: cloud}") +
                node_doc("big", "{cpu: 1}", "{tier: edge, size: big}") + pod_doc("p", {""}),
            config_with({"NodeAffinity"},
                        "  pluginConfig:\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n"
                        "        requiredDuringSchedulingIgnoredDuringExecution:\n"
                        "          nodeSelectorTerms: [{matchExpressions: [{key: tier, operator: "
                        "In, values: [edge]}]}]\n"
                        "        preferredDuringSchedulingIgnoredDuringExecution:\n"
                        "        - {weight: 10, preference: {matchExpressions: [{key: size, "
                        "operator: Exists}]}}\n"));
  auto e = h.evaluate("p");
  EXPECT_EQ(e["cloud"].reasons,
            std::vector<std::string>{"node(s) didn't match scheduler-enforced node affinity"});
  auto s = h.scores("p", "NodeAffinity");
  EXPECT_EQ(s["edge"], 0);
  EXPECT_EQ(s["big"], 100);
}

TEST(NodeUnschedulable, RejectsCordonedUnlessTolerated) {
  Harness h(node_doc("cordoned", "{cpu: 1}", "{}", "{unschedulable: true}") +
                node_doc("ok", "{cpu: 1}") + pod_doc("p", {""}) +
                pod_doc("tolerant", {""},
                        "tolerations: [{key: node.kubernetes.io/unschedulable, operator: Exists, "
                        "effect: NoSchedule}]"),
            config_with({"NodeUnschedulable"}));
  EXPECT_EQ(h.evaluate("p")["cordoned"].reasons,
            std::vector<std::string>{"node(s) were unschedulable"});
  EXPECT_EQ(h.feasible("tolerant"), (std::set<std::string>{"cordoned", "ok"}));
}

TEST(NodeName, OnlyTheNamedNode) {
  // A pending pod carrying spec.nodeName (pods read with one are bound on load, so build the cycle
  // by hand).
  Harness h(node_doc("a", "{cpu: 1}") + node_doc("b", "{cpu: 1}"), config_with({}));
  Pod pod;
  pod.name = "named";
  pod.node_name = "b";
  pod.spec = make_simple_spec({});
  Rng rng(1);
  fw::CycleContext cycle{h.state(), kNoPod, pod, *pod.spec, 0, rng};
  NodeName plugin;
  NodeId nodes[2] = {*h.state().find_node("a"), *h.state().find_node("b")};
  fw::Rejections rej;
  ASSERT_EQ(plugin.filter(cycle, nodes, 2, rej), 1u);
  EXPECT_EQ(h.state().node(nodes[0]).name, "b");
  ASSERT_EQ(rej.size(), 1u);
  EXPECT_TRUE(rej.items()[0].unresolvable);
  std::vector<std::string> reasons;
  plugin.describe(h.state(), rej.items()[0], &reasons);
  EXPECT_EQ(reasons, std::vector<std::string>{"node(s) didn't match the requested node name"});
}

}  // namespace
}  // namespace orrery::plugins
