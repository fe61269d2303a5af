// Property test: on small random clusters, the default profile's per-node results
// (Scheduler::evaluate: feasibility, reasons, every plugin's normalised score, weighted total)
// equal a direct, node-by-node recomputation of upstream's formulas from the Node and Pod objects,
// and the scheduler binds each pod to a top-scored node (percentage 100, deterministic ties →
// smallest name). This checks the batched, struct-of-arrays, cached implementation against the
// plain definition.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "core/k8s_objects.h"
#include "core/rng.h"
#include "harness.h"
#include "plugins/helper/node_affinity.h"

namespace orrery::plugins {
namespace {

using testing::node_doc;
using testing::pod_doc;

struct Expected {
  bool feasible = true;
  std::vector<std::string> reasons;
  std::map<std::string, int64_t> scores;
  int64_t total = 0;
};

int64_t count_owned(const ClusterState& st, NodeId n, const Pod& pod) {
  int64_t c = 0;
  for (PodId q : st.pods_on(n)) {
    const Pod& o = st.pod(q);
    if (o.ns == pod.ns && o.owner.kind == pod.owner.kind && o.owner.name == pod.owner.name) ++c;
  }
  return c;
}

std::map<NodeId, Expected> brute_force(const ClusterState& st, const Pod& pod) {
  const PodSpec& spec = *pod.spec;
  std::map<NodeId, Expected> out;
  std::vector<NodeId> feasible;
  const StrId unsched_key = intern("node.kubernetes.io/unschedulable");
  for (NodeId n : st.nodes()) {
    const Node& node = st.node(n);
    Expected& e = out[n];
    e.feasible = false;
    if (node.unschedulable &&
        !tolerates(spec.tolerations, Taint{unsched_key, kNoStr, TaintEffect::kNoSchedule})) {
      e.reasons = {"node(s) were unschedulable"};
      continue;
    }
    bool tainted = false;
    for (const Taint& t : node.taints) {
      if ((t.effect == TaintEffect::kNoSchedule || t.effect == TaintEffect::kNoExecute) &&
          !tolerates(spec.tolerations, t)) {
        e.reasons = {"node(s) had untolerated taint {" + std::string(interned(t.key)) + ": " +
                     std::string(interned(t.value)) + "}"};
        tainted = true;
        break;
      }
    }
    if (tainted) continue;
    if (!matches_required_affinity(spec, node, intern(node.name))) {
      e.reasons = {"node(s) didn't match Pod's node affinity/selector"};
      continue;
    }
    const Resources free = st.free_of(n);
    if (st.requested(kPods)[n] + 1 > node.allocatable[kPods]) e.reasons.push_back("Too many pods");
    // Only requested resources are checked (an overcommitted node still takes best-effort pods).
    if (spec.request[kCpu] > 0 && spec.request[kCpu] > free[kCpu]) {
      e.reasons.push_back("Insufficient cpu");
    }
    if (spec.request[kMemory] > 0 && spec.request[kMemory] > free[kMemory]) {
      e.reasons.push_back("Insufficient memory");
    }
    if (!e.reasons.empty()) continue;
    e.feasible = true;
    feasible.push_back(n);
  }
  if (feasible.empty()) return out;
  std::map<NodeId, std::map<std::string, int64_t>> raw;
  // TaintToleration.
  for (NodeId n : feasible) {
    int64_t c = 0;
    for (const Taint& t : st.node(n).taints) {
      if (t.effect != TaintEffect::kPreferNoSchedule) continue;
      bool ok = false;
      for (const Toleration& tol : spec.tolerations)
        ok = ok ||
             ((tol.effect == TaintEffect::kNone || tol.effect == TaintEffect::kPreferNoSchedule) &&
              tol.tolerates(t));
      if (!ok) ++c;
    }
    raw[n]["TaintToleration"] = c;
  }
  // NodeAffinity (skipped without preferred terms → 0).
  for (NodeId n : feasible) {
    int64_t s = 0;
    for (const auto& t : spec.node_affinity.preferred)
      if (matches(t.preference, st.node(n).labels, intern(st.node(n).name))) s += t.weight;
    raw[n]["NodeAffinity"] = s;
  }
  // NodeResourcesFit (LeastAllocated, cpu & memory with non-zero requests).
  for (NodeId n : feasible) {
    int64_t sum = 0, w = 0;
    for (ResourceId r : {kCpu, kMemory}) {
      const int64_t cap = st.allocatable(r)[n];
      if (cap == 0) continue;
      const int64_t req = st.nonzero_requested(r)[n] + spec.nonzero_request[r];
      sum += req > cap ? 0 : (cap - req) * 100 / cap;
      ++w;
    }
    raw[n]["NodeResourcesFit"] = w ? sum / w : 0;
  }
  // NodeResourcesBalancedAllocation (real requests; skipped for best-effort pods).
  const bool best_effort = spec.request[kCpu] == 0 && spec.request[kMemory] == 0;
  for (NodeId n : feasible) {
    std::vector<double> f;
    for (ResourceId r : {kCpu, kMemory}) {
      const int64_t cap = st.allocatable(r)[n];
      if (cap == 0) continue;
      f.push_back(std::min(1.0, double(st.requested(r)[n] + spec.request[r]) / double(cap)));
    }
    const double sd = f.size() == 2 ? std::abs((f[0] - f[1]) / 2) : 0;
    raw[n]["NodeResourcesBalancedAllocation"] = best_effort ? 0 : int64_t((1 - sd) * 100);
  }
  // PodTopologySpread: system defaults for owned pods (hostname maxSkew 3, zone maxSkew 5).
  const bool owned = pod.owner.kind == OwnerKind::kReplicaSet;
  const StrId host = intern("kubernetes.io/hostname"), zone = intern("topology.kubernetes.io/zone");
  std::map<StrId, int64_t> zone_counts;
  for (NodeId n : feasible) zone_counts.emplace(st.node(n).labels.get(zone).value_or(kNoStr), 0);
  for (NodeId n : st.nodes()) {
    if (!matches_required_affinity(spec, st.node(n), intern(st.node(n).name))) continue;
    auto it = zone_counts.find(st.node(n).labels.get(zone).value_or(kNoStr));
    if (it != zone_counts.end()) it->second += count_owned(st, n, pod);
  }
  for (NodeId n : feasible) {
    double s = 0;
    const LabelSet& l = st.node(n).labels;
    if (l.has(host))
      s += double(count_owned(st, n, pod)) * std::log(double(feasible.size() + 2)) + 2;
    if (auto z = l.get(zone))
      s += double(zone_counts[*z]) * std::log(double(zone_counts.size() + 2)) + 4;
    raw[n]["PodTopologySpread"] = owned ? std::llround(s) : 0;
  }
  // Normalisation and weights.
  auto max_of = [&](const std::string& p) {
    int64_t m = 0;
    for (NodeId n : feasible) m = std::max(m, raw[n][p]);
    return m;
  };
  auto min_of = [&](const std::string& p) {
    int64_t m = INT64_MAX;
    for (NodeId n : feasible) m = std::min(m, raw[n][p]);
    return m;
  };
  const int64_t tt_max = max_of("TaintToleration"), na_max = max_of("NodeAffinity");
  const int64_t pts_max = max_of("PodTopologySpread"), pts_min = min_of("PodTopologySpread");
  for (NodeId n : feasible) {
    auto& r = raw[n];
    Expected& e = out[n];
    e.scores["TaintToleration"] = tt_max == 0 ? 100 : 100 - 100 * r["TaintToleration"] / tt_max;
    e.scores["NodeAffinity"] = na_max == 0 ? 0 : 100 * r["NodeAffinity"] / na_max;
    e.scores["NodeResourcesFit"] = r["NodeResourcesFit"];
    e.scores["NodeResourcesBalancedAllocation"] = r["NodeResourcesBalancedAllocation"];
    e.scores["PodTopologySpread"] =
        !owned         ? 0
        : pts_max == 0 ? 100
                       : 100 * (pts_max + pts_min - r["PodTopologySpread"]) / pts_max;
    e.total = 3 * e.scores["TaintToleration"] + 2 * e.scores["NodeAffinity"] +
              e.scores["NodeResourcesFit"] + 2 * e.scores["PodTopologySpread"] +
              e.scores["NodeResourcesBalancedAllocation"];
  }
  return out;
}

std::string random_cluster(Rng& rng, int* pending) {
  std::string out;
  const int nodes = 4 + static_cast<int>(rng.below(6));
  const char* taint_keys[] = {"a", "b", "c"};
  for (int i = 0; i < nodes; ++i) {
    const std::string name = "node-" + std::to_string(i);
    std::string labels = "{disk: " + std::string(rng.bernoulli(0.5) ? "ssd" : "hdd") + ", gen: \"" +
                         std::to_string(rng.below(5)) + "\"";
    if (rng.bernoulli(0.8)) labels += ", kubernetes.io/hostname: " + name;
    if (rng.bernoulli(0.7))
      labels += ", topology.kubernetes.io/zone: z" + std::to_string(rng.below(3));
    labels += "}";
    std::string taints;
    for (const char* k : taint_keys) {
      if (rng.bernoulli(0.2)) {
        const char* effect = rng.bernoulli(0.5) ? "NoSchedule" : "PreferNoSchedule";
        taints += std::string(taints.empty() ? "" : ", ") + "{key: " + k +
                  ", value: v, effect: " + effect + "}";
      }
    }
    std::string spec =
        "{taints: [" + taints + "]" + (rng.bernoulli(0.1) ? ", unschedulable: true" : "") + "}";
    out += node_doc(name,
                    "{cpu: " + std::to_string(1000 + 500 * rng.below(8)) +
                        "m, memory: " + std::to_string(1 + rng.below(8)) +
                        "Gi, pods: " + std::to_string(2 + rng.below(10)) + "}",
                    labels, spec);
  }
  auto random_pod = [&](const std::string& name, const std::string& node) {
    std::string req;
    const uint64_t kind = rng.below(4);
    if (kind == 1) req = "{cpu: " + std::to_string(100 * (1 + rng.below(15))) + "m}";
    if (kind == 2) {
      req = "{cpu: " + std::to_string(100 * (1 + rng.below(15))) +
            "m, memory: " + std::to_string(128 * (1 + rng.below(16))) + "Mi}";
    }
    if (kind == 3) req = "{memory: " + std::to_string(256 * (1 + rng.below(8))) + "Mi}";
    std::string spec = node.empty() ? "" : "nodeName: " + node + "\n";
    if (rng.bernoulli(0.3)) spec += "tolerations: [{key: a, operator: Exists}]\n";
    if (rng.bernoulli(0.2))
      spec += "tolerations: [{key: b, operator: Equal, value: v, effect: PreferNoSchedule}]\n";
    if (rng.bernoulli(0.2)) spec += "nodeSelector: {disk: ssd}\n";
    if (rng.bernoulli(0.3)) {
      spec +=
          "affinity:\n  nodeAffinity:\n    preferredDuringSchedulingIgnoredDuringExecution:\n"
          "    - {weight: " +
          std::to_string(1 + rng.below(100)) +
          ", preference: {matchExpressions: [{key: gen, operator: Gt, values: [\"1\"]}]}}\n"
          "    - {weight: 7, preference: {matchExpressions: [{key: disk, operator: In, values: "
          "[hdd]}]}}\n";
    }
    std::string meta;
    if (rng.bernoulli(0.6)) {
      meta = "ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs-" +
             std::to_string(rng.below(2)) + ", controller: true}]";
    }
    return pod_doc(name, {req}, spec, meta);
  };
  const int bound = static_cast<int>(rng.below(12));
  for (int i = 0; i < bound; ++i) {
    out += random_pod("bound-" + std::to_string(i), "node-" + std::to_string(rng.below(nodes)));
  }
  *pending = 4 + static_cast<int>(rng.below(5));
  for (int i = 0; i < *pending; ++i) out += random_pod("pending-" + std::to_string(i), "");
  return out;
}

TEST(BruteForce, DefaultProfileMatchesDirectRecomputation) {
  const std::string config =
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "percentageOfNodesToScore: 100\nprofiles:\n- deterministic: true\n";
  int checked_nodes = 0, scheduled = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    Rng rng(seed);
    int pending = 0;
    const std::string objs = random_cluster(rng, &pending);
    testing::Harness h(objs, config);
    // Schedule the pending pods one by one; before each, compare evaluate() with brute force.
    h.scheduler->enqueue_pending();
    for (int step = 0; step < pending; ++step) {
      if (h.scheduler->queue().size() == 0) break;
      // Evaluate every pending pod (evaluate does not change the state), then schedule one.
      for (PodId p : h.state().pods()) {
        if (h.state().pod_node(p) != kNoNode) continue;
        const Pod& pod = h.state().pod(p);
        auto want = brute_force(h.state(), pod);
        for (const auto& got : h.scheduler->evaluate(p)) {
          SCOPED_TRACE("seed " + std::to_string(seed) + " pod " + pod.name + " node " +
                       h.state().node(got.node).name);
          const Expected& e = want[got.node];
          ASSERT_EQ(got.feasible, e.feasible);
          if (!got.feasible) {
            EXPECT_EQ(got.reasons, e.reasons);
            continue;
          }
          std::map<std::string, int64_t> scores(got.scores.begin(), got.scores.end());
          EXPECT_EQ(scores, e.scores);
          EXPECT_EQ(got.total, e.total);
          ++checked_nodes;
        }
      }
      auto o = h.scheduler->schedule_next();
      ASSERT_TRUE(o);
      if (!o->scheduled) continue;
      ++scheduled;
      // The chosen node had the best total (evaluated against the state before binding).
      h.state().unassign(o->pod);
      auto want = brute_force(h.state(), h.state().pod(o->pod));
      int64_t best = -1;
      std::string best_name;
      for (auto& [n, e] : want) {
        if (!e.feasible) continue;
        const std::string& nm = h.state().node(n).name;
        if (e.total > best || (e.total == best && nm < best_name)) {
          best = e.total;
          best_name = nm;
        }
      }
      h.state().assign(o->pod, o->node);
      EXPECT_EQ(h.state().node(o->node).name, best_name) << "seed " << seed;
    }
  }
  EXPECT_GT(checked_nodes, 500);
  EXPECT_GT(scheduled, 100);
}

}  // namespace
}  // namespace orrery::plugins
