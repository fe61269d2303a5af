// InterPodAffinity: upstream's table tests (pkg/scheduler/framework/plugins/interpodaffinity,
// filtering_test.go and scoring_test.go, v1.34) translated case by case, each citing its upstream
// name; plus matchLabelKeys / mismatchLabelKeys, reason strings, preemption, the ClusterState
// index and the loader's errors and warnings.
//
// Translation notes: upstream's default namespace "" is "default" here (the loader's default);
// two upstream cases use an empty topologyKey, which the API server (and orrery's loader) reject,
// and are run with topologyKey "region" (same verdict: their selector matches nothing); upstream
// cases whose pods sit on nodes missing from the snapshot get such a node without labels.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/error.h"
#include "harness.h"
#include "io/k8s_objects.h"
#include "plugins/interpodaffinity/inter_pod_affinity.h"

namespace orrery::plugins {
namespace {

using testing::Harness;
using testing::node_doc;
using testing::pod_doc;

// ---- YAML builders ----

std::string list(const std::vector<std::string>& vs) {
  std::string out;
  for (const auto& v : vs) out += (out.empty() ? "" : ", ") + ("\"" + v + "\"");
  return "[" + out + "]";
}
std::string In(const std::string& k, const std::vector<std::string>& vs) {
  return "{key: " + k + ", operator: In, values: " + list(vs) + "}";
}
std::string NotIn(const std::string& k, const std::vector<std::string>& vs) {
  return "{key: " + k + ", operator: NotIn, values: " + list(vs) + "}";
}
std::string Exists(const std::string& k) {
  return "{key: " + k + ", operator: Exists}";
}
std::string DoesNotExist(const std::string& k) {
  return "{key: " + k + ", operator: DoesNotExist}";
}
// A term: labelSelector.matchExpressions = exprs, topologyKey = key, plus `extra` fields.
std::string T(const std::string& exprs, const std::string& key, const std::string& extra = "") {
  return "{labelSelector: {matchExpressions: [" + exprs + "]}, topologyKey: " + key + extra + "}";
}
std::string W(int weight, const std::string& term) {
  return "{weight: " + std::to_string(weight) + ", podAffinityTerm: " + term + "}";
}
struct Rules {
  Rules() = default;
  Rules(std::vector<std::string> req, std::vector<std::string> pref = {})  // NOLINT
      : required(std::move(req)), preferred(std::move(pref)) {}
  std::vector<std::string> required, preferred;  // terms; W(...) entries
};
std::string rules(const char* name, const Rules& r) {
  if (r.required.empty() && r.preferred.empty()) return "";
  std::string out = std::string("  ") + name + ":\n";
  auto seq = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return "[" + s + "]";
  };
  if (!r.required.empty())
    out += "    requiredDuringSchedulingIgnoredDuringExecution: " + seq(r.required) + "\n";
  if (!r.preferred.empty())
    out += "    preferredDuringSchedulingIgnoredDuringExecution: " + seq(r.preferred) + "\n";
  return out;
}
std::string affinity(const Rules& aff, const Rules& anti = {}) {
  return "affinity:\n" + rules("podAffinity", aff) + rules("podAntiAffinity", anti);
}
// A pod "ns/name" (or "name") with labels (flow mapping), on `node` ("" = pending).
std::string pod(const std::string& name, const std::string& labels, const std::string& node = "",
                const std::string& spec = "") {
  return pod_doc(name, {""}, (node.empty() ? "" : "nodeName: " + node + "\n") + spec,
                 "labels: " + labels);
}
// Nodes carry the kubernetes.io/hostname label, as the kubelet sets it on every node (the loader
// does not invent it).
std::string node(const std::string& name, const std::string& labels) {
  std::string with_host = labels;
  if (labels.find("kubernetes.io/hostname") == std::string::npos)
    with_host = "{kubernetes.io/hostname: " + name + (labels == "{}" ? "" : ", ") +
                labels.substr(1);
  return node_doc(name, "{cpu: 4, memory: 8Gi}", with_host);
}
std::string ns_doc(const std::string& name, const std::string& labels) {
  return "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: " + name + ", labels: " + labels +
         "}\n";
}
// The namespaces of upstream's scoring_test.go / filtering_test.go.
std::string team_namespaces() {
  return ns_doc("subteam1.team1", "{team: team1}") + ns_doc("subteam2.team1", "{team: team1}") +
         ns_doc("subteam1.team2", "{team: team2}") + ns_doc("subteam2.team2", "{team: team2}");
}

// ---- the plugin on its own, as upstream's tests call it ----

struct Direct {
  explicit Direct(const std::string& yaml, InterPodAffinityArgs args = {})
      : st(build_cluster(parse_k8s_objects(yaml, "t.yaml"))), plugin(args) {}
  ClusterState st;
  InterPodAffinity plugin;
  Rng rng{1};

