// Property tests of the scheduling cycle around the filters and scores, against oracles written
// from upstream v1.34's definitions on seeded random clusters:
//  * node sampling: numFeasibleNodesToFind (percentageOfNodesToScore, adaptive 50 − n/125 %, at
//    least 5 % and 100 nodes), the node tree's zone-interleaved order (backend/cache/node_tree.go,
//    utilnode.GetZoneKey) and the nextStartNodeIndex rotation of findNodesThatPassFilters; the
//    chosen node is the best of the sampled feasible nodes, scored over that set only;
//  * preemption (DefaultPreemption, framework/preemption): which nodes are candidates (filter
//    status Unschedulable, not ...AndUnresolvable), the victims on each node as the
//    lexicographically greatest subset of lower-priority pods that may stay (PDB-violating pods
//    first, each group most important first) found by enumerating every subset, PDB violations
//    (filterPodsWithPDBViolation), pickOneNodeForPreemption's criteria, and the "preemption:
//    0/N nodes are available: …" message when no node helps.
// The oracles take filter verdicts from brute_force.h's node-by-node recomputation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "brute_force.h"
#include "core/rng.h"
#include "harness.h"
#include "io/k8s_objects.h"

namespace orrery::plugins {
namespace {

using testing::brute_force;
using testing::filter_reasons;
using testing::node_doc;
using testing::pod_doc;

// ---- Node sampling ----

// utilnode.GetZoneKey: the beta labels win when present (even empty), "" without zone and region.
std::string zone_key(const Node& node) {
  auto label = [&](std::string_view beta, std::string_view ga) {
    if (auto v = node.labels.get(beta)) return std::string(*v);
    if (auto v = node.labels.get(ga)) return std::string(*v);
    return std::string();
  };
  const std::string zone =
      label("failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone");
  const std::string region =
      label("failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region");
  if (zone.empty() && region.empty()) return "";
  return region + std::string(":\0:", 3) + zone;
}

// nodeTree.list(): zones in the order they first appeared, their nodes in the order added,
// taken round-robin.
std::vector<NodeId> tree_order(const ClusterState& st) {
  std::vector<std::string> zones;
  std::map<std::string, std::vector<NodeId>> tree;
  for (NodeId n : st.nodes()) {
    const std::string z = zone_key(st.node(n));
    if (!tree.count(z)) zones.push_back(z);
    tree[z].push_back(n);
  }
  std::vector<NodeId> out;
  for (size_t i = 0; out.size() < st.node_count(); ++i)
    for (const std::string& z : zones)
      if (i < tree[z].size()) out.push_back(tree[z][i]);
  return out;
}

// numFeasibleNodesToFind.
size_t num_to_find(int64_t all, int64_t percentage) {
  if (all < 100) return static_cast<size_t>(all);
  if (percentage == 0) percentage = std::max<int64_t>(50 - all / 125, 5);
  const int64_t n = all * percentage / 100;
  return static_cast<size_t>(n < 100 ? 100 : n);
}

std::string sampling_cluster(Rng& rng, int* pending) {
  std::string out;
  std::vector<std::string> names;  // random, so that name order is not file order
  const int nodes = 90 + static_cast<int>(rng.below(170));
  for (int i = 0; i < nodes; ++i) {
    const std::string name = "n" + std::to_string(1000 + rng.below(9000)) + "-" + std::to_string(i);
    names.push_back(name);
    std::string labels =
        "{kubernetes.io/hostname: " + name + ", disk: " + (rng.bernoulli(0.7) ? "ssd" : "hdd");
    const std::string zone = "z" + std::to_string(rng.below(4));
    switch (rng.below(7)) {
      case 0: break;  // no zone
      case 1: labels += ", failure-domain.beta.kubernetes.io/zone: " + zone; break;
      case 2:  // both: the beta one wins
        labels += ", failure-domain.beta.kubernetes.io/zone: " + zone +
                  ", topology.kubernetes.io/zone: z9";
        break;
      case 3:
        labels += ", topology.kubernetes.io/region: r" + std::to_string(rng.below(2)) +
                  ", topology.kubernetes.io/zone: " + zone;
        break;
      case 4: labels += ", topology.kubernetes.io/region: r1"; break;
      default: labels += ", topology.kubernetes.io/zone: " + zone; break;
    }
    labels += "}";
    const std::string spec =
        rng.bernoulli(0.15) ? "{taints: [{key: a, value: v, effect: NoSchedule}]}" : "{}";
    out += node_doc(name,
                    "{cpu: " + std::to_string(1 + rng.below(4)) +
                        ", memory: 4Gi, pods: " + std::to_string(rng.below(4)) + "}",
                    labels, spec);
  }
  const int bound = static_cast<int>(rng.below(40));
  auto pod = [&](const std::string& name, const std::string& node) {
    std::string spec = node.empty() ? "" : "nodeName: " + node + "\n";
    if (rng.bernoulli(0.3)) spec += "nodeSelector: {disk: ssd}\n";
    if (rng.bernoulli(0.3)) spec += "tolerations: [{key: a, operator: Exists}]\n";
    return pod_doc(name, {"{cpu: " + std::to_string(100 * (1 + rng.below(12))) + "m}"}, spec,
                   "ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs-" +
                       std::to_string(rng.below(3)) + ", controller: true}]");
  };
  for (int i = 0; i < bound; ++i)
    out += pod("bound-" + std::to_string(i), names[rng.below(names.size())]);
  *pending = 10 + static_cast<int>(rng.below(20));
  for (int i = 0; i < *pending; ++i) out += pod("pending-" + std::to_string(i), "");
  return out;
}

TEST(BruteForceCycle, NodeSamplingFollowsNodeTreeAndRotation) {
  const int64_t percentages[] = {0, 0, 30, 50, 70, 100};
  int cycles = 0, sampled = 0, placed = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    Rng rng(seed * 7919);
    int pending = 0;
    const std::string objs = sampling_cluster(rng, &pending);
    const int64_t pct = percentages[rng.below(6)];
    const std::string config =
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "percentageOfNodesToScore: " +
        std::to_string(pct) + "\nprofiles:\n- deterministic: true\n";
    testing::Harness h(objs, config);
    ClusterState& st = h.state();
    const std::vector<NodeId> order = tree_order(st);
    const size_t all = order.size();
    size_t next_start = 0;
    h.scheduler->enqueue_pending();
    for (int step = 0; step < 3 * pending; ++step) {
      auto o = h.scheduler->schedule_next();
      if (!o) break;
      if (!o->counted) continue;  // a failed requeue probe leaves no trace
      SCOPED_TRACE("seed " + std::to_string(seed) + " step " + std::to_string(step));
      ASSERT_EQ(o->nominated_node, kNoNode);  // equal priorities: nothing to preempt
      if (o->scheduled) st.unassign(o->pod);
      const Pod& pod = st.pod(o->pod);
      // findNodesThatPassFilters, sequentially: from nextStartNodeIndex until enough are found.
      const size_t want = num_to_find(static_cast<int64_t>(all), pct);
      std::vector<uint8_t> mask(st.node_slots(), 0);
      size_t found = 0, processed = 0;
      for (size_t i = 0; i < all && found < want; ++i) {
        const NodeId n = order[(next_start + i) % all];
        ++processed;
        if (filter_reasons(st, pod, n).empty()) {
          mask[n] = 1;
          ++found;
        }
      }
      next_start = (next_start + processed) % all;
      EXPECT_EQ(o->evaluated_nodes, static_cast<int>(processed));
      EXPECT_EQ(o->feasible_nodes, static_cast<int>(found));
      sampled += processed < all;
      ++cycles;
      if (found == 0) {
        EXPECT_FALSE(o->scheduled);
        continue;
      }
      ASSERT_TRUE(o->scheduled);
      // The best total over the sampled feasible nodes (scores normalised over them only), ties
      // by the smallest name.
      std::string best_name;
      int64_t best = -1;
      for (const auto& [n, e] : brute_force(st, pod, &mask)) {
        if (!e.feasible) continue;
        const std::string& nm = st.node(n).name;
        if (e.total > best || (e.total == best && nm < best_name)) {
          best = e.total;
          best_name = nm;
        }
      }
      st.assign(o->pod, o->node);
      EXPECT_EQ(st.node(o->node).name, best_name);
      ++placed;
    }
  }
  EXPECT_GT(cycles, 150);
  EXPECT_GT(sampled, 50);  // cycles that stopped before the whole list
  EXPECT_GT(placed, 100);
  std::printf("%d cycles (%d stopped early), %d placed\n", cycles, sampled, placed);
}

// ---- Preemption ----

// util.MoreImportantPod (creationTimestamp stands in for the start time; creation order last).
bool more_important(const ClusterState& st, PodId a, PodId b) {
  const Pod& pa = st.pod(a);
  const Pod& pb = st.pod(b);
  if (pa.spec->priority != pb.spec->priority) return pa.spec->priority > pb.spec->priority;
  if (pa.creation_us != pb.creation_us) return pa.creation_us < pb.creation_us;
  return st.pod_serial(a) < st.pod_serial(b);
}

// filterPodsWithPDBViolation over `pods` (in order): whether each one's eviction violates.
std::vector<bool> pdb_violations(const ClusterState& st, const std::vector<PodId>& pods) {
  const auto& pdbs = st.api_objects().pdbs;
  std::vector<int64_t> allowed;
  for (const auto& b : pdbs) allowed.push_back(b.disruptions_allowed);
  std::vector<bool> out;
  for (PodId p : pods) {
    const Pod& pod = st.pod(p);
    bool violated = false;
    for (size_t i = 0; i < pdbs.size(); ++i) {
      const auto& b = pdbs[i];
      if (b.ns != pod.ns || !b.selector || b.selector->empty() ||
          !b.selector->matches(pod.spec->labels) || b.disrupted_pods.count(pod.name)) {
        continue;
      }
      if (--allowed[i] < 0) violated = true;
    }
    out.push_back(violated);
  }
  return out;
}

bool resolvable(const ClusterState& st, const Pod& pod, NodeId n,
                const std::vector<std::string>& reasons) {
  static const std::set<std::string> kResolvable = {
      "node(s) didn't have free ports for the requested pod ports",
      "node(s) didn't match pod anti-affinity rules",
      "node(s) didn't satisfy existing pods anti-affinity rules"};
  if (kResolvable.count(reasons[0])) return true;
  if (reasons[0] != "Too many pods" && !reasons[0].starts_with("Insufficient ")) return false;
  // NodeResourcesFit: UnschedulableAndUnresolvable when a request exceeds the whole allocatable.
  const Node& node = st.node(n);
  if (node.allocatable[kPods] < 1) return false;
  for (int r = 0; r < kMaxResources; ++r)
    if (r != kPods && pod.spec->request.q[r] > node.allocatable.q[r]) return false;
  return true;
}

struct Candidate {
  NodeId node;
  std::vector<PodId> victims;  // most important first
  int violations = 0;
};

// SelectVictimsOnNode by enumeration; nullopt with `reasons` when the node cannot help.
std::optional<Candidate> victims_by_subsets(ClusterState& st, const Pod& pod, NodeId n,
                                            std::vector<std::string>* reasons) {
  std::vector<PodId> lower;
  for (PodId q : st.pods_on(n))
    if (st.pod(q).spec->priority < pod.spec->priority) lower.push_back(q);
  if (lower.empty()) {
    *reasons = {"No preemption victims found for incoming pod"};
    return std::nullopt;
  }
  std::sort(lower.begin(), lower.end(), [&](PodId a, PodId b) { return more_important(st, a, b); });
  const std::vector<bool> violates = pdb_violations(st, lower);
  // Reprieve order: violating pods first, then the others, each most important first.
  std::vector<size_t> order;
  for (size_t i = 0; i < lower.size(); ++i)
    if (violates[i]) order.push_back(i);
  for (size_t i = 0; i < lower.size(); ++i)
    if (!violates[i]) order.push_back(i);
  const size_t k = order.size();
  // Bit k-1-j of a mask keeps order[j]: the greatest feasible mask keeps the earliest pods.
  int64_t best = -1;
  for (int64_t mask = (int64_t{1} << k) - 1; mask >= 0 && best < 0; --mask) {
    std::vector<PodId> removed;
    for (size_t j = 0; j < k; ++j)
      if (!(mask >> (k - 1 - j) & 1)) removed.push_back(lower[order[j]]);
    for (PodId q : removed) st.unassign(q);
    std::vector<std::string> r = filter_reasons(st, pod, n);
    for (PodId q : removed) st.assign(q, n);
    if (r.empty()) best = mask;
    if (mask == 0 && best < 0) *reasons = r;
  }
  if (best < 0) return std::nullopt;
  Candidate c{n, {}, 0};
  for (size_t j = 0; j < k; ++j) {
    if (best >> (k - 1 - j) & 1) continue;
    c.victims.push_back(lower[order[j]]);
    c.violations += violates[order[j]];
  }
  std::sort(c.victims.begin(), c.victims.end(),
            [&](PodId a, PodId b) { return more_important(st, a, b); });
  return c;
}

// pickOneNodeForPreemption: the candidates tied on every criterion.
std::vector<const Candidate*> best_candidates(const ClusterState& st,
                                              const std::vector<Candidate>& cands) {
  auto key = [&](const Candidate& c) {
    const int64_t top = st.pod(c.victims.front()).spec->priority;
    int64_t sum = 0, earliest = std::numeric_limits<int64_t>::max();
    for (PodId v : c.victims) {
      sum += st.pod(v).spec->priority + int64_t{std::numeric_limits<int32_t>::max()} + 1;
      if (st.pod(v).spec->priority == top) earliest = std::min(earliest, st.pod(v).creation_us);
    }
    // Smaller is better: violations, top priority, Σ priorities, victims, −latest start.
    return std::make_tuple(c.violations, top, sum, c.victims.size(), -earliest);
  };
  std::vector<const Candidate*> out;
  for (const Candidate& c : cands) {
    if (!out.empty() && key(c) > key(*out[0])) continue;
    if (!out.empty() && key(c) < key(*out[0])) out.clear();
    out.push_back(&c);
  }
  return out;
}

std::string preemption_cluster(Rng& rng) {
  std::string out;
  const int nodes = 2 + static_cast<int>(rng.below(5));
  for (int i = 0; i < nodes; ++i) {
    const std::string name = "node-" + std::to_string(i);
    std::string spec = "{}";
    if (rng.bernoulli(0.1)) spec = "{taints: [{key: a, value: v, effect: NoSchedule}]}";
    if (rng.bernoulli(0.05)) spec = "{unschedulable: true}";
    out += node_doc(name,
                    "{cpu: " + std::to_string(2 + rng.below(3)) +
                        ", memory: 8Gi, pods: " + std::to_string(2 + rng.below(5)) + "}",
                    "{kubernetes.io/hostname: " + name + ", topology.kubernetes.io/zone: z" +
                        std::to_string(rng.below(2)) + "}",
                    spec);
  }
  static const int kPriorities[] = {0, 1, 1, 2, 5};
  const int bound = 2 + static_cast<int>(rng.below(12));
  for (int i = 0; i < bound; ++i) {
    std::string spec = "nodeName: node-" + std::to_string(rng.below(nodes)) +
                       "\npriority: " + std::to_string(kPriorities[rng.below(5)]) + "\n";
    std::string ports;
    if (rng.bernoulli(0.2)) ports = "    ports: [{containerPort: 80, hostPort: 80}]\n";
    if (rng.bernoulli(0.15)) {
      spec +=
          "affinity:\n  podAntiAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n"
          "    - {labelSelector: {matchLabels: {app: x}}, topologyKey: kubernetes.io/hostname}\n";
    }
    std::string pod = pod_doc("bound-" + std::to_string(i),
                              {"{cpu: " + std::to_string(500 * (1 + rng.below(3))) + "m}"}, spec,
                              "labels: {app: " + std::string(rng.bernoulli(0.5) ? "a" : "b") +
                                  "}\ncreationTimestamp: \"2024-01-01T00:00:0" +
                                  std::to_string(rng.below(3)) + "Z\"");
    const std::string c0 = "  - name: c0\n";
    pod.replace(pod.find(c0), c0.size(), c0 + ports);
    out += pod;
  }
  // PodDisruptionBudgets on app a / b.
  for (int i = 0, n = static_cast<int>(rng.below(3)); i < n; ++i) {
    out += "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: pdb-" +
           std::to_string(i) + ", namespace: default}\nspec: {minAvailable: 1, selector: " +
           "{matchLabels: {app: " + (rng.bernoulli(0.5) ? "a" : "b") +
           "}}}\nstatus: {disruptionsAllowed: " + std::to_string(rng.below(3)) +
           ", disruptedPods: " +
           (rng.bernoulli(0.2)
                ? "{bound-" + std::to_string(rng.below(bound)) + ": \"2024-01-01T00:00:00Z\"}"
                : std::string("{}")) +
           "}\n";
  }
  // The preemptor.
  std::string spec = "priority: " + std::to_string(1 + rng.below(6)) + "\n";
  if (rng.bernoulli(0.05)) spec += "preemptionPolicy: Never\n";
  if (rng.bernoulli(0.2)) spec += "tolerations: [{key: a, operator: Exists}]\n";
  std::string ports;
  if (rng.bernoulli(0.25)) ports = "    ports: [{containerPort: 80, hostPort: 80}]\n";
  if (rng.bernoulli(0.25)) {
    spec +=
        "affinity:\n  podAntiAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n"
        "    - {labelSelector: {matchLabels: {app: a}}, topologyKey: kubernetes.io/hostname}\n";
  }
  std::string pod = pod_doc("preemptor", {"{cpu: " + std::to_string(1 + rng.below(4)) + "}"}, spec,
                            rng.bernoulli(0.3) ? "labels: {app: x}" : "labels: {app: y}");
  const std::string c0 = "  - name: c0\n";
  pod.replace(pod.find(c0), c0.size(), c0 + ports);
  return out + pod;
}

TEST(BruteForceCycle, PreemptionMatchesSubsetOracle) {
  const std::string config =
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "profiles:\n- deterministic: true\n";
  int preempted = 0, no_candidate = 0, with_violations = 0, ties = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    Rng rng(seed);
    const std::string objs = preemption_cluster(rng);
    testing::Harness h(objs, config);
    ClusterState& st = h.state();
    const PodId p = h.pod("preemptor");
    const Pod& pod = st.pod(p);
    SCOPED_TRACE("seed " + std::to_string(seed));
    // The oracle, on the state before the cycle.
    bool fits = false;
    std::vector<Candidate> cands;
    std::map<std::string, int> reason_counts;
    for (NodeId n : st.nodes()) {
      std::vector<std::string> r = filter_reasons(st, pod, n);
      if (r.empty()) {
        fits = true;
        continue;
      }
      if (!resolvable(st, pod, n, r)) {
        reason_counts["Preemption is not helpful for scheduling"]++;
        continue;
      }
      std::vector<std::string> why;
      if (auto c = victims_by_subsets(st, pod, n, &why)) {
        cands.push_back(*c);
      } else {
        for (const std::string& w : why) reason_counts[w]++;
      }
    }
    // node name → victim names of the candidates pickOneNodeForPreemption may choose.
    std::map<std::string, std::set<std::string>> best;
    int best_violations = 0;
    for (const Candidate* c : best_candidates(st, cands)) {
      for (PodId v : c->victims) best[st.node(c->node).name].insert(st.pod(v).name);
      best_violations = c->violations;
    }
    const bool never = pod.spec->preempt_never;
    const size_t node_count = st.node_count();
    h.scheduler->enqueue_pending();
    auto o = h.scheduler->schedule_next();
    ASSERT_TRUE(o);
    if (fits) {
      EXPECT_TRUE(o->scheduled);
      continue;
    }
    ASSERT_FALSE(o->scheduled);
    if (never) {
      EXPECT_EQ(o->nominated_node, kNoNode);
      EXPECT_NE(o->message.find("preemption: not eligible due to preemptionPolicy=Never."),
                std::string::npos);
      continue;
    }
    if (cands.empty()) {
      ++no_candidate;
      EXPECT_EQ(o->nominated_node, kNoNode);
      std::vector<std::string> items;
      for (const auto& [r, c] : reason_counts) items.push_back(std::to_string(c) + " " + r);
      std::sort(items.begin(), items.end());
      std::string msg = "preemption: 0/" + std::to_string(node_count) + " nodes are available: ";
      for (size_t i = 0; i < items.size(); ++i) msg += (i ? ", " : "") + items[i];
      EXPECT_TRUE(o->message.ends_with(msg + ".")) << o->message << "\nwant: " << msg;
      continue;
    }
    ++preempted;
    ties += best.size() > 1;
    ASSERT_NE(o->nominated_node, kNoNode) << "expected " << best.begin()->first;
    const std::string nominated = st.node(o->nominated_node).name;
    ASSERT_TRUE(best.count(nominated))
        << "nominated " << nominated << ", expected " << best.begin()->first;
    with_violations += best_violations > 0;
    // The victims were deleted through the backend.
    std::set<std::string> got;
    for (const auto& d : h.backend.deletions()) got.insert(split_pod_key(d.pod).second);
    EXPECT_EQ(got, best[nominated]);
  }
  EXPECT_GT(preempted, 80);
  EXPECT_GT(no_candidate, 30);
  EXPECT_GT(with_violations, 5);
  std::printf(
      "%d preemptions (%d with PDB violations, %d with tied candidates), %d without "
      "candidates\n",
      preempted, with_violations, ties, no_candidate);
}

}  // namespace
}  // namespace orrery::plugins
