// Property test: on small random clusters (with inter-pod affinity and explicit topology spread
// constraints on a third of the pods each, claims bound to zonal CSI volumes under attach limits,
// and some bound pods being deleted), the
// default profile's per-node results
// (Scheduler::evaluate: feasibility, reasons, every plugin's normalised score, weighted total)
// equal a direct, node-by-node recomputation of upstream's formulas from the Node and Pod objects,
// and the scheduler binds each pod to a top-scored node (percentage 100, deterministic ties →
// smallest name). This checks the batched, struct-of-arrays, cached implementation against the
// plain definition.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "brute_force.h"
#include "core/rng.h"
#include "harness.h"
#include "io/k8s_objects.h"

namespace orrery::plugins {
namespace {

using testing::brute_force;
using testing::Expected;
using testing::node_doc;
using testing::pod_doc;

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
    std::string node = node_doc(name,
                                "{cpu: " + std::to_string(1000 + 500 * rng.below(8)) +
                                    "m, memory: " + std::to_string(1 + rng.below(8)) +
                                    "Gi, pods: " + std::to_string(2 + rng.below(10)) + "}",
                                labels, spec);
    // Some nodes report images (ImageLocality): sizes 50..1600 MiB.
    std::string images;
    for (const char* im : {"app:v1", "db:v2", "big:latest"}) {
      if (!rng.bernoulli(0.4)) continue;
      images += std::string(images.empty() ? "" : ", ") + "{names: [\"" + im +
                "\"], sizeBytes: " + std::to_string((50 + 50 * rng.below(32)) << 20) + "}";
    }
    if (!images.empty()) {
      node.pop_back();  // "}\n" of the status mapping
      node.pop_back();
      node += ", images: [" + images + "]}\n";
    }
    out += node;
  }
  // Inter-pod (anti-)affinity: selectors on app (matchLabels, In, NotIn, everything, or none),
  // topology keys hostname / zone / disk, namespaces (own, listed, by label, all) and
  // matchLabelKeys, in the four kinds of terms.
  auto random_term = [&]() {
    static const char* kSelectors[] = {
        "labelSelector: {matchLabels: {app: a}}, ",
        "labelSelector: {matchExpressions: [{key: app, operator: In, values: [a, b]}]}, ",
        "labelSelector: {matchExpressions: [{key: app, operator: NotIn, values: [c]}]}, ",
        "labelSelector: {}, ", ""};
    static const char* kKeys[] = {"kubernetes.io/hostname", "topology.kubernetes.io/zone", "disk"};
    std::string t =
        "{" + std::string(kSelectors[rng.below(5)]) + "topologyKey: " + kKeys[rng.below(3)];
    switch (rng.below(8)) {
      case 0: t += ", namespaces: [other]"; break;
      case 1: t += ", namespaceSelector: {matchLabels: {team: t1}}"; break;
      case 2: t += ", namespaceSelector: {}"; break;
      case 3:
        t += ", namespaces: [default], namespaceSelector: {matchExpressions: [{key: team, "
             "operator: NotIn, values: [t1]}]}";
        break;
      default: break;
    }
    if (t.find("labelSelector") != std::string::npos && rng.bernoulli(0.2))
      t += rng.bernoulli(0.5) ? ", matchLabelKeys: [tier]" : ", mismatchLabelKeys: [tier]";
    return t + "}";
  };
  auto random_pod_affinity = [&]() {
    std::string kinds[2][2];  // [affinity, anti][required, preferred]
    const int terms = 1 + static_cast<int>(rng.below(2));
    for (int i = 0; i < terms; ++i) {
      const uint64_t a = rng.below(2), r = rng.below(2);
      std::string& list = kinds[a][r];
      list += list.empty() ? "" : ", ";
      list += r == 0 ? random_term()
                     : "{weight: " + std::to_string(1 + rng.below(100)) +
                           ", podAffinityTerm: " + random_term() + "}";
    }
    std::string out = "affinity:\n";
    const char* names[2] = {"podAffinity", "podAntiAffinity"};
    const char* fields[2] = {"requiredDuringSchedulingIgnoredDuringExecution",
                             "preferredDuringSchedulingIgnoredDuringExecution"};
    for (int a = 0; a < 2; ++a) {
      if (kinds[a][0].empty() && kinds[a][1].empty()) continue;
      out += std::string("  ") + names[a] + ":\n";
      for (int r = 0; r < 2; ++r)
        if (!kinds[a][r].empty())
          out += std::string("    ") + fields[r] + ": [" + kinds[a][r] + "]\n";
    }
    return out;
  };
  // Explicit topologySpreadConstraints: hard and soft, hostname / zone / disk keys, selectors on
  // app (matchLabels, In, everything `{}`, none), matchLabelKeys, minDomains and both inclusion
  // policies.
  auto random_spread = [&]() {
    static const char* kKeys[] = {"kubernetes.io/hostname", "topology.kubernetes.io/zone", "disk"};
    static const char* kSelectors[] = {
        ", labelSelector: {matchLabels: {app: a}}",
        ", labelSelector: {matchExpressions: [{key: app, operator: In, values: [a, b]}]}",
        ", labelSelector: {}", ""};
    std::string out = "topologySpreadConstraints:\n";
    const int n = 1 + static_cast<int>(rng.below(2));
    for (int i = 0; i < n; ++i) {
      const bool hard = rng.bernoulli(0.5);
      const uint64_t sel = rng.below(4);
      out += "- {maxSkew: " + std::to_string(1 + rng.below(3)) +
             ", topologyKey: " + kKeys[rng.below(3)] +
             ", whenUnsatisfiable: " + (hard ? "DoNotSchedule" : "ScheduleAnyway") +
             kSelectors[sel];
      if (hard && rng.bernoulli(0.3)) out += ", minDomains: " + std::to_string(1 + rng.below(4));
      if (rng.bernoulli(0.3)) out += ", nodeAffinityPolicy: Ignore";
      if (rng.bernoulli(0.3)) out += ", nodeTaintsPolicy: Honor";
      if (sel != 3 && rng.bernoulli(0.25)) out += ", matchLabelKeys: [tier]";
      out += "}\n";
    }
    return out;
  };
  // Volumes: PVs bound to claims (CSI drivers csi.a / csi.b, zone labels — some listing two zones
  // — and zonal node affinity), an unbound claim of an Immediate class, CSINodes with attach
  // limits on some nodes.
  const int pvs = static_cast<int>(rng.below(6));
  for (int i = 0; i < pvs; ++i) {
    const std::string zone = "z" + std::to_string(rng.below(3));
    std::string labels = "{}";
    if (rng.bernoulli(0.5)) {
      labels = "{topology.kubernetes.io/zone: " + zone +
               (rng.bernoulli(0.3) ? "__z" + std::to_string(rng.below(3)) : "") + "}";
    }
    std::string affinity;
    if (rng.bernoulli(0.4)) {
      affinity =
          "  nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: "
          "topology.kubernetes.io/zone, operator: In, values: [" +
          zone + "]}]}]}}\n";
    }
    out += "---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv-" + std::to_string(i) +
           ", labels: " + labels +
           "}\nspec:\n  capacity: {storage: 1Gi}\n  accessModes: [ReadWriteOnce]\n"
           "  storageClassName: fast\n  claimRef: {namespace: default, name: claim-" +
           std::to_string(i) + "}\n  csi: {driver: csi." + (rng.bernoulli(0.6) ? "a" : "b") +
           ", volumeHandle: h-" + std::to_string(i) + "}\n" + affinity + "status: {phase: Bound}\n";
    out += "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: claim-" +
           std::to_string(i) +
           ", namespace: default, annotations: {pv.kubernetes.io/bind-completed: \"yes\"}}\n"
           "spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}, "
           "storageClassName: fast, volumeName: pv-" +
           std::to_string(i) + "}\nstatus: {phase: Bound}\n";
  }
  if (pvs > 0) {
    out +=
        "---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: fast}\n"
        "provisioner: csi.a\nvolumeBindingMode: Immediate\n";
    out +=
        "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: imm, namespace: "
        "default}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: "
        "1Gi}}, storageClassName: fast}\nstatus: {phase: Pending}\n";
    for (int i = 0; i < nodes; ++i) {
      if (!rng.bernoulli(0.5)) continue;
      out += "---\napiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {name: node-" +
             std::to_string(i) + "}\nspec:\n  drivers:\n  - {name: csi.a, nodeID: x, " +
             "allocatable: {count: " + std::to_string(rng.below(3)) +
             "}}\n  - {name: csi.b, nodeID: x" +
             (rng.bernoulli(0.5) ? ", allocatable: {count: 1}" : "") + "}\n";
    }
  }
  auto random_volumes = [&](bool bound) {
    std::string v;
    const int n = 1 + static_cast<int>(rng.below(2));
    for (int i = 0; i < n; ++i) {
      std::string claim = "claim-" + std::to_string(rng.below(pvs));
      if (!bound && rng.bernoulli(0.08)) claim = "imm";
      if (!bound && rng.bernoulli(0.05)) claim = "missing";
      v += "- {name: v" + std::to_string(i) + ", persistentVolumeClaim: {claimName: " + claim +
           "}}\n";
    }
    return "volumes:\n" + v;
  };
  // Namespace objects in half of the clusters (team t1 / t2), none in the others.
  if (rng.bernoulli(0.5)) {
    out += "---\nkind: Namespace\nmetadata: {name: default, labels: {team: t1}}\n";
    out += "---\nkind: Namespace\nmetadata: {name: other, labels: {team: t2}}\n";
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
    if (!node.empty() && rng.bernoulli(0.1))  // being deleted: not counted by spreading
      meta = "deletionTimestamp: \"2024-01-01T00:00:00Z\"\n";
    if (rng.bernoulli(0.6)) {
      meta += "ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs-" +
              std::to_string(rng.below(2)) + ", controller: true}]\n";
    }
    meta += "labels: {app: " + std::string(1, static_cast<char>('a' + rng.below(3))) + ", tier: t" +
            std::to_string(rng.below(2)) + "}";
    if (rng.bernoulli(0.35)) spec += random_pod_affinity();
    if (rng.bernoulli(0.35)) spec += random_spread();
    if (pvs > 0 && rng.bernoulli(0.4)) spec += random_volumes(!node.empty());
    std::string pod = pod_doc((rng.bernoulli(0.25) ? "other/" : "") + name, {req}, spec, meta);
    // Images (ImageLocality) and host ports (NodePorts) on the container "c0".
    static const char* kImages[] = {"app:v1", "db:v2", "big", "none:v9"};
    const std::string image = kImages[rng.below(4)];
    std::string ports;
    if (rng.bernoulli(0.25)) {
      ports = "    ports: [{containerPort: 80, hostPort: " + std::to_string(80 + rng.below(2)) +
              (rng.bernoulli(0.5) ? ", hostIP: 10.0.0." + std::to_string(rng.below(2)) : "") +
              "}]\n";
    }
    const std::string c0 = "  - name: c0\n";
    pod.replace(pod.find(c0), c0.size(), c0 + "    image: \"" + image + "\"\n" + ports);
    return pod;
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
  int checked_nodes = 0, scheduled = 0, image_scores = 0, port_conflicts = 0;
  int ipa_rejected = 0, ipa_scored = 0;       // nodes where InterPodAffinity decided or scored
  int pts_rejected = 0, pts_scored = 0;       // and PodTopologySpread's own constraints
  std::map<std::string, int> volume_reasons;  // rejections by the volume plugins
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
            port_conflicts +=
                got.reasons.size() == 1 && got.reasons[0].find("free ports") != std::string::npos;
            ipa_rejected +=
                e.reasons.size() == 1 && e.reasons[0].find("affinity rules") != std::string::npos;
            for (const char* r : {"not found", "unbound immediate", "exceed max volume count",
                                  "volume node affinity conflict", "no available volume zone"}) {
              if (e.reasons.size() == 1 && e.reasons[0].find(r) != std::string::npos)
                ++volume_reasons[r];
            }
            pts_rejected += e.reasons.size() == 1 &&
                            e.reasons[0].find("spread constraints") != std::string::npos;
            continue;
          }
          ipa_scored += e.scores.at("InterPodAffinity") > 0;
          pts_scored += !pod.spec->topology_spread.empty() &&
                        e.scores.at("PodTopologySpread") > 0 &&
                        e.scores.at("PodTopologySpread") < 100;
          std::map<std::string, int64_t> scores(got.scores.begin(), got.scores.end());
          image_scores += scores["ImageLocality"] > 0;
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
  EXPECT_GT(image_scores, 50);    // ImageLocality is exercised
  EXPECT_GT(port_conflicts, 10);  // and NodePorts
  EXPECT_GT(ipa_rejected, 100);   // and InterPodAffinity
  EXPECT_GT(ipa_scored, 100);
  EXPECT_GT(pts_rejected, 50);  // and explicit topology spread constraints
  EXPECT_GT(pts_scored, 50);
  for (const char* r : {"not found", "unbound immediate", "exceed max volume count",
                        "volume node affinity conflict", "no available volume zone"}) {
    EXPECT_GT(volume_reasons[r], 5) << r;  // and each volume plugin's rejection
    std::printf("%s: %d\n", r, volume_reasons[r]);
  }
  std::printf(
      "checked %d nodes, %d scheduled: %d ImageLocality scores > 0, %d port conflicts, "
      "InterPodAffinity rejected %d and scored %d, PodTopologySpread rejected %d and scored %d\n",
      checked_nodes, scheduled, image_scores, port_conflicts, ipa_rejected, ipa_scored,
      pts_rejected, pts_scored);
}

}  // namespace
}  // namespace orrery::plugins