  PodId id(const std::string& name) {
    auto [ns, n] = split_pod_key(name);
    auto p = st.find_pod(ns, n);
    if (!p) throw std::runtime_error("no pod " + name);
    return *p;
  }
  fw::CycleContext cycle(PodId p) { return {st, p, st.pod(p), *st.pod(p).spec, 0, rng}; }
  // PreFilter, then Filter on each node alone: node → "" (fits), "A" (affinity,
  // UnschedulableAndUnresolvable), "N" (anti-affinity), "E" (existing pods' anti-affinity). A
  // PreFilter Skip gives {"skip": "S"}.
  std::map<std::string, std::string> filter(const std::string& pod_name) {
    const PodId p = id(pod_name);
    auto c = cycle(p);
    std::optional<std::vector<NodeId>> only;
    if (plugin.pre_filter(c, &only).is_skip()) return {{"skip", "S"}};
    return verdicts(c);
  }
  std::map<std::string, std::string> verdicts(const fw::CycleContext& c) {
    std::map<std::string, std::string> out;
    for (NodeId n : st.nodes()) {
      fw::Rejections r;
      NodeId one[1] = {n};
      std::string v;
      if (plugin.filter(c, one, 1, r) == 0) {
        const fw::Rejection& rej = r.items().at(0);
        v = rej.code == 0 ? "A" : rej.code == 1 ? "N" : "E";
        EXPECT_EQ(rej.unresolvable, rej.code == 0);
      }
      out[st.node(n).name] = v;
    }
    return out;
  }
  // PreScore, Score and NormalizeScore over every node: node → score; {"skip": 0} on Skip.
  std::map<std::string, int64_t> scores(const std::string& pod_name) {
    auto c = cycle(id(pod_name));
    const std::vector<NodeId>& nodes = st.nodes();
    if (plugin.pre_score(c, nodes).is_skip()) return {{"skip", 0}};
    std::vector<int64_t> s(nodes.size());
    plugin.score(c, nodes, s.data());
    plugin.normalize(c, nodes, s.data());
    std::map<std::string, int64_t> out;
    for (size_t i = 0; i < nodes.size(); ++i) out[st.node(nodes[i]).name] = s[i];
    return out;
  }
};

using Verdicts = std::map<std::string, std::string>;
using Scores = std::map<std::string, int64_t>;
const Verdicts kSkip = {{"skip", "S"}};
const Scores kScoreSkip = {{"skip", 0}};

// ---- TestRequiredAffinitySingleNode ----

// node1 {region: r1, zone: z11}; `pod` {service: securityscan} on node1.
const std::string kSecurityscan = "{service: securityscan}";
const std::string kS1 = "{security: S1}";
std::string single(const std::string& incoming, const std::string& existing = "",
                   const std::string& extra = "") {
  return node("node1", "{region: r1, zone: z11}") + extra + existing + incoming;
}
std::string existing_pod() {
  return pod("pod", kSecurityscan, "node1");
}

Verdicts one(const std::string& v) {
  return {{"node1", v}};
}

TEST(InterPodAffinityFilter, RequiredAffinitySingleNode) {
  // TestRequiredAffinitySingleNode/"A pod that has no required pod affinity scheduling rules can
  // schedule onto a node with no existing pods"
  EXPECT_EQ(Direct(single(pod("p", "{}"))).filter("p"), kSkip);
  // .../"satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In
  // operator that matches the existing pod"
  EXPECT_EQ(Direct(single(pod("p", kS1, "",
                              affinity({{T(In("service", {"securityscan", "value2"}), "region")}})),
                          existing_pod()))
                .filter("p"),
            one(""));
  // .../"satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity
  // using not in operator in labelSelector that matches the existing pod"
  EXPECT_EQ(
      Direct(single(pod("p", kS1, "",
                        affinity({{T(NotIn("service", {"securityscan3", "value3"}), "region")}})),
                    existing_pod()))
          .filter("p"),
      one(""));
  // .../"Does not satisfy the PodAffinity with labelSelector because of diff Namespace"
  // (upstream's topologyKey is empty; see the file comment)
  EXPECT_EQ(Direct(single(pod("p", kS1, "",
                              affinity({{T(In("service", {"securityscan", "value2"}), "region",
                                           ", namespaces: [DiffNameSpace]")}})),
                          pod("ns/x", kSecurityscan, "node1")))
                .filter("p"),
            one("A"));
  // .../"Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing
  // pod" (topologyKey as above)
  EXPECT_EQ(
      Direct(single(pod("p", kSecurityscan, "",
                        affinity({{T(In("service", {"antivirusscan", "value2"}), "region")}})),
                    existing_pod()))
          .filter("p"),
      one("A"));
  // .../"satisfies the PodAffinity with different label Operators in multiple
  // RequiredDuringSchedulingIgnoredDuringExecution "
  EXPECT_EQ(
      Direct(single(pod("p", kS1, "",
                        affinity({{T(Exists("service") + ", " + DoesNotExist("wrongkey"), "region"),
                                   T(In("service", {"securityscan"}) + ", " +
                                         NotIn("service", {"WrongValue"}),
                                     "region")}})),
                    existing_pod()))
          .filter("p"),
      one(""));
  // .../"The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot
  // schedule onto the node because one of the matchExpression item don't match."
  EXPECT_EQ(
      Direct(single(pod("p", kS1, "",
                        affinity({{T(Exists("service") + ", " + DoesNotExist("wrongkey"), "region"),
                                   T(In("service", {"securityscan2"}) + ", " +
                                         NotIn("service", {"WrongValue"}),
                                     "region")}})),
                    existing_pod()))
          .filter("p"),
      one("A"));
  const std::string aff_in = T(In("service", {"securityscan", "value2"}), "region");
  const std::string anti_node = T(In("service", {"antivirusscan", "value2"}), "node");
  // .../"satisfies the PodAffinity and PodAntiAffinity with the existing pod"
  EXPECT_EQ(Direct(single(pod("p", kS1, "", affinity({{aff_in}}, {{anti_node}})), existing_pod()))
                .filter("p"),
            one(""));
  // .../"satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the
  // existing pod"
  EXPECT_EQ(Direct(single(pod("p", kS1, "", affinity({{aff_in}}, {{anti_node}})),
                          pod("pod", kSecurityscan, "node1", affinity({}, {{anti_node}}))))
                .filter("p"),
            one(""));
  const std::string anti_zone = T(In("service", {"securityscan", "value2"}), "zone");
  // .../"satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod"
  EXPECT_EQ(Direct(single(pod("p", kS1, "", affinity({{aff_in}}, {{anti_zone}})), existing_pod()))
                .filter("p"),
            one("N"));
  // .../"satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity
  // symmetry with the existing pod"
  EXPECT_EQ(Direct(single(pod("p", kSecurityscan, "", affinity({{aff_in}}, {{anti_node}})),
                          pod("pod", kSecurityscan, "node1", affinity({}, {{anti_zone}}))))
                .filter("p"),
            one("E"));
  // .../"pod matches its own Label in PodAffinity and that matches the existing pod Labels"
  // (the existing pod is on node2, which upstream's snapshot lacks: here a node without labels)
  {
    Direct d(single(pod("p", kSecurityscan, "",
                        affinity({{T(NotIn("service", {"securityscan", "value2"}), "region")}})),
                    pod("pod", kSecurityscan, "node2"), node("node2", "{}")));
    EXPECT_EQ(d.filter("p").at("node1"), "A");
  }
  // .../"verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity
  // constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod"
  EXPECT_EQ(Direct(single(pod("p", kSecurityscan),
                          pod("pod", kSecurityscan, "node1", affinity({}, {{anti_zone}}))))
                .filter("p"),
            one("E"));
  // .../"verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity
  // constraints. satisfy PodAntiAffinity symmetry with the existing pod"
  EXPECT_EQ(
      Direct(single(pod("p", kSecurityscan),
                    pod("pod", kSecurityscan, "node1",
                        affinity({}, {{T(NotIn("service", {"securityscan", "value2"}), "zone")}}))))
          .filter("p"),
      kSkip);
  // .../"satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity
  // symmetry with incoming pod"
  EXPECT_EQ(
      Direct(single(pod("p", kSecurityscan, "",
                        affinity({}, {{T(Exists("service"), "region"),
                                       T(Exists("security"), "region")}})),
                    pod("pod", kS1, "node1", affinity({}, {{T(Exists("security"), "zone")}}))))
          .filter("p"),
      one("N"));
  // .../"PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each
  // other on AffinityTerms"
  EXPECT_EQ(
      Direct(
          single(pod("p", kSecurityscan, "",
                     affinity({}, {{T(Exists("service"), "zone"), T(Exists("security"), "zone")}})),
                 pod("pod", kS1, "node1", affinity({}, {{T(Exists("security"), "zone")}}))))
          .filter("p"),
      one("N"));
  // .../"PodAntiAffinity symmetry check a2: ..."
  EXPECT_EQ(Direct(single(pod("p", kS1, "", affinity({}, {{T(Exists("security"), "zone")}})),
                          pod("pod", kSecurityscan, "node1",
                              affinity({}, {{T(Exists("service"), "zone"),
                                             T(Exists("security"), "zone")}}))))
                .filter("p"),
            one("E"));
  const Rules abc_def{{T(Exists("abc"), "zone"), T(Exists("def"), "zone")}, {}};
  // .../"PodAntiAffinity symmetry check b1: ..."
  EXPECT_EQ(Direct(single(pod("p", "{abc: \"\", xyz: \"\"}", "", affinity({}, abc_def)),
                          pod("pod", "{def: \"\", xyz: \"\"}", "node1", affinity({}, abc_def))))
                .filter("p"),
            one("N"));
  // .../"PodAntiAffinity symmetry check b2: ..."
  EXPECT_EQ(Direct(single(pod("p", "{def: \"\", xyz: \"\"}", "", affinity({}, abc_def)),
                          pod("pod", "{abc: \"\", xyz: \"\"}", "node1", affinity({}, abc_def))))
                .filter("p"),
            one("N"));
  // .../"PodAffinity fails PreFilter with an invalid affinity label syntax" and "PodAntiAffinity
  // fails PreFilter with an invalid antiaffinity label syntax": the loader rejects such pods
  // (LoaderErrors below), as the API server would.
  const std::string team1 =
      ", namespaceSelector: {matchExpressions: [" + In("team", {"team1"}) + "]}";
  const std::string svc = In("service", {"securityscan", "value2"});
  // .../"affinity with NamespaceSelector"
  EXPECT_EQ(Direct(single(pod("p", kS1, "", affinity({{T(svc, "region", team1)}})),
                          pod("subteam1.team1/x", kSecurityscan, "node1"), team_namespaces()))
                .filter("p"),
            one(""));
  // .../"affinity with non-matching NamespaceSelector"
  EXPECT_EQ(Direct(single(pod("p", kS1, "", affinity({{T(svc, "region", team1)}})),
                          pod("subteam1.team2/x", kSecurityscan, "node1"), team_namespaces()))
                .filter("p"),
            one("A"));
  // .../"anti-affinity with matching NamespaceSelector"
  EXPECT_EQ(Direct(single(pod("subteam1.team1/p", kS1, "", affinity({}, {{T(svc, "zone", team1)}})),
                          pod("subteam2.team1/x", kSecurityscan, "node1"), team_namespaces()))
                .filter("subteam1.team1/p"),
            one("N"));
  // .../"anti-affinity with matching all NamespaceSelector"
  EXPECT_EQ(Direct(single(pod("subteam1.team1/p", kS1, "",
                              affinity({}, {{T(svc, "zone", ", namespaceSelector: {}")}})),
                          pod("subteam2.team1/x", kSecurityscan, "node1"), team_namespaces()))
                .filter("subteam1.team1/p"),
            one("N"));
  // .../"anti-affinity with non-matching NamespaceSelector"
  EXPECT_EQ(Direct(single(pod("subteam1.team1/p", kS1, "", affinity({}, {{T(svc, "zone", team1)}})),
                          pod("subteam1.team2/x", kSecurityscan, "node1"), team_namespaces()))
                .filter("subteam1.team1/p"),
            one(""));
}

// ---- TestRequiredAffinityMultipleNodes ----

TEST(InterPodAffinityFilter, RequiredAffinityMultipleNodes) {
  const std::string china = "{region: China}", china_az1 = "{region: China, az: az1}",
                    india = "{region: India}";
  // TestRequiredAffinityMultipleNodes/"A pod can be scheduled onto all the nodes that have the
  // same topology key & label value with one of them has an existing pod that matches the
  // affinity rules"
  EXPECT_EQ(Direct(node("node1", china) + node("node2", china_az1) + node("node3", india) +
                   pod("p1", "{foo: bar}", "node1") +
                   pod("p", "{}", "", affinity({{T(In("foo", {"bar"}), "region")}})))
                .filter("p"),
            (Verdicts{{"node1", ""}, {"node2", ""}, {"node3", "A"}}));
  const std::string collection =
      pod("p", "{foo: bar, service: securityscan}", "",
          affinity({{T(In("foo", {"bar"}), "zone"), T(In("service", {"securityscan"}), "zone")}}));
  // .../"The affinity rule is to schedule all of the pods of this collection to the same zone.
  // The first pod of the collection should not be blocked from being scheduled onto any node,
  // even there's no existing pod that matches the rule anywhere."
  EXPECT_EQ(Direct(node("nodeA", "{zone: az1, hostname: h1}") +
                   node("nodeB", "{zone: az2, hostname: h2}") + pod("p1", "{foo: bar}", "nodeA") +
                   collection)
                .filter("p"),
            (Verdicts{{"nodeA", ""}, {"nodeB", ""}}));
  // .../"The first pod of the collection can only be scheduled on nodes labelled with the
  // requested topology keys"
  EXPECT_EQ(Direct(node("nodeA", "{zoneLabel: az1, hostname: h1}") +
                   node("nodeB", "{zoneLabel: az2, hostname: h2}") +
                   pod("p1", "{foo: bar}", "nodeA") + collection)
                .filter("p"),
            (Verdicts{{"nodeA", "A"}, {"nodeB", "A"}}));
  const std::string ab_r1 = node("nodeA", "{region: r1, hostname: nodeA}") +
                            node("nodeB", "{region: r1, hostname: nodeB}");
  // .../"NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that
  // matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB."
  EXPECT_EQ(Direct(ab_r1 + pod("x", "{foo: abc}", "nodeA") +
                   pod("p", "{}", "", affinity({}, {{T(In("foo", {"abc"}), "region")}})))
                .filter("p"),
            (Verdicts{{"nodeA", "N"}, {"nodeB", "N"}}));
  const std::string z1z2 = node("nodeA", "{region: r1, zone: z1, hostname: nodeA}") +
                           node("nodeB", "{region: r1, zone: z2, hostname: nodeB}");
  // .../"This test ensures that anti-affinity matches a pod when any term of the anti-affinity
  // rule matches a pod."
  EXPECT_EQ(Direct(z1z2 + pod("x", "{foo: abc, service: securityscan}", "nodeA") +
                   pod("p", "{}", "",
                       affinity({}, {{T(In("foo", {"abc"}), "region"),
                                      T(In("service", {"securityscan"}), "zone")}})))
                .filter("p"),
            (Verdicts{{"nodeA", "N"}, {"nodeB", "N"}}));
  const std::string abc3 = node("nodeA", china) + node("nodeB", china_az1) + node("nodeC", india);
  // .../"NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that
  // matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB but
  // can be scheduled onto nodeC"
  EXPECT_EQ(Direct(abc3 + pod("x", "{foo: abc}", "nodeA") +
                   pod("p", "{}", "", affinity({}, {{T(In("foo", {"abc"}), "region")}})))
                .filter("p"),
            (Verdicts{{"nodeA", "N"}, {"nodeB", "N"}, {"nodeC", ""}}));
  // .../"... but can be scheduled onto nodeC (NodeC has an existing pod that match the inter pod
  // affinity rule but in different namespace)"
  EXPECT_EQ(
      Direct(abc3 + ns_doc("NS1", "{}") + pod("NS1/x", "{foo: bar}", "nodeA") +
             pod("NS2/y", "{}", "nodeC", affinity({}, {{T(In("foo", {"123"}), "region")}})) +
             pod("NS1/p", "{foo: \"123\"}", "", affinity({}, {{T(In("foo", {"bar"}), "region")}})))
          .filter("NS1/p"),
      (Verdicts{{"nodeA", "N"}, {"nodeB", "N"}, {"nodeC", ""}}));
  const std::string z1z1 = node("nodeA", "{region: r1, zone: z1, hostname: nodeA}") +
                           node("nodeB", "{region: r1, zone: z1, hostname: nodeB}");
  // .../"Test existing pod's anti-affinity: if an existing pod has a term with invalid
  // topologyKey, labelSelector of the term is firstly checked, and then topologyKey of the term
  // is also checked"
  EXPECT_EQ(
      Direct(z1z1 +
             pod("x", "{}", "nodeA", affinity({}, {{T(Exists("foo"), "invalid-node-label")}})) +
             pod("p", "{foo: \"\"}"))
          .filter("p"),
      kSkip);
  // .../"Test incoming pod's anti-affinity: even if labelSelector matches, we still check if
  // topologyKey matches"
  EXPECT_EQ(Direct(z1z1 + pod("x", "{foo: \"\"}", "nodeA") +
                   pod("p", "{}", "", affinity({}, {{T(Exists("foo"), "invalid-node-label")}})))
                .filter("p"),
            (Verdicts{{"nodeA", ""}, {"nodeB", ""}}));
  // .../"Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it
  // violates each existingPod's terms on all nodes"
  EXPECT_EQ(Direct(z1z2 + pod("x", "{}", "nodeA", affinity({}, {{T(Exists("foo"), "zone")}})) +
                   pod("y", "{}", "nodeA", affinity({}, {{T(Exists("bar"), "region")}})) +
                   pod("p", "{foo: \"\", bar: \"\"}"))
                .filter("p"),
            (Verdicts{{"nodeA", "E"}, {"nodeB", "E"}}));
  // .../"Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at
  // least violates one anti-affinity rule of existingPod"
  EXPECT_EQ(Direct(z1z2 + pod("x", "{foo: \"\"}", "nodeA") + pod("y", "{bar: \"\"}", "nodeB") +
                   pod("p", "{}", "",
                       affinity({}, {{T(Exists("foo"), "zone"), T(Exists("bar"), "region")}})))
                .filter("p"),
            (Verdicts{{"nodeA", "N"}, {"nodeB", "N"}}));
  // .../"Test existing pod's anti-affinity: only when labelSelector and topologyKey both match,
  // it's counted as a single term match - case when one term has invalid topologyKey"
  EXPECT_EQ(
      Direct(
          z1z2 +
          pod("x", "{}", "nodeA",
              affinity({}, {{T(Exists("foo"), "invalid-node-label"), T(Exists("bar"), "zone")}})) +
          pod("p", "{foo: \"\", bar: \"\"}"))
          .filter("p"),
      (Verdicts{{"nodeA", "E"}, {"nodeB", ""}}));
  // .../"Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match,
  // it's counted as a single term match - case when one term has invalid topologyKey"
  EXPECT_EQ(
      Direct(
          z1z2 + pod("podA", "{foo: \"\", bar: \"\"}", "nodeA") +
          pod("p", "{}", "",
              affinity({}, {{T(Exists("foo"), "invalid-node-label"), T(Exists("bar"), "zone")}})))
          .filter("p"),
      (Verdicts{{"nodeA", "N"}, {"nodeB", ""}}));
  // .../"Test existing pod's anti-affinity: ... case when all terms have valid topologyKey"
  EXPECT_EQ(Direct(z1z2 +
                   pod("x", "{}", "nodeA",
                       affinity({}, {{T(Exists("foo"), "region"), T(Exists("bar"), "zone")}})) +
                   pod("p", "{foo: \"\", bar: \"\"}"))
                .filter("p"),
            (Verdicts{{"nodeA", "E"}, {"nodeB", "E"}}));
  // .../"Test incoming pod's anti-affinity: ... case when all terms have valid topologyKey"
  EXPECT_EQ(Direct(z1z2 + pod("x", "{foo: \"\", bar: \"\"}", "nodeA") +
                   pod("p", "{}", "",
                       affinity({}, {{T(Exists("foo"), "region"), T(Exists("bar"), "zone")}})))
                .filter("p"),
            (Verdicts{{"nodeA", "N"}, {"nodeB", "N"}}));
  // .../"Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one
  // anti-affinity term matches incoming pod, so incoming pod can only be scheduled to nodeC"
  EXPECT_EQ(Direct(z1z2 + node("nodeC", "{region: r1, zone: z3, hostname: nodeC}") +
                   pod("x", "{}", "nodeA",
                       affinity({}, {{T(Exists("foo"), "zone"), T(Exists("labelA"), "zone")}})) +
                   pod("y", "{}", "nodeB",
                       affinity({}, {{T(Exists("bar"), "zone"), T(Exists("labelB"), "zone")}})) +
                   pod("p", "{foo: \"\", bar: \"\"}"))
                .filter("p"),
            (Verdicts{{"nodeA", "E"}, {"nodeB", "E"}, {"nodeC", ""}}));
  const std::string foo_bar_aff =
      affinity({{T(Exists("foo"), "region"), T(Exists("bar"), "zone")}});
  // .../"Test incoming pod's affinity: firstly check if all affinityTerms match, and then check
  // if all topologyKeys match"
  EXPECT_EQ(Direct(z1z1 + pod("pod1", "{foo: \"\", bar: \"\"}", "nodeA") +
                   pod("p", "{}", "", foo_bar_aff))
                .filter("p"),
            (Verdicts{{"nodeA", ""}, {"nodeB", ""}}));
  // .../"Test incoming pod's affinity: firstly check if all affinityTerms match, and then check
  // if all topologyKeys match, and the match logic should be satisfied on the same pod"
  EXPECT_EQ(Direct(z1z2 + pod("pod1", "{foo: \"\"}", "nodeA") +
                   pod("pod2", "{bar: \"\"}", "nodeB") + pod("p", "{}", "", foo_bar_aff))
                .filter("p"),
            (Verdicts{{"nodeA", "A"}, {"nodeB", "A"}}));
}

// ---- TestPreFilterStateAddRemovePod, TestGetTPMapMatchingIncomingAffinityAntiAffinity ----

TEST(InterPodAffinityFilter, PreFilterStateAddRemovePod) {
  const std::string nodes = node("nodeA", "{region: r1, zone: z11}") +
                            node("nodeB", "{region: r1, zone: z12}") +
                            node("nodeC", "{region: r2, zone: z21}");
  const std::string foo_bar = T(In("foo", {"bar"}), "region");
  const std::vector<std::string> complex = {
      T(In("foo", {"bar", "buzz"}), "region"),
      T(NotIn("service", {"bar", "security", "test"}), "zone")};
  struct Case {
    const char* name;
    std::string pending, existing, added_node;
    Rules added_anti;
    std::map<std::string, int64_t> want_anti, want_affinity;
  };
  const std::vector<Case> cases = {
      {"preFilterState anti-affinity terms are updated correctly after adding and removing a pod",
       pod("pending", "{foo: bar}", "", affinity({}, {{foo_bar}})),
       pod("p1", "{foo: bar}", "nodeA") + pod("p2", "{}", "nodeC", affinity({}, {{foo_bar}})),
       "nodeB",
       {{foo_bar}, {}},
       {{"region=r1", 2}},
       {}},
      {"preFilterState anti-affinity terms are updated correctly after adding and removing a pod "
       "(complex)",
       pod("pending", "{foo: bar}", "", affinity({}, {complex, {}})),
       pod("p1", "{foo: bar}", "nodeA") + pod("p2", "{}", "nodeC", affinity({}, {{foo_bar}})),
       "nodeA",
       {complex, {}},
       {{"region=r1", 2}, {"zone=z11", 2}, {"zone=z21", 1}},
       {}},
      {"preFilterState matching pod affinity and anti-affinity are updated correctly after adding "
       "and removing a pod",
       pod("pending", "{foo: bar}", "", affinity({complex, {}})),
       pod("p1", "{foo: bar}", "nodeA") +
           pod("p2", "{}", "nodeC", affinity({complex, {}}, {{foo_bar}})),
       "nodeA",
       {complex, {}},
       {},
       {{"region=r1", 2}, {"zone=z11", 2}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string("TestPreFilterStateAddRemovePod/") + c.name);
    const std::string added =
        pod("addedPod", "{foo: bar}", c.added_node, affinity({}, c.added_anti));
    // The state PreFilter computes with every pod, including the added one.
    Direct all(nodes + c.existing + added + c.pending);
    auto all_cycle = all.cycle(all.id("pending"));
    std::optional<std::vector<NodeId>> only;
    ASSERT_FALSE(all.plugin.pre_filter(all_cycle, &only).is_skip());
    const auto want = all.plugin.counts_for_testing(all.st);
    // Without it, then AddPod.
    Direct d(nodes + c.existing + pod("addedPod", "{foo: bar}", "", affinity({}, c.added_anti)) +
             c.pending);
    auto cycle = d.cycle(d.id("pending"));
    ASSERT_FALSE(d.plugin.pre_filter(cycle, &only).is_skip());
    const auto original = d.plugin.counts_for_testing(d.st);
    const PodId added_id = d.id("addedPod");
    const NodeId at = *d.st.find_node(c.added_node);
    d.st.assign(added_id, at);
    d.plugin.pre_filter_add_pod(cycle, added_id, at);
    const auto got = d.plugin.counts_for_testing(d.st);
    EXPECT_EQ(got.anti_affinity, c.want_anti);
    EXPECT_EQ(got.affinity, c.want_affinity);
    EXPECT_EQ(got.anti_affinity, want.anti_affinity);
    EXPECT_EQ(got.affinity, want.affinity);
    EXPECT_EQ(got.existing_anti_affinity, want.existing_anti_affinity);
    // RemovePod restores the original state.
    d.st.unassign(added_id);
    d.plugin.pre_filter_remove_pod(cycle, added_id, at);
    const auto back = d.plugin.counts_for_testing(d.st);
    EXPECT_EQ(back.anti_affinity, original.anti_affinity);
    EXPECT_EQ(back.affinity, original.affinity);
    EXPECT_EQ(back.existing_anti_affinity, original.existing_anti_affinity);
  }
}

TEST(InterPodAffinityFilter, IncomingAffinityAntiAffinityCounts) {
  const std::string nodeA = node("nodeA", "{hostname: nodeA}");
  auto counts = [&](const std::string& existing, const std::string& incoming) {
    Direct d(nodeA + existing + incoming);
    auto c = d.cycle(d.id("p"));
    std::optional<std::vector<NodeId>> only;
    d.plugin.pre_filter(c, &only);
    auto got = d.plugin.counts_for_testing(d.st);
    return std::make_pair(got.affinity, got.anti_affinity);
  };
  using M = std::map<std::string, int64_t>;
  const std::string a = pod("normal", "{aaa: \"\"}", "nodeA"),
                    b = pod("normal", "{bbb: \"\"}", "nodeA"),
                    ab = pod("normal", "{aaa: \"\", bbb: \"\"}", "nodeA");
  auto ex = [](const char* k) { return T(Exists(k), "hostname"); };
  // TestGetTPMapMatchingIncomingAffinityAntiAffinity/"nil test"
  EXPECT_EQ(counts("", pod("p", "{}")), std::make_pair(M{}, M{}));
  // .../"incoming pod without affinity/anti-affinity causes a no-op"
  EXPECT_EQ(counts(a, pod("p", "{}")), std::make_pair(M{}, M{}));
  // .../"no pod has label that violates incoming pod's affinity and anti-affinity"
  EXPECT_EQ(counts(b, pod("p", "{}", "", affinity({{ex("aaa")}}, {{ex("aaa")}}))),
            std::make_pair(M{}, M{}));
  // .../"existing pod matches incoming pod's affinity and anti-affinity - single term case"
  EXPECT_EQ(counts(a, pod("p", "{}", "", affinity({{ex("aaa")}}, {{ex("aaa")}}))),
            std::make_pair(M{{"hostname=nodeA", 1}}, M{{"hostname=nodeA", 1}}));
  // .../"existing pod matches incoming pod's affinity and anti-affinity - multiple terms case"
  EXPECT_EQ(counts(ab, pod("p", "{}", "", affinity({{ex("aaa"), ex("bbb")}}, {{ex("aaa")}}))),
            std::make_pair(M{{"hostname=nodeA", 2}}, M{{"hostname=nodeA", 1}}));
  // .../"existing pod not match incoming pod's affinity but matches anti-affinity"
  EXPECT_EQ(
      counts(a, pod("p", "{}", "", affinity({{ex("aaa"), ex("bbb")}}, {{ex("aaa"), ex("bbb")}}))),
      std::make_pair(M{}, M{{"hostname=nodeA", 1}}));
  // .../"incoming pod's anti-affinity has more than one term - existing pod violates partial
  // term - case 1"
  EXPECT_EQ(
      counts(ab, pod("p", "{}", "", affinity({{ex("aaa"), ex("ccc")}}, {{ex("aaa"), ex("ccc")}}))),
      std::make_pair(M{}, M{{"hostname=nodeA", 1}}));
  // .../"... case 2"
  EXPECT_EQ(
      counts(b, pod("p", "{}", "", affinity({{ex("aaa"), ex("bbb")}}, {{ex("aaa"), ex("bbb")}}))),
      std::make_pair(M{}, M{{"hostname=nodeA", 1}}));
}

// ---- TestPreferredAffinity ----

const std::string kChina = "{region: China}", kIndia = "{region: India}", kAz1 = "{az: az1}",
                  kAz2 = "{az: az2}", kChinaAz1 = "{region: China, az: az1}";
const std::string kSecS1 = "{security: S1}", kSecS2 = "{security: S2}";
const Rules kStayWithS1InRegion{{}, {W(5, T(In("security", {"S1"}), "region"))}};
const Rules kStayWithS2InRegion{{}, {W(6, T(In("security", {"S2"}), "region"))}};
const Rules kAffinity3{
    {},
    {W(8, T(NotIn("security", {"S1"}) + ", " + In("security", {"S2"}), "region")),
     W(2, T(Exists("security") + ", " + DoesNotExist("wrongkey"), "region"))}};
const Rules kHardAffinity{{T(In("security", {"S1", "value2"}), "region"),
                           T(Exists("security") + ", " + DoesNotExist("wrongkey"), "region")},
                          {}};
const Rules kAwayFromS1InAz{{}, {W(5, T(In("security", {"S1"}), "az"))}};
const Rules kAwayFromS2InAz{{}, {W(5, T(In("security", {"S2"}), "az"))}};
const Rules kStayWithS1InRegionAff{{}, {W(8, T(In("security", {"S1"}), "region"))}};
const std::string kNsSel =
    ", namespaces: [subteam2.team2], namespaceSelector: {matchExpressions: [" +
    In("team", {"team1"}) + "]}";
const Rules kNsSelectorTerm{{}, {W(5, T(In("security", {"S1"}), "region", kNsSel))}};

std::string stay_s1_away_s2() {
  return affinity(kStayWithS1InRegionAff, kAwayFromS2InAz);
}

TEST(InterPodAffinityScore, PreferredAffinity) {
  const std::string three = node("node1", kChina) + node("node2", kIndia) + node("node3", kAz1);
  auto run = [](const std::string& objs, bool ignore_existing = false) {
    InterPodAffinityArgs args;
    args.ignore_preferred_terms_of_existing_pods = ignore_existing;
    return Direct(team_namespaces() + objs, args).scores("p");
  };
  // TestPreferredAffinity/"all nodes are same priority as Affinity is nil"
  EXPECT_EQ(run(three + pod("p", kSecS1)), kScoreSkip);
  // .../"Affinity: pod that matches topology key & pods in nodes will get high score comparing
  // to otherswhich doesn't match either pods in nodes or in topology key"
  EXPECT_EQ(run(three + pod("a", kSecS1, "node1") + pod("b", kSecS2, "node2") +
                pod("c", kSecS1, "node3") + pod("p", kSecS1, "", affinity(kStayWithS1InRegion))),
            (Scores{{"node1", 100}, {"node2", 0}, {"node3", 0}}));
  // .../"All the nodes that have the same topology key & label value with one of them has an
  // existing pod that match the affinity rules, have the same score"
  EXPECT_EQ(run(node("node1", kChina) + node("node2", kChinaAz1) + node("node3", kIndia) +
                pod("a", kSecS1, "node1") + pod("p", "{}", "", affinity(kStayWithS1InRegion))),
            (Scores{{"node1", 100}, {"node2", 100}, {"node3", 0}}));
  // .../"Affinity: nodes in one region has more matching pods comparing to other region, so the
  // region which has more matches will get high score"
  const std::string five = node("node1", kChina) + node("node2", kIndia) + node("node3", kChina) +
                           node("node4", kChina) + node("node5", kIndia);
  EXPECT_EQ(run(five + pod("a", kSecS2, "node1") + pod("b", kSecS2, "node1") +
                pod("c", kSecS2, "node2") + pod("d", kSecS2, "node3") + pod("e", kSecS2, "node4") +
                pod("f", kSecS2, "node5") + pod("p", kSecS1, "", affinity(kStayWithS2InRegion))),
            (Scores{{"node1", 100}, {"node2", 0}, {"node3", 100}, {"node4", 100}, {"node5", 0}}));
  // .../"Affinity: different Label operators and values for pod affinity scheduling preference,
  // including some match failures "
  EXPECT_EQ(run(three + pod("a", kSecS1, "node1") + pod("b", kSecS2, "node2") +
                pod("c", kSecS1, "node3") + pod("p", kSecS1, "", affinity(kAffinity3))),
            (Scores{{"node1", 20}, {"node2", 100}, {"node3", 0}}));
  // .../"Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution
  // in pod affinity symmetry"
  EXPECT_EQ(run(three + pod("a", kSecS1, "node1", affinity(kStayWithS1InRegion)) +
                pod("b", kSecS2, "node2", affinity(kStayWithS2InRegion)) + pod("p", kSecS2)),
            (Scores{{"node1", 0}, {"node2", 100}, {"node3", 0}}));
  // .../"Affinity symmetry with namespace selector"
  {
    Direct d(team_namespaces() + three + pod("a", kSecS1, "node1", affinity(kNsSelectorTerm)) +
             pod("b", kSecS2, "node2", affinity(kStayWithS2InRegion)) +
             pod("subteam1.team1/p", kSecS1));
    EXPECT_EQ(d.scores("subteam1.team1/p"), (Scores{{"node1", 100}, {"node2", 0}, {"node3", 0}}));
  }
  // .../"AntiAffinity symmetry with namespace selector"
  {
    Direct d(team_namespaces() + three + pod("a", kSecS1, "node1", affinity({}, kNsSelectorTerm)) +
             pod("b", kSecS2, "node2", affinity(kStayWithS2InRegion)) +
             pod("subteam1.team1/p", kSecS1));
    EXPECT_EQ(d.scores("subteam1.team1/p"), (Scores{{"node1", 0}, {"node2", 100}, {"node3", 100}}));
  }
  // .../"Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod
  // affinity symmetry"
  EXPECT_EQ(run(three + pod("a", kSecS1, "node1", affinity(kHardAffinity)) +
                pod("b", kSecS2, "node2", affinity(kHardAffinity)) + pod("p", kSecS1)),
            (Scores{{"node1", 100}, {"node2", 100}, {"node3", 0}}));
  // .../"Anti Affinity: pod that does not match existing pods in node will get high score "
  EXPECT_EQ(run(node("node1", kAz1) + node("node2", kChina) + pod("a", kSecS1, "node1") +
                pod("b", kSecS2, "node2") + pod("p", kSecS1, "", affinity({}, kAwayFromS1InAz))),
            (Scores{{"node1", 0}, {"node2", 100}}));
  // .../"Anti Affinity: pod that does not match topology key & match the pods in nodes will get
  // higher score comparing to others "
  EXPECT_EQ(run(node("node1", kAz1) + node("node2", kChina) + pod("a", kSecS1, "node1") +
                pod("b", kSecS1, "node2") + pod("p", kSecS1, "", affinity({}, kAwayFromS1InAz))),
            (Scores{{"node1", 0}, {"node2", 100}}));
  // .../"Anti Affinity: one node has more matching pods comparing to other node, so the node
  // which has more unmatches will get high score"
  EXPECT_EQ(run(node("node1", kAz1) + node("node2", kIndia) + pod("a", kSecS1, "node1") +
                pod("b", kSecS1, "node1") + pod("c", kSecS2, "node2") +
                pod("p", kSecS1, "", affinity({}, kAwayFromS1InAz))),
            (Scores{{"node1", 0}, {"node2", 100}}));
  // .../"Anti Affinity symmetry: the existing pods in node which has anti affinity match will
  // get high score"
  EXPECT_EQ(run(node("node1", kAz1) + node("node2", kAz2) +
                pod("a", kSecS1, "node1", affinity({}, kAwayFromS2InAz)) +
                pod("b", kSecS2, "node2", affinity({}, kAwayFromS1InAz)) + pod("p", kSecS2)),
            (Scores{{"node1", 0}, {"node2", 100}}));
  // .../"Affinity and Anti Affinity: considered only
  // preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity"
  EXPECT_EQ(run(node("node1", kChina) + node("node2", kAz1) + pod("a", kSecS1, "node1") +
                pod("b", kSecS1, "node2") + pod("p", kSecS1, "", stay_s1_away_s2())),
            (Scores{{"node1", 100}, {"node2", 0}}));
  // .../"Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to
  // schedule and existing pods have the same labels"
  EXPECT_EQ(run(node("node1", kChinaAz1) + node("node2", kIndia) + node("node3", kChina) +
                node("node4", kChina) + node("node5", kIndia) + pod("a", kSecS1, "node1") +
                pod("b", kSecS1, "node1") + pod("c", kSecS1, "node2") + pod("d", kSecS1, "node3") +
                pod("e", kSecS1, "node3") + pod("f", kSecS1, "node4") + pod("g", kSecS1, "node5") +
                pod("p", kSecS1, "", stay_s1_away_s2())),
            (Scores{{"node1", 100}, {"node2", 0}, {"node3", 100}, {"node4", 100}, {"node5", 0}}));
  // .../"Affinity and Anti Affinity and symmetry: considered only
  // preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity &
  // symmetry"
  EXPECT_EQ(run(node("node1", kChina) + node("node2", kAz1) + node("node3", kIndia) +
                node("node4", kAz2) + pod("a", kSecS1, "node1") + pod("b", kSecS2, "node2") +
                pod("c", "{}", "node3", stay_s1_away_s2()) +
                pod("d", "{}", "node4", affinity({}, kAwayFromS1InAz)) +
                pod("p", kSecS1, "", stay_s1_away_s2())),
            (Scores{{"node1", 100}, {"node2", 0}, {"node3", 100}, {"node4", 0}}));
  // .../"Avoid panic when partial nodes in a topology don't have pods with affinity"
  EXPECT_EQ(run(node("node1", kChina) + node("node2", kChina) + pod("a", kSecS1, "node1") +
                pod("b", "{}", "node2", stay_s1_away_s2()) + pod("p", kSecS1)),
            (Scores{{"node1", 0}, {"node2", 0}}));
  // .../"invalid Affinity fails PreScore", "invalid AntiAffinity fails PreScore": rejected by the
  // loader (LoaderErrors).
  const std::string two = node("node1", kChina) + node("node2", kIndia);
  const std::string ns_pods =
      pod("subteam1.team1/a", kSecS1, "node1") + pod("subteam1.team1/b", kSecS1, "node1");
  auto ns_run = [&](const std::string& objs) {
    return Direct(team_namespaces() + objs).scores("subteam1.team1/p");
  };
  // .../"Affinity with pods matching NamespaceSelector"
  EXPECT_EQ(ns_run(two + ns_pods + pod("subteam1.team2/c", kSecS1, "node1") +
                   pod("subteam2.team1/d", kSecS1, "node2") +
                   pod("subteam1.team1/p", kSecS1, "", affinity(kNsSelectorTerm))),
            (Scores{{"node1", 100}, {"node2", 0}}));
  // .../"Affinity with pods matching both NamespaceSelector and Namespaces fields"
  EXPECT_EQ(ns_run(two + ns_pods + pod("subteam2.team2/c", kSecS1, "node1") +
                   pod("subteam2.team1/d", kSecS1, "node2") +
                   pod("subteam1.team1/p", kSecS1, "", affinity(kNsSelectorTerm))),
            (Scores{{"node1", 100}, {"node2", 0}}));
  // .../"Affinity with pods matching NamespaceSelector" (the anti-affinity variant)
  EXPECT_EQ(ns_run(two + ns_pods + pod("subteam1.team2/c", kSecS1, "node1") +
                   pod("subteam2.team1/d", kSecS1, "node2") +
                   pod("subteam1.team1/p", kSecS1, "", affinity({}, kNsSelectorTerm))),
            (Scores{{"node1", 0}, {"node2", 100}}));
  // .../"Affinity with pods matching both NamespaceSelector and Namespaces fields" (anti)
  EXPECT_EQ(ns_run(two + ns_pods + pod("subteam2.team2/c", kSecS1, "node1") +
                   pod("subteam2.team1/d", kSecS1, "node2") +
                   pod("subteam1.team1/p", kSecS1, "", affinity({}, kNsSelectorTerm))),
            (Scores{{"node1", 0}, {"node2", 100}}));
  const std::string existing_prefs = two + pod("a", kSecS1, "node1", stay_s1_away_s2()) +
                                     pod("b", kSecS2, "node2", affinity(kStayWithS2InRegion));
  // .../"Ignore preferred terms of existing pods"
  EXPECT_EQ(run(existing_prefs + pod("p", kSecS2), /*ignore_existing=*/true), kScoreSkip);
  // .../"Do not ignore preferred terms of existing pods"
  EXPECT_EQ(run(existing_prefs + pod("p", kSecS2)), (Scores{{"node1", 0}, {"node2", 100}}));
  // .../"No nodes to score"
  {
    Direct d(pod("p", kSecS2));
    auto c = d.cycle(d.id("p"));
    EXPECT_TRUE(d.plugin.pre_score(c, {}).is_skip());
  }
}

// ---- TestPreferredAffinityWithHardPodAffinitySymmetricWeight ----

TEST(InterPodAffinityScore, PreferredAffinityWithHardPodAffinitySymmetricWeight) {
  // Upstream's existing pods are in namespace "" and list it in `namespaces`: "default" here.
  const Rules hard{{T(In("service", {"S1"}), "region",
                      ", namespaces: [default, subteam2.team2], namespaceSelector: "
                      "{matchExpressions: [" +
                          In("team", {"team1"}) + "]}")},
                   {}};
  const std::string cluster = team_namespaces() + node("node1", kChina) + node("node2", kIndia) +
                              node("node3", kAz1) + pod("a", "{}", "node1", affinity(hard)) +
                              pod("b", "{}", "node2", affinity(hard));
  auto run = [&](const std::string& ns, int32_t weight) {
    InterPodAffinityArgs args;
    args.hard_pod_affinity_weight = weight;
    Direct d(cluster + pod(ns + "/p", "{service: S1}"), args);
    return d.scores(ns + "/p");
  };
  const Scores both{{"node1", 100}, {"node2", 100}, {"node3", 0}};
  // TestPreferredAffinityWithHardPodAffinitySymmetricWeight/"with default weight"
  EXPECT_EQ(run("default", 1), both);
  // .../"with zero weight"
  EXPECT_EQ(run("default", 0), kScoreSkip);
  // .../"with no matching namespace"
  EXPECT_EQ(run("subteam1.team2", 1), kScoreSkip);
  // .../"with matching NamespaceSelector"
  EXPECT_EQ(run("subteam1.team1", 1), both);
  // .../"with matching Namespaces"
  EXPECT_EQ(run("subteam2.team2", 1), both);
  // Weights add up per topology pair: hardPodAffinityWeight 100 on China against a preferred
  // anti-affinity of weight 40 toward the incoming pod on India and nothing on node3.
  InterPodAffinityArgs args;
  args.hard_pod_affinity_weight = 100;
  Direct d(
      team_namespaces() + node("node1", kChina) + node("node2", kIndia) + node("node3", kAz1) +
          pod("a", "{}", "node1", affinity(hard)) +
          pod("b", "{}", "node2", affinity({}, {{}, {W(40, T(Exists("service"), "region"))}})) +
          pod("p", "{service: S1}"),
      args);
  // Raw 100, -40, 0: (s + 40) * 100 / 140 truncated → 100, 0, 28.
  EXPECT_EQ(d.scores("p"), (Scores{{"node1", 100}, {"node2", 0}, {"node3", 28}}));
}

// ---- matchLabelKeys / mismatchLabelKeys ----

TEST(InterPodAffinity, MatchLabelKeysAreMergedIntoTheSelector) {
  // One pod per node across revisions: hostname anti-affinity against app=web with
  // matchLabelKeys [pod-template-hash] only repels pods of the same revision.
  const std::string spec =
      affinity({}, {{"{labelSelector: {matchLabels: {app: web}}, topologyKey: "
                     "kubernetes.io/hostname, matchLabelKeys: [pod-template-hash]}"}});
  const std::string objs = node("n1", "{}") + node("n2", "{}") + node("n3", "{}") +
                           pod("old", "{app: web, pod-template-hash: v1}", "n1", spec) +
                           pod("new", "{app: web, pod-template-hash: v2}", "n2", spec) +
                           pod("p", "{app: web, pod-template-hash: v2}", "", spec);
  Direct d(objs);
  EXPECT_EQ(d.filter("p"), (Verdicts{{"n1", ""}, {"n2", "N"}, {"n3", ""}}));
  // The loaded selector: matchLabels app=web plus pod-template-hash In [v2].
  const PodAffinityTerm& t = d.st.pod(d.id("p")).spec->pod_anti_affinity.required.at(0);
  ASSERT_TRUE(t.selector);
  ASSERT_EQ(t.selector->match_expressions.size(), 1u);
  EXPECT_EQ(interned(t.selector->match_expressions[0].key), "pod-template-hash");
  EXPECT_EQ(t.selector->match_expressions[0].op, SelectorOp::kIn);
  EXPECT_EQ(interned(t.selector->match_expressions[0].values.at(0)), "v2");
  // A dump of a real cluster already holds the merged requirement: it is not added twice.
  const std::string merged = affinity(
      {}, {{"{labelSelector: {matchLabels: {app: web}, matchExpressions: [" +
            In("pod-template-hash", {"v2"}) +
            "]}, topologyKey: kubernetes.io/hostname, matchLabelKeys: [pod-template-hash]}"}});
  Direct again(node("n1", "{}") + pod("p", "{app: web, pod-template-hash: v2}", "", merged));
  EXPECT_EQ(again.st.pod(again.id("p"))
                .spec->pod_anti_affinity.required.at(0)
                .selector->match_expressions.size(),
            1u);
}

TEST(InterPodAffinity, MismatchLabelKeysIsolateTenants) {
  // The KEP's example: pods of a tenant keep other tenants' pods off their node pool.
  const std::string spec =
      affinity({}, {{"{labelSelector: {matchExpressions: [" + Exists("tenant") +
                     "]}, topologyKey: pool, mismatchLabelKeys: [tenant]}"}});
  const std::string objs =
      node("a1", "{pool: a}") + node("a2", "{pool: a}") + node("b1", "{pool: b}") +
      node("c1", "{pool: c}") + pod("x", "{tenant: red}", "a1", spec) +
      pod("y", "{tenant: blue}", "b1", spec) + pod("p", "{tenant: red}", "", spec);
  // Pool b holds another tenant's pod (anti-affinity, both ways); pool a only red; c is empty.
  EXPECT_EQ(Direct(objs).filter("p"), (Verdicts{{"a1", ""}, {"a2", ""}, {"b1", "N"}, {"c1", ""}}));
}

// ---- reasons through the scheduler, and preemption ----

TEST(InterPodAffinity, ReasonStringsInTheFitError) {
  const std::string objs =
      node("n1", "{zone: z1}") + node("n2", "{zone: z2}") + node("n3", "{}") +
      pod("web", "{app: web}", "n1") +
      pod("guard", "{app: guard}", "n2", affinity({}, {{T(Exists("role"), "zone")}})) +
      pod("p", "{role: x}", "",
          affinity({{T(In("app", {"web", "guard"}), "zone")}}, {{T(In("app", {"web"}), "zone")}}));
  Harness h(objs, testing::config_with({"InterPodAffinity"}));
  auto e = h.evaluate("p");
  EXPECT_EQ(e["n1"].reasons,
            std::vector<std::string>{"node(s) didn't match pod anti-affinity rules"});
  EXPECT_EQ(e["n2"].reasons,
            std::vector<std::string>{"node(s) didn't satisfy existing pods anti-affinity rules"});
  EXPECT_EQ(e["n3"].reasons, std::vector<std::string>{"node(s) didn't match pod affinity rules"});
  std::vector<fw::ScheduleOutcome> outs;
  h.schedule_all(&outs);
  ASSERT_FALSE(outs.empty());
  EXPECT_EQ(outs[0].message,
            "0/3 nodes are available: 1 node(s) didn't match pod affinity rules, 1 node(s) didn't "
            "match pod anti-affinity rules, 1 node(s) didn't satisfy existing pods anti-affinity "
            "rules.");
}

const std::string kPreemptConfig =
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    "profiles:\n- deterministic: true\n";

TEST(InterPodAffinity, PreemptionEvictsTheVictimThatBlocksAntiAffinity) {
  // One node with plenty of room; a low-priority pod labelled app=db is there. The incoming
  // high-priority pod has required anti-affinity against app=db on the hostname: only evicting
  // the victim helps (the filter's rejection is Unschedulable, and RemovePod updates the counts).
  const std::string objs =
      node("n1", "{}") +
      pod_doc("db", {"{cpu: 100m}"}, "nodeName: n1\npriority: 1", "labels: {app: db}") +
      pod_doc("other", {"{cpu: 100m}"}, "nodeName: n1\npriority: 1", "labels: {app: other}") +
      pod_doc("p", {"{cpu: 100m}"},
              "priority: 100\n" + affinity({}, {{T(In("app", {"db"}), "kubernetes.io/hostname")}}),
              "labels: {app: web}");
  Harness h(objs, kPreemptConfig);
  std::vector<fw::ScheduleOutcome> outs;
  auto placed = h.schedule_all(&outs);
  ASSERT_FALSE(outs.empty());
  EXPECT_EQ(outs[0].message,
            "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules.");
  ASSERT_EQ(outs[0].victims.size(), 1u);  // "other" was reprieved
  EXPECT_EQ(h.backend.deletions().at(0).pod, "default/db");
  EXPECT_EQ(placed["p"], "n1");
  EXPECT_EQ(placed["other"], "n1");
  EXPECT_EQ(placed.count("db"), 0u);
}

TEST(InterPodAffinity, PreemptionEvictsAnExistingPodWhoseAntiAffinityBlocks) {
  // The victim's own anti-affinity keeps the incoming pod away (existing pods' anti-affinity).
  const std::string objs = node("n1", "{}") +
                           pod_doc("loner", {"{cpu: 100m}"},
                                   "nodeName: n1\npriority: 1\n" +
                                       affinity({}, {{T(Exists("app"), "kubernetes.io/hostname")}}),
                                   "labels: {role: loner}") +
                           pod_doc("p", {"{cpu: 100m}"}, "priority: 100", "labels: {app: web}");
  Harness h(objs, kPreemptConfig);
  std::vector<fw::ScheduleOutcome> outs;
  auto placed = h.schedule_all(&outs);
  EXPECT_EQ(outs.at(0).message,
            "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules.");
  EXPECT_EQ(placed["p"], "n1");
  EXPECT_EQ(placed.count("loner"), 0u);
}

TEST(InterPodAffinity, AffinityRejectionsAreNotPreempted) {
  // Required affinity to a pod that does not exist (and the pod does not match itself):
  // UnschedulableAndUnresolvable, so preemption does not evict the low-priority pod.
  const std::string objs =
      node("n1", "{}") +
      pod_doc("low", {"{cpu: 100m}"}, "nodeName: n1\npriority: 1", "labels: {app: x}") +
      pod_doc("p", {"{cpu: 100m}"},
              "priority: 100\n" + affinity({{T(In("app", {"db"}), "kubernetes.io/hostname")}}),
              "labels: {app: web}");
  Harness h(objs, kPreemptConfig);
  std::vector<fw::ScheduleOutcome> outs;
  auto placed = h.schedule_all(&outs);
  EXPECT_EQ(outs.at(0).message,
            "0/1 nodes are available: 1 node(s) didn't match pod affinity rules. preemption: 0/1 "
            "nodes are available: 1 Preemption is not helpful for scheduling.");
  EXPECT_TRUE(h.backend.deletions().empty());
  EXPECT_EQ(placed["p"], "");
}

TEST(InterPodAffinity, DeploymentSpreadsOnePodPerNodeAndFollowsItsDatabase) {
  // Through the default profile: replicas with hostname anti-affinity against each other and
  // zone affinity to a database end up one per node, in the database's zone.
  std::string objs;
  for (int i = 0; i < 6; ++i)
    objs += node("n" + std::to_string(i), "{zone: z" + std::to_string(i % 2) + "}");
  objs += pod("db", "{app: db}", "n1");
  const std::string spec = affinity({{T(In("app", {"db"}), "zone")}},
                                    {{T(In("app", {"web"}), "kubernetes.io/hostname")}});
  for (int i = 0; i < 4; ++i) objs += pod("web" + std::to_string(i), "{app: web}", "", spec);
  Harness h(objs, kPreemptConfig);
  auto placed = h.schedule_all();
  std::set<std::string> used;
  int unplaced = 0;
  for (int i = 0; i < 4; ++i) {
    const std::string& n = placed["web" + std::to_string(i)];
    if (n.empty()) {
      ++unplaced;
      continue;
    }
    EXPECT_TRUE(n == "n1" || n == "n3" || n == "n5") << n;  // zone z1
    EXPECT_TRUE(used.insert(n).second) << "two replicas on " << n;
  }
  EXPECT_EQ(unplaced, 1);  // three nodes in z1
}

TEST(InterPodAffinity, CountsFollowTheClusterBetweenCycles) {
  // The plugin keeps a per-node copy of pods' labels between cycles, refreshed by node version:
  // binding, relabelling (a new spec) and removing pods must all show in the next PreFilter.
  Direct d(node("n1", "{}") + node("n2", "{}") + pod("x", "{app: web}", "n1") +
           pod("y", "{app: db}") +
           pod("p", "{}", "", affinity({}, {{T(In("app", {"web"}), "kubernetes.io/hostname")}})));
  EXPECT_EQ(d.filter("p"), (Verdicts{{"n1", "N"}, {"n2", ""}}));
  const PodId x = d.id("x"), y = d.id("y");
  d.st.assign(y, *d.st.find_node("n2"));
  EXPECT_EQ(d.filter("p"), (Verdicts{{"n1", "N"}, {"n2", ""}}));
  d.st.replace_spec(y, d.st.pod(x).spec);  // y becomes app=web
  EXPECT_EQ(d.filter("p"), (Verdicts{{"n1", "N"}, {"n2", "N"}}));
  d.st.remove_pod(x);
  EXPECT_EQ(d.filter("p"), (Verdicts{{"n1", ""}, {"n2", "N"}}));
}

// ---- the ClusterState index ----

TEST(InterPodAffinity, ClusterStateIndexesPodsWithTerms) {
  Direct d(node("n1", "{}") + pod("plain", "{}", "n1") +
           pod("anti", "{}", "n1", affinity({}, {{T(Exists("a"), "zone")}})) +
           pod("pref", "{}", "n1", affinity({}, {{}, {W(3, T(Exists("a"), "zone"))}})) +
           pod("pending", "{}", "", affinity({{T(Exists("a"), "zone")}})));
  ClusterState& st = d.st;
  auto names = [&](const std::vector<PodId>& ids) {
    std::set<std::string> out;
    for (PodId p : ids) out.insert(st.pod(p).name);
    return out;
  };
  // "anti" has only required anti-affinity: it filters others but scores nothing.
  EXPECT_EQ(names(st.pods_with_scoring_affinity()), (std::set<std::string>{"pref"}));
  EXPECT_EQ(names(st.pods_with_required_anti_affinity()), (std::set<std::string>{"anti"}));
  const NodeId n1 = *st.find_node("n1");
  st.assign(d.id("pending"), n1);
  EXPECT_EQ(names(st.pods_with_scoring_affinity()), (std::set<std::string>{"pref", "pending"}));
  st.set_phase(d.id("anti"), PodPhase::kSucceeded);
  EXPECT_EQ(names(st.pods_with_required_anti_affinity()), std::set<std::string>{});
  st.replace_spec(d.id("pref"), st.pod(d.id("plain")).spec);
  EXPECT_EQ(names(st.pods_with_scoring_affinity()), (std::set<std::string>{"pending"}));
  st.replace_spec(d.id("plain"), st.pod(d.id("pending")).spec);
  st.remove_pod(d.id("pending"));
  EXPECT_EQ(names(st.pods_with_scoring_affinity()), (std::set<std::string>{"plain"}));
}

// ---- args, loader errors and warnings ----

std::string load_error(const std::string& yaml) {
  try {
    parse_k8s_objects(yaml, "t.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(InterPodAffinity, LoaderErrors) {
  const std::string pre = "kind: Pod\nmetadata: {name: p}\nspec:\n  containers: []\n  ";
  auto aff = [&](const std::string& kind, const std::string& body) {
    return load_error(pre + "affinity:\n    " + kind + ":\n      " + body + "\n");
  };
  const std::string req = "requiredDuringSchedulingIgnoredDuringExecution:\n      - ";
  const std::string pref = "preferredDuringSchedulingIgnoredDuringExecution:\n      - ";
  EXPECT_EQ(aff("podAffinity", req + "{labelSelector: {matchExpressions: [{key: a, operator: "
                                     "Near, values: [x]}]}, topologyKey: zone}"),
            "t.yaml:8: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
            "labelSelector.matchExpressions[0].operator: expected In, NotIn, Exists, DoesNotExist, "
            "Gt or Lt");
  EXPECT_EQ(aff("podAntiAffinity", req + "{labelSelector: {matchExpressions: [{key: a, operator: "
                                         "Gt, values: [\"1\"]}]}, topologyKey: zone}"),
            "t.yaml:8: spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuring"
            "Execution[0].labelSelector.matchExpressions[0].operator: expected In, NotIn, Exists "
            "or DoesNotExist");
  EXPECT_EQ(
      aff("podAffinity", req + "{labelSelector: {matchExpressions: [{key: a, operator: In}]}, "
                               "topologyKey: zone}"),
      "t.yaml:8: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
      "labelSelector.matchExpressions[0].values: must be non-empty for In and NotIn");
  EXPECT_EQ(aff("podAffinity", req + "{labelSelector: {}}"),
            "t.yaml:8: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
            "topologyKey: must not be empty (a node label key such as kubernetes.io/hostname)");
  EXPECT_EQ(aff("podAffinity", req + "{labelSelector: {}, topologyKey: \"\"}"),
            "t.yaml:8: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
            "topologyKey: must not be empty (a node label key such as kubernetes.io/hostname)");
  EXPECT_EQ(aff("podAntiAffinity", pref + "{weight: 0, podAffinityTerm: {topologyKey: zone}}"),
            "t.yaml:8: spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuring"
            "Execution[0].weight: weight must be in 1..100");
  EXPECT_EQ(aff("podAffinity", pref + "{weight: 101, podAffinityTerm: {topologyKey: zone}}"),
            "t.yaml:8: spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
            ".weight: weight must be in 1..100");
  EXPECT_EQ(aff("podAffinity", pref + "{podAffinityTerm: {topologyKey: zone}}"),
            "t.yaml:8: spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
            ": preferred term without a weight");
  EXPECT_EQ(aff("podAffinity", pref + "{weight: 3}"),
            "t.yaml:8: spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
            ": preferred term without a podAffinityTerm");
  // TestRequiredAffinitySingleNode/"PodAffinity fails PreFilter with an invalid affinity label
  // syntax", TestPreferredAffinity/"invalid Affinity fails PreScore" (and the anti-affinity
  // variants): the value "{{.bad-value.}}" is not a label value.
  EXPECT_EQ(aff("podAffinity", req + "{labelSelector: {matchExpressions: [{key: service, operator: "
                                     "In, values: [\"{{.bad-value.}}\"]}]}, topologyKey: region}"),
            "t.yaml:8: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
            "labelSelector.matchExpressions[0].values[0]: invalid label value \"{{.bad-value.}}\": "
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
            "or '.', and must start and end with an alphanumeric character (at most 63)");
  EXPECT_NE(aff("podAntiAffinity", pref + "{weight: 5, podAffinityTerm: {labelSelector: "
                                          "{matchLabels: {security: \"{{.bad-value.}}\"}}, "
                                          "topologyKey: az}}")
                .find("podAffinityTerm.labelSelector.matchLabels.security: invalid label value"),
            std::string::npos);
  EXPECT_NE(aff("podAffinity", req + "{labelSelector: {}, topologyKey: zone, namespaceSelector: "
                                     "{matchLabels: {\"bad key!\": x}}}")
                .find("namespaceSelector.matchLabels.bad key!: invalid label key \"bad key!\""),
            std::string::npos);
  EXPECT_EQ(aff("podAffinity", req + "{topologyKey: zone, matchLabelKeys: [app]}"),
            "t.yaml:8: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
            "matchLabelKeys: must not be specified when labelSelector is not set");
  EXPECT_EQ(
      aff("podAffinity", req + "{labelSelector: {}, topologyKey: zone, matchLabelKeys: [app], "
                               "mismatchLabelKeys: [app]}"),
      "t.yaml:8: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
      "mismatchLabelKeys[0]: \"app\" exists in both matchLabelKeys and mismatchLabelKeys");
  EXPECT_EQ(aff("podAffinity", "requiredDuringSchedulingIgnoredDuringExecution: {a: b}"),
            "t.yaml:7: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution: "
            "expected a list");
}

TEST(InterPodAffinity, ArgsValidation) {
  auto args_error = [](const std::string& args) {
    try {
      testing::profiles_from(testing::config_with(
          {"InterPodAffinity"},
          "  pluginConfig:\n  - name: InterPodAffinity\n    args: " + args + "\n"));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(args_error("{hardPodAffinityWeight: 100, ignorePreferredTermsOfExistingPods: true}"),
            "");
  EXPECT_NE(args_error("{hardPodAffinityWeight: 101}")
                .find("pluginConfig[0].args.hardPodAffinityWeight: not in valid range [0, 100]"),
            std::string::npos);
  EXPECT_NE(args_error("{hardPodAffinityWeight: -1}").find("not in valid range [0, 100]"),
            std::string::npos);
  EXPECT_NE(args_error("{hardPodAffinityWeigth: 1}").find("hardPodAffinityWeigth"),
            std::string::npos);
}

TEST(InterPodAffinity, NamespaceObjectsAndTheMissingNamespaceWarning) {
  const std::string sel_pod =
      pod("p", "{}", "",
          affinity({{T(Exists("a"), "zone", ", namespaceSelector: {matchLabels: {team: t1}}")}}));
  // No Namespace objects: one warning naming the selector's place.
  K8sObjects without = parse_k8s_objects(node("n1", "{}") + sel_pod, "t.yaml");
  auto w = k8s_warnings(without);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
                      ".namespaceSelector: namespaceSelector names namespace labels, but the input "
                      "has no Namespace objects"),
            std::string::npos);
  EXPECT_EQ(w[0].rfind("t.yaml:", 0), 0u);
  // With a Namespace object (from another file, merged): no warning, and the object's labels
  // (plus kubernetes.io/metadata.name) are in the state.
  K8sObjects with = parse_k8s_objects(sel_pod, "pods.yaml");
  merge_into(with, parse_k8s_objects("apiVersion: v1\nkind: NamespaceList\nitems:\n- metadata: "
                                     "{name: team-a, labels: {team: t1}}\n",
                                     "ns.yaml"));
  EXPECT_TRUE(k8s_warnings(with).empty());
  ClusterState st = build_cluster(with);
  const LabelSet* l = st.namespace_labels("team-a");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->get(std::string_view("team")), "t1");
  EXPECT_EQ(l->get(std::string_view("kubernetes.io/metadata.name")), "team-a");
  EXPECT_EQ(st.namespace_labels("default"), nullptr);
  // {} selects every namespace without naming labels: no warning.
  EXPECT_TRUE(k8s_warnings(parse_k8s_objects(
                               pod("p", "{}", "",
                                   affinity({{T(Exists("a"), "zone", ", namespaceSelector: {}")}})),
                               "t.yaml"))
                  .empty());
  // Duplicate namespaces are an input error.
  K8sObjects dup = parse_k8s_objects(ns_doc("x", "{}") + ns_doc("x", "{}"), "t.yaml");
  EXPECT_THROW(build_cluster(dup), InputError);
}

}  // namespace
}  // namespace orrery::plugins
