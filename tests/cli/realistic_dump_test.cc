// `orrery schedule` on a realistic kubectl-style dump (tests/data/realistic/realistic.yaml): a List
// with managedFields, a node-exporter DaemonSet with hostPort 9100 on every node, a Helm-style
// Deployment with required hostname anti-affinity (two replicas running), a StatefulSet whose
// claims are bound to zonal CSI PersistentVolumes (zone b and zone c), a StorageClass, CSINodes, a
// PodDisruptionBudget, a gated pod, a pending pod being deleted, a finished Job pod, a NotReady
// node (not-ready taints, as the node lifecycle controller sets them), a cordoned node, and two
// tainted GPU nodes of which one holds the 8 GB training image. Every expectation below is worked
// out from upstream v1.34's code; the reasoning is next to it.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "io/k8s_objects.h"
#include "run_orrery.h"
#include "scratch_dir.h"

namespace {

const std::string kDump = std::string(ORRERY_SOURCE_DIR) + "/tests/data/realistic/realistic.yaml";

TEST(RealisticDump, PlacementsAndMessages) {
  static const orrery::testing::ScratchDir dir("realistic-dump");
  const std::string out = dir.path("placements.json");
  auto r = orrery::testing::run_orrery("schedule --cluster " + kDump + " --out " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  auto j = nlohmann::json::parse(orrery::read_text_file(out));
  std::map<std::string, nlohmann::json> by_pod;
  for (const auto& p : j["placements"]) by_pod[p["pod"].get<std::string>()] = p;

  // Queue order: every pending pod has priority 0, so creation time: web-2, blackbox, db-0, db-1,
  // train-llm (the gated pod never enters the queue; the deleted one is popped and dropped).

  // web-6c8d9f-2: node-a1 and node-b1 run a replica matching its required anti-affinity
  // (Unschedulable, InterPodAffinity); node-c1's first untolerated NoSchedule/NoExecute taint is
  // not-ready:NoSchedule (the DefaultTolerationSeconds admission only tolerates
  // not-ready:NoExecute); node-a2 is cordoned (NodeUnschedulable runs before TaintToleration); the
  // GPU nodes are tainted. Preemption may only try node-a1/node-b1, which hold no pod of lower
  // priority (node-exporter is system-node-critical, the replicas have priority 0): "No preemption
  // victims found for incoming pod" twice.
  EXPECT_TRUE(by_pod["shop/web-6c8d9f-2"]["node"].is_null());
  EXPECT_EQ(
      by_pod["shop/web-6c8d9f-2"]["reason"],
      "0/6 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: "
      "}, 1 node(s) were unschedulable, 2 node(s) didn't match pod anti-affinity rules, 2 "
      "node(s) had untolerated taint {nvidia.com/gpu: present}. preemption: 0/6 nodes are "
      "available: 2 No preemption victims found for incoming pod, 4 Preemption is not helpful "
      "for scheduling.");

  // blackbox-exporter-0 takes hostPort 9100/TCP on 0.0.0.0; node-exporter holds it (hostNetwork)
  // on every node: NodePorts rejects node-a1 and node-b1, the others fail earlier filters.
  EXPECT_TRUE(by_pod["monitoring/blackbox-exporter-0"]["node"].is_null());
  EXPECT_EQ(
      by_pod["monitoring/blackbox-exporter-0"]["reason"],
      "0/6 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: "
      "}, 1 node(s) were unschedulable, 2 node(s) didn't have free ports for the requested pod "
      "ports, 2 node(s) had untolerated taint {nvidia.com/gpu: present}. preemption: 0/6 nodes "
      "are available: 2 No preemption victims found for incoming pod, 4 Preemption is not "
      "helpful for scheduling.");

  // db-0: its claim is bound (volumeName + bind-completed) to a PV whose nodeAffinity requires
  // zone eu-west1-b: VolumeBinding rejects node-a1 ("volume node affinity conflict"); node-b1 has
  // room (4 cpu - 0.1 - 0.5 >= 1) and the zone; VolumeZone agrees (zone and region labels match).
  EXPECT_EQ(by_pod["shop/db-0"]["node"], "node-b1");
  EXPECT_EQ(by_pod["shop/db-0"]["reason"], "");

  // db-1: its volume is in zone eu-west1-c, whose only node is NotReady. Volume node affinity
  // conflicts are UnschedulableAndUnresolvable, as are taints and cordons: preemption helps
  // nowhere.
  EXPECT_TRUE(by_pod["shop/db-1"]["node"].is_null());
  EXPECT_EQ(
      by_pod["shop/db-1"]["reason"],
      "0/6 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: "
      "}, 1 node(s) were unschedulable, 2 node(s) had untolerated taint {nvidia.com/gpu: "
      "present}, 2 node(s) had volume node affinity conflict. preemption: 0/6 nodes are "
      "available: 6 Preemption is not helpful for scheduling.");

  // train-llm tolerates the GPU taint and needs one nvidia.com/gpu: gpu-1 and gpu-2 are feasible
  // and identical but for gpu-1's 8 GB image, which ImageLocality scores 100 there (8e9 · 1/6 nodes
  // is above the 1000 MiB ceiling for one container) and 0 on gpu-2; the other scores tie (same
  // allocatable, same node-exporter pod; no owner, so no default spreading).
  EXPECT_EQ(by_pod["ml/train-llm"]["node"], "gpu-1");

  // A pending pod with a deletionTimestamp is never scheduled (skipPodSchedule).
  EXPECT_TRUE(by_pod["ml/old-report"]["node"].is_null());
  EXPECT_EQ(by_pod["ml/old-report"]["reason"], "skip schedule deleting pod: ml/old-report");

  // The gated pod is never scheduled (SchedulingGates PreEnqueue).
  if (by_pod.count("ml/batch-gated")) {
    EXPECT_TRUE(by_pod["ml/batch-gated"]["node"].is_null());
    EXPECT_NE(by_pod["ml/batch-gated"]["reason"].get<std::string>().find(
                  "waiting for scheduling gates: [example.com/quota]"),
              std::string::npos);
  }
  // Nothing was evicted: no candidate had victims.
  EXPECT_TRUE(j["evictions"].empty());
  // Every object the plugins need is in the dump and nothing in it is unmodelled: no warning at
  // all (managedFields, hostNetwork, status conditions, CSINode topology keys, … do not reach
  // kube-scheduler's decisions), so --strict accepts it and gives the same placements.
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
  const std::string strict_out = dir.path("strict.json");
  auto s =
      orrery::testing::run_orrery("schedule --strict --cluster " + kDump + " --out " + strict_out);
  ASSERT_EQ(s.code, 0) << s.output;
  EXPECT_EQ(orrery::read_text_file(strict_out), orrery::read_text_file(out));
}

// `schedule -o wide` on the same dump: per placed pod the winner's weighted score, the runner-up,
// the margin and the plugin that contributed most to it.
TEST(RealisticDump, WideOutputShowsMarginAndTopPlugin) {
  auto r = orrery::testing::run_orrery("schedule -o wide --cluster " + kDump);
  ASSERT_EQ(r.code, 0) << r.output;
  auto line_of = [&](const std::string& pod) {
    const size_t at = r.output.find("\n" + pod + " ");
    EXPECT_NE(at, std::string::npos) << r.output;
    if (at == std::string::npos) return std::string();
    return r.output.substr(at + 1, r.output.find('\n', at + 1) - at - 1);
  };
  EXPECT_NE(r.output.find("POD"), std::string::npos);
  for (const char* col : {"NODE", "SCORE", "RUNNER-UP", "MARGIN", "TOP-PLUGIN", "FEASIBLE"})
    EXPECT_NE(r.output.substr(0, r.output.find('\n')).find(col), std::string::npos) << col;
  // train-llm: gpu-1 and gpu-2 are the two feasible nodes of six (all six visited: fewer than
  // 100 nodes). Every plugin but ImageLocality scores them alike (same allocatable, same
  // node-exporter pod, no owner, no preferences); ImageLocality (weight 1) gives gpu-1 100 for the
  // 8 GB image and gpu-2 0. So the runner-up is gpu-2, the margin 100, all of it ImageLocality's.
  const std::string train = line_of("ml/train-llm");
  EXPECT_NE(train.find(" gpu-1 "), std::string::npos) << train;
  EXPECT_NE(train.find(" gpu-2 "), std::string::npos) << train;
  EXPECT_NE(train.find(" 100 "), std::string::npos) << train;
  EXPECT_NE(train.find("ImageLocality (+100)"), std::string::npos) << train;
  EXPECT_NE(train.find(" 2/6"), std::string::npos) << train;
  // db-0: node-b1 is its only feasible node (VolumeBinding rejects node-a1, the rest fail earlier
  // filters), so the cycle does not score: no runner-up, no margin.
  const std::string db = line_of("shop/db-0");
  EXPECT_NE(db.find(" node-b1 "), std::string::npos) << db;
  EXPECT_NE(db.find(" 1/6"), std::string::npos) << db;
  EXPECT_EQ(db.find("ImageLocality"), std::string::npos) << db;
  // Unplaced pods keep their reason.
  EXPECT_NE(line_of("shop/db-1").find("volume node affinity conflict"), std::string::npos);
  // -o wide changes only the table: json is still the --out document.
  static const orrery::testing::ScratchDir dir("realistic-wide");
  const std::string out = dir.path("placements.json");
  auto j = orrery::testing::run_orrery("schedule -o json --cluster " + kDump + " --out " + out);
  ASSERT_EQ(j.code, 0);
  EXPECT_EQ(nlohmann::json::parse(j.output), nlohmann::json::parse(orrery::read_text_file(out)));
}

}  // namespace
