// The volume plugins (VolumeRestrictions, VolumeZone, NodeVolumeLimits, VolumeBinding) against
// upstream v1.34's table tests, translated case by case into dump objects (each test names the
// upstream test it follows), plus the plugins in the default profile (messages, order).
#include <gtest/gtest.h>

#include "core/error.h"
#include "harness.h"
#include "io/k8s_objects.h"
#include "plugins/volumezone/volume_zone.h"

namespace orrery::plugins {
namespace {

using testing::config_with;
using testing::Harness;
using testing::node_doc;
using testing::pod_doc;

const std::string kDefault =
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    "profiles:\n- deterministic: true\n";

// A PersistentVolumeClaim; `spec` holds extra spec lines (flow style), `meta` extra metadata.
std::string pvc(const std::string& name, const std::string& spec, const std::string& meta = "",
                const std::string& status = "") {
  return "---\nkind: PersistentVolumeClaim\nmetadata: {name: " + name + ", namespace: default" +
         (meta.empty() ? "" : ", " + meta) + "}\nspec: {" + spec + "}\n" +
         (status.empty() ? "" : "status: {" + status + "}\n");
}
// A claim bound to `pv` (volumeName and the bind-completed annotation, as a dump shows it).
std::string bound_pvc(const std::string& name, const std::string& pv,
                      const std::string& extra = "") {
  return pvc(name, "volumeName: " + pv + (extra.empty() ? "" : ", " + extra),
             "annotations: {pv.kubernetes.io/bind-completed: \"yes\"}", "phase: Bound");
}
std::string pv(const std::string& name, const std::string& labels, const std::string& spec) {
  return "---\nkind: PersistentVolume\nmetadata: {name: " + name + ", labels: " + labels +
         "}\nspec: {" + spec + "}\n";
}
std::string storage_class(const std::string& name, const std::string& provisioner,
                          const std::string& mode, const std::string& extra = "") {
  return "---\nkind: StorageClass\napiVersion: storage.k8s.io/v1\nmetadata: {name: " + name +
         "}\nprovisioner: " + provisioner + "\nvolumeBindingMode: " + mode + "\n" + extra;
}
// A pod using `volumes` (YAML flow items: "{name: v, persistentVolumeClaim: {claimName: c}}").
std::string vol_pod(const std::string& name, const std::vector<std::string>& volumes,
                    const std::string& node = "", const std::string& extra = "") {
  std::string spec = node.empty() ? "" : "nodeName: " + node + "\n";
  spec += "volumes:\n";
  for (const std::string& v : volumes) spec += "- " + v + "\n";
  if (volumes.empty()) spec += "  []\n";
  return pod_doc(name, {""}, spec + extra, "uid: uid-" + name);
}
std::string claim_vol(const std::string& claim, const std::string& vol = "") {
  return "{name: " + (vol.empty() ? claim : vol) + ", persistentVolumeClaim: {claimName: " + claim +
         "}}";
}

// Whether `pod` is feasible on node n (the only node), and its reasons.
fw::NodeEvaluation eval_on(const std::string& objects, const std::vector<std::string>& plugins,
                           const std::string& pod) {
  Harness h(objects, config_with(plugins));
  auto all = h.evaluate(pod);
  return all.begin()->second;
}

// ---- VolumeRestrictions (volume_restrictions_test.go) ----

// TestGCEDiskConflicts / TestAWSDiskConflicts / TestRBDDiskConflicts / TestISCSIDiskConflicts:
// "nothing", "one state", "same state" (conflict), "different state".
void disk_cases(const std::string& vol_state, const std::string& vol_state2) {
  const std::string node = node_doc("n", "{cpu: 1}");
  const std::vector<std::string> plugins = {"VolumeRestrictions"};
  const std::string reason = "node(s) had no available disk";
  auto run = [&](const std::vector<std::string>& incoming, const std::vector<std::string>& on) {
    return eval_on(node + vol_pod("existing", on, "n") + vol_pod("p", incoming), plugins, "p");
  };
  EXPECT_TRUE(run({}, {}).feasible) << "nothing";
  EXPECT_TRUE(run({}, {vol_state}).feasible) << "one state";
  auto same = run({vol_state}, {vol_state});
  EXPECT_FALSE(same.feasible) << "same state";
  EXPECT_EQ(same.reasons, std::vector<std::string>{reason});
  EXPECT_TRUE(run({vol_state2}, {vol_state}).feasible) << "different state";
}

TEST(VolumeRestrictions, TestGCEDiskConflicts) {
  disk_cases("{name: v, gcePersistentDisk: {pdName: foo}}",
             "{name: v, gcePersistentDisk: {pdName: bar}}");
  // Read-only on both sides does not conflict (isVolumeConflict).
  const std::string ro = "{name: v, gcePersistentDisk: {pdName: foo, readOnly: true}}";
  EXPECT_TRUE(eval_on(node_doc("n", "{cpu: 1}") + vol_pod("e", {ro}, "n") + vol_pod("p", {ro}),
                      {"VolumeRestrictions"}, "p")
                  .feasible);
}

TEST(VolumeRestrictions, TestAWSDiskConflicts) {
  disk_cases("{name: v, awsElasticBlockStore: {volumeID: foo}}",
             "{name: v, awsElasticBlockStore: {volumeID: bar}}");
}

TEST(VolumeRestrictions, TestRBDDiskConflicts) {
  disk_cases("{name: v, rbd: {monitors: [a, b], pool: foo, image: bar}}",
             "{name: v, rbd: {monitors: [c, d], pool: foo, image: bar}}");
}

TEST(VolumeRestrictions, TestISCSIDiskConflicts) {
  disk_cases(
      "{name: v, iscsi: {targetPortal: 127.0.0.1:3260, iqn: iqn.2016-12.server:storage.target01, "
      "lun: 0}}",
      "{name: v, iscsi: {targetPortal: 127.0.0.1:3260, iqn: iqn.2017-12.server:storage.target01, "
      "lun: 0}}");
}

// TestAccessModeConflicts.
TEST(VolumeRestrictions, TestAccessModeConflicts) {
  const std::string objects =
      node_doc("node-1", "{cpu: 1}") + node_doc("node-2", "{cpu: 1}") +
      pvc("claim-with-rwop-1", "accessModes: [ReadWriteOncePod]") +
      pvc("claim-with-rwop-2", "accessModes: [ReadWriteOncePod]") +
      pvc("claim-rwo", "accessModes: [ReadWriteOnce]") +
      vol_pod("pod-with-rwop-1", {claim_vol("claim-with-rwop-1")}, "node-1") +
      vol_pod("pod-with-rwop-2", {claim_vol("claim-with-rwop-2")}, "node-1") +
      vol_pod("pod-rwo", {claim_vol("claim-rwo")}, "node-1") + vol_pod("nothing", {}) +
      vol_pod("no-conflict", {claim_vol("claim-rwo")}) +
      vol_pod("one-conflict", {claim_vol("claim-with-rwop-1")}) +
      vol_pod("two-conflicts", {claim_vol("claim-with-rwop-1"), claim_vol("claim-with-rwop-2")}) +
      vol_pod("missing", {claim_vol("claim-missing")});
  Harness h(objects, config_with({"VolumeRestrictions"}));
  const std::string rwop =
      "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access "
      "mode";
  EXPECT_EQ(h.feasible("nothing"), (std::set<std::string>{"node-1", "node-2"}));
  EXPECT_EQ(h.feasible("no-conflict"), (std::set<std::string>{"node-1", "node-2"}));
  for (const char* p : {"one-conflict", "two-conflicts"}) {
    auto e = h.evaluate(p);
    for (const auto& [node, ev] : e) {
      EXPECT_FALSE(ev.feasible) << p << " on " << node;  // every node: the claim is in use
      EXPECT_EQ(ev.reasons, std::vector<std::string>{rwop});
    }
  }
  // "failed to get PVC": PreFilter, UnschedulableAndUnresolvable.
  EXPECT_EQ(h.evaluate("missing")["node-2"].reasons,
            std::vector<std::string>{"persistentvolumeclaim \"claim-missing\" not found"});
}

TEST(VolumeRestrictions, ReadWriteOncePodHolderCanBePreempted) {
  // The conflict is Unschedulable: preemption evicts the lower-priority holder.
  Harness h(node_doc("n1", "{cpu: 2, memory: 1Gi}") + node_doc("n2", "{cpu: 2, memory: 1Gi}") +
                pv("pv-data", "{}", "capacity: {storage: 1Gi}") +
                bound_pvc("data", "pv-data", "accessModes: [ReadWriteOncePod]") +
                vol_pod("holder", {claim_vol("data")}, "n2", "priority: 1") +
                vol_pod("p", {claim_vol("data")}, "", "priority: 10"),
            kDefault);
  std::vector<fw::ScheduleOutcome> outcomes;
  auto placed = h.schedule_all(&outcomes);
  EXPECT_EQ(placed["p"], "n2") << outcomes[0].message;
  ASSERT_EQ(h.backend.deletions().size(), 1u);
  EXPECT_EQ(h.backend.deletions()[0].pod, "default/holder");
}

// ---- VolumeZone (volume_zone_test.go) ----

const std::string kBetaZone = "failure-domain.beta.kubernetes.io/zone";
const std::string kBetaRegion = "failure-domain.beta.kubernetes.io/region";
const std::string kZone = "topology.kubernetes.io/zone";
const std::string kRegion = "topology.kubernetes.io/region";

// Is `claim` feasible on a node labelled `labels`, with VolumeZone alone?
fw::NodeEvaluation zone_eval(const std::string& volumes, const std::string& claim,
                             const std::string& labels) {
  return eval_on(node_doc("n", "{cpu: 1}", labels) + volumes +
                     vol_pod("p", claim.empty() ? std::vector<std::string>{}
                                                : std::vector<std::string>{claim_vol(claim)}),
                 {"VolumeZone"}, "p");
}

TEST(VolumeZone, TestSingleZone) {
  const std::string objects =
      pv("Vol_1", "{" + kBetaZone + ": us-west1-a}", "capacity: {storage: 1Gi}") +
      pv("Vol_2", "{" + kBetaRegion + ": us-west1-b, uselessLabel: none}", "") +
      pv("Vol_3", "{" + kBetaRegion + ": us-west1-c}", "") +
      pv("Vol_Stable_1", "{" + kZone + ": us-west1-a}", "") +
      pv("Vol_Stable_2", "{" + kRegion + ": us-west1-b, uselessLabel: none}", "") +
      pv("Vol_Stable_3", "{" + kZone + ": us-west1-c}", "") + bound_pvc("PVC_1", "Vol_1") +
      bound_pvc("PVC_2", "Vol_2") + bound_pvc("PVC_3", "Vol_3") +
      bound_pvc("PVC_4", "Vol_not_exist") + bound_pvc("PVC_Stable_1", "Vol_Stable_1") +
      bound_pvc("PVC_Stable_2", "Vol_Stable_2") + bound_pvc("PVC_Stable_3", "Vol_Stable_3");
  const std::string conflict = "node(s) had no available volume zone";
  struct Case {
    const char* name;
    std::string claim, labels;
    bool fits;
  };
  const std::vector<Case> cases = {
      {"pod without volume", "", "{" + kBetaZone + ": us-west1-a}", true},
      {"node without labels", "PVC_1", "{}", true},
      {"beta zone label matched", "PVC_1", "{" + kBetaZone + ": us-west1-a, uselessLabel: none}",
       true},
      {"beta region label matched", "PVC_2",
       "{" + kBetaRegion + ": us-west1-b, uselessLabel: none}", true},
      {"beta region label doesn't match", "PVC_2",
       "{" + kBetaRegion + ": no_us-west1-b, uselessLabel: none}", false},
      {"beta zone label doesn't match", "PVC_1",
       "{" + kBetaZone + ": no_us-west1-a, uselessLabel: none}", false},
      {"zone label matched", "PVC_Stable_1", "{" + kZone + ": us-west1-a, uselessLabel: none}",
       true},
      {"region label matched", "PVC_Stable_2", "{" + kRegion + ": us-west1-b, uselessLabel: none}",
       true},
      {"region label doesn't match", "PVC_Stable_2",
       "{" + kRegion + ": no_us-west1-b, uselessLabel: none}", false},
      {"zone label doesn't match", "PVC_Stable_1",
       "{" + kZone + ": no_us-west1-a, uselessLabel: none}", false},
      {"pv with zone and region, node with only zone", "PVC_Stable_2",
       "{" + kZone + ": us-west1-a}", false},
      {"pod with beta label, node with ga label, matched", "PVC_1", "{" + kZone + ": us-west1-a}",
       true},
      {"pod with beta label, node with ga label, don't match", "PVC_1",
       "{" + kZone + ": us-west1-b}", false},
  };
  for (const Case& c : cases) {
    auto e = zone_eval(objects, c.claim, c.labels);
    EXPECT_EQ(e.feasible, c.fits) << c.name;
    if (!c.fits) {
      EXPECT_EQ(e.reasons, std::vector<std::string>{conflict}) << c.name;
    }
  }
  // A claim bound to a missing volume: PreFilter, `persistentvolume "Vol_not_exist" not found`.
  EXPECT_EQ(zone_eval(objects, "PVC_4", "{" + kZone + ": us-west1-a}").reasons,
            std::vector<std::string>{"persistentvolume \"Vol_not_exist\" not found"});
}

TEST(VolumeZone, TestMultiZone) {
  const std::string objects =
      pv("Vol_1", "{" + kBetaZone + ": us-west1-a}", "") +
      pv("Vol_2", "{" + kBetaZone + ": us-west1-b__us-west1-a}", "") +
      pv("Vol_3", "{" + kBetaZone + ": us-west1-c}", "") +
      pv("Vol_Stable_1", "{" + kZone + ": us-west1-a}", "") +
      pv("Vol_Stable_2", "{" + kZone + ": us-west1-c__us-west1-a}", "") +
      bound_pvc("PVC_1", "Vol_1") + bound_pvc("PVC_2", "Vol_2") + bound_pvc("PVC_3", "Vol_3") +
      bound_pvc("PVC_Stable_1", "Vol_Stable_1") + bound_pvc("PVC_Stable_2", "Vol_Stable_2");
  EXPECT_TRUE(zone_eval(objects, "PVC_1", "{}").feasible) << "node without labels";
  EXPECT_TRUE(zone_eval(objects, "PVC_1", "{" + kBetaZone + ": us-west1-a}").feasible);
  EXPECT_TRUE(zone_eval(objects, "PVC_2", "{" + kBetaZone + ": us-west1-a}").feasible)
      << "multi zone matched";
  EXPECT_FALSE(zone_eval(objects, "PVC_1", "{" + kBetaZone + ": us-west1-b}").feasible);
  EXPECT_TRUE(zone_eval(objects, "PVC_Stable_2", "{" + kZone + ": us-west1-a}").feasible);
  EXPECT_FALSE(zone_eval(objects, "PVC_Stable_1", "{" + kZone + ": us-west1-b}").feasible);
}

TEST(VolumeZone, TestWithBinding) {
  const std::string objects =
      storage_class("Class_Wait", "kubernetes.io/no-provisioner", "WaitForFirstConsumer") +
      storage_class("Class_Immediate", "kubernetes.io/no-provisioner", "Immediate") +
      pv("Vol_1", "{" + kBetaZone + ": us-west1-a}", "") + bound_pvc("PVC_1", "Vol_1") +
      pvc("PVC_NoSC", "storageClassName: \"\"") + pvc("PVC_EmptySC", "") +
      pvc("PVC_WaitSC", "storageClassName: Class_Wait") +
      pvc("PVC_ImmediateSC", "storageClassName: Class_Immediate") +
      pvc("PVC_NonExistSC", "storageClassName: Class_0");
  const std::string labels = "{" + kBetaZone + ": us-west1-a, uselessLabel: none}";
  EXPECT_TRUE(zone_eval(objects, "PVC_1", labels).feasible) << "label zone failure domain matched";
  EXPECT_EQ(zone_eval(objects, "PVC_NoSC", labels).reasons,
            std::vector<std::string>{"PersistentVolumeClaim had no pv name and storageClass name"});
  EXPECT_EQ(zone_eval(objects, "PVC_EmptySC", labels).reasons,
            std::vector<std::string>{"PersistentVolumeClaim had no pv name and storageClass name"});
  EXPECT_EQ(zone_eval(objects, "PVC_NonExistSC", labels).reasons,
            std::vector<std::string>{"storageclass.storage.k8s.io \"Class_0\" not found"});
  EXPECT_TRUE(zone_eval(objects, "PVC_WaitSC", labels).feasible)
      << "unbound volume empty storage class";
  EXPECT_EQ(zone_eval(objects, "PVC_ImmediateSC", labels).reasons,
            std::vector<std::string>{"PersistentVolume had no name"});
}

TEST(VolumeZone, LabelZonesToSet) {
  EXPECT_EQ(VolumeZone::zones_to_set("a__b"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(VolumeZone::zones_to_set(" a __ b "), (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(VolumeZone::zones_to_set("a____b"));
  EXPECT_FALSE(VolumeZone::zones_to_set(""));
}

// ---- NodeVolumeLimits (csi_test.go TestCSILimits) ----

// A node n with a CSINode giving `limits` ("ebs.csi.aws.com: 2"), the volumes pv-<i> of driver
// ebs.csi.aws.com and gce PVs, claims bound to them.
std::string csi_world(const std::string& drivers) {
  std::string out = node_doc("n", "{cpu: 1}") +
                    "---\nkind: CSINode\nmetadata: {name: n}\nspec: {drivers: " + drivers + "}\n";
  for (int i = 0; i < 4; ++i) {
    const std::string s = std::to_string(i);
    out += pv("csi-ebs-" + s, "{}", "csi: {driver: ebs.csi.aws.com, volumeHandle: ebs-" + s + "}");
    out += bound_pvc("csi-ebs-" + s, "csi-ebs-" + s);
    out += pv("csi-gce-" + s, "{}",
              "csi: {driver: pd.csi.storage.gke.io, volumeHandle: gce-" + s + "}");
    out += bound_pvc("csi-gce-" + s, "csi-gce-" + s);
  }
  out += storage_class("csi-sc", "ebs.csi.aws.com", "WaitForFirstConsumer");
  out += pvc("pending", "storageClassName: csi-sc");
  out += pvc("no-sc-unbound", "storageClassName: \"\"");
  out += bound_pvc("missing-pv-with-sc", "gone", "storageClassName: csi-sc");
  return out;
}

fw::NodeEvaluation csi_eval(const std::string& drivers, const std::vector<std::string>& existing,
                            const std::vector<std::string>& incoming,
                            const std::string& extra = "") {
  std::vector<std::string> ev, iv;
  for (const auto& c : existing) ev.push_back(claim_vol(c));
  for (const auto& c : incoming) iv.push_back(claim_vol(c));
  return eval_on(csi_world(drivers) + vol_pod("existing", ev, "n") + vol_pod("p", iv) + extra,
                 {"NodeVolumeLimits"}, "p");
}

TEST(NodeVolumeLimits, TestCSILimits) {
  const std::string ebs4 = "[{name: ebs.csi.aws.com, nodeID: n, allocatable: {count: 4}}]";
  const std::string ebs2 = "[{name: ebs.csi.aws.com, nodeID: n, allocatable: {count: 2}}]";
  const std::string both2 =
      "[{name: ebs.csi.aws.com, allocatable: {count: 2}}, {name: pd.csi.storage.gke.io, "
      "allocatable: {count: 2}}]";
  const std::string exceed = "node(s) exceed max volume count";
  // "fits when node volume limit >= new pods CSI volume"
  EXPECT_TRUE(csi_eval(ebs4, {"csi-ebs-0", "csi-ebs-1"}, {"csi-ebs-2"}).feasible);
  // "doesn't when node volume limit <= pods CSI volume"
  auto e = csi_eval(ebs2, {"csi-ebs-0", "csi-ebs-1"}, {"csi-ebs-2"});
  EXPECT_FALSE(e.feasible);
  EXPECT_EQ(e.reasons, std::vector<std::string>{exceed});
  // "should when driver does not support volume limits" (no allocatable count)
  EXPECT_TRUE(
      csi_eval("[{name: ebs.csi.aws.com}]", {"csi-ebs-0", "csi-ebs-1"}, {"csi-ebs-2"}).feasible);
  // "count pending PVCs towards volume limit <= pods CSI volume" (unbound, by its class)
  EXPECT_FALSE(csi_eval(ebs2, {"csi-ebs-0", "csi-ebs-1"}, {"pending"}).feasible);
  // "should count PVCs with invalid PV name but valid SC"
  EXPECT_FALSE(csi_eval(ebs2, {"csi-ebs-0", "csi-ebs-1"}, {"missing-pv-with-sc"}).feasible);
  // "should not count PVCs without a class and without a PV"
  EXPECT_TRUE(csi_eval(ebs2, {"csi-ebs-0", "csi-ebs-1"}, {"no-sc-unbound"}).feasible);
  // "should not count volumes already attached": the incoming pod's volume is in use there.
  EXPECT_TRUE(csi_eval(ebs2, {"csi-ebs-0", "csi-ebs-1"}, {"csi-ebs-1"}).feasible);
  // "two drivers": limits are per driver.
  EXPECT_TRUE(csi_eval(both2, {"csi-ebs-0", "csi-ebs-1"}, {"csi-gce-0", "csi-gce-1"}).feasible);
  EXPECT_FALSE(csi_eval(both2, {"csi-ebs-0", "csi-gce-1"}, {"csi-gce-0", "csi-gce-2"}).feasible);
  // "don't count a volume used twice in one pod" on an existing pod
  EXPECT_TRUE(csi_eval(ebs2, {"csi-ebs-0", "csi-ebs-0"}, {"csi-ebs-1"}).feasible);
}

TEST(NodeVolumeLimits, EphemeralVolumes) {
  const std::string ebs1 = "[{name: ebs.csi.aws.com, allocatable: {count: 1}}]";
  const std::string eph = "{name: xyz, ephemeral: {volumeClaimTemplate: {spec: {}}}}";
  // "ephemeral volume missing": the claim "<pod>-<volume>" does not exist.
  auto missing = eval_on(csi_world(ebs1) + vol_pod("abc", {eph}), {"NodeVolumeLimits"}, "abc");
  EXPECT_EQ(missing.reasons,
            std::vector<std::string>{"looking up PVC default/abc-xyz: persistentvolumeclaim "
                                     "\"abc-xyz\" not found"});
  // "ephemeral volume not owned"
  auto not_owned =
      eval_on(csi_world(ebs1) + pvc("abc-xyz", "storageClassName: csi-sc") + vol_pod("abc", {eph}),
              {"NodeVolumeLimits"}, "abc");
  EXPECT_EQ(not_owned.reasons, std::vector<std::string>{"PVC default/abc-xyz was not created for "
                                                        "pod default/abc (pod is not owner)"});
  // "ephemeral volume unbound", owned: counts by its class: 1 + 1 > 1.
  const std::string owned = pvc("abc-xyz", "storageClassName: csi-sc",
                                "ownerReferences: [{kind: Pod, name: abc, uid: uid-abc, "
                                "controller: true}]");
  EXPECT_TRUE(eval_on(csi_world(ebs1) + owned + vol_pod("abc", {eph}), {"NodeVolumeLimits"}, "abc")
                  .feasible);
  EXPECT_FALSE(eval_on(csi_world(ebs1) + owned + vol_pod("e", {claim_vol("csi-ebs-0")}, "n") +
                           vol_pod("abc", {eph}),
                       {"NodeVolumeLimits"}, "abc")
                   .feasible);
}

// ---- VolumeBinding (volume_binding_test.go TestVolumeBinding) ----

const std::string kNodes =
    node_doc("node-a", "{cpu: 1}", "{kubernetes.io/hostname: node-a, foo: bar}") +
    node_doc("node-b", "{cpu: 1}", "{kubernetes.io/hostname: node-b, foo: barbar}");

std::string local_pv(const std::string& name, const std::string& host) {
  return pv(name, "{}",
            "capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], nodeAffinity: {required: "
            "{nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, "
            "values: [" +
                host + "]}]}]}}");
}

TEST(VolumeBinding, TestVolumeBinding) {
  const std::string wait_sc = storage_class("wait-sc", "\"\"", "WaitForFirstConsumer");
  const std::string immediate_sc =
      storage_class("immediate-sc", "pd.csi.storage.gke.io", "Immediate");
  const std::string objects =
      kNodes + wait_sc + immediate_sc + pv("pv-a", "{}", "capacity: {storage: 1Gi}") +
      bound_pvc("pvc-a", "pv-a") + local_pv("pv-local-a", "node-a") +
      bound_pvc("pvc-local", "pv-local-a") + local_pv("pv-local-b", "node-b") +
      bound_pvc("pvc-local-b", "pv-local-b") +
      pv("pv-foo", "{}",
         "nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: foo, operator: "
         "In, values: [bar]}]}]}}") +
      bound_pvc("pvc-foo", "pv-foo") + pvc("pvc-immediate", "storageClassName: immediate-sc") +
      pvc("pvc-wait", "storageClassName: wait-sc, resources: {requests: {storage: 1Gi}}") +
      bound_pvc("pvc-lost", "pv-gone", "") +
      pvc("pvc-deleting", "volumeName: pv-a", "deletionTimestamp: \"2024-01-01T00:00:00Z\"") +
      bound_pvc("pvc-no-pv", "pv-gone") + vol_pod("no-pvcs", {}) +
      vol_pod("all-bound", {claim_vol("pvc-a")}) + vol_pod("local", {claim_vol("pvc-local")}) +
      vol_pod("two-locals", {claim_vol("pvc-local"), claim_vol("pvc-local-b", "b")}) +
      vol_pod("missing", {claim_vol("pvc-x")}) +
      vol_pod("part-missing", {claim_vol("pvc-a"), claim_vol("pvc-b", "b")}) +
      vol_pod("immediate", {claim_vol("pvc-immediate")}) +
      vol_pod("unbound-no-match", {claim_vol("pvc-wait")}) +
      vol_pod("bound-and-unbound", {claim_vol("pvc-foo"), claim_vol("pvc-wait", "w")}) +
      vol_pod("deleting", {claim_vol("pvc-deleting")}) + vol_pod("no-pv", {claim_vol("pvc-no-pv")});
  Harness h(objects, config_with({"VolumeBinding"}));
  const std::set<std::string> both = {"node-a", "node-b"};
  EXPECT_EQ(h.feasible("no-pvcs"), both) << "pod has not pvcs";
  EXPECT_EQ(h.feasible("all-bound"), both) << "all bound";
  // "all bound with local volumes": the PreFilter result narrows to node-a.
  EXPECT_EQ(h.feasible("local"), std::set<std::string>{"node-a"});
  EXPECT_EQ(h.evaluate("local")["node-b"].reasons,
            std::vector<std::string>{"node(s) didn't satisfy plugin(s) [VolumeBinding]"});
  // Two local volumes on different nodes: no node is eligible.
  EXPECT_EQ(h.evaluate("two-locals")["node-a"].reasons,
            std::vector<std::string>{"node(s) didn't satisfy plugin VolumeBinding"});
  EXPECT_EQ(h.evaluate("missing")["node-a"].reasons,
            std::vector<std::string>{"persistentvolumeclaim \"pvc-x\" not found"})
      << "PVC does not exist";
  EXPECT_EQ(h.evaluate("part-missing")["node-a"].reasons,
            std::vector<std::string>{"persistentvolumeclaim \"pvc-b\" not found"})
      << "Part of PVCs do not exist";
  EXPECT_EQ(h.evaluate("immediate")["node-a"].reasons,
            std::vector<std::string>{"pod has unbound immediate PersistentVolumeClaims"})
      << "immediate claims not bound";
  EXPECT_EQ(h.evaluate("unbound-no-match")["node-a"].reasons,
            std::vector<std::string>{"node(s) didn't find available persistent volumes to bind"})
      << "unbound claims no matches (no provisioner)";
  auto bu = h.evaluate("bound-and-unbound");
  EXPECT_EQ(bu["node-b"].reasons,
            (std::vector<std::string>{"node(s) had volume node affinity conflict",
                                      "node(s) didn't find available persistent volumes to bind"}))
      << "bound and unbound unsatisfied";
  EXPECT_EQ(bu["node-a"].reasons,
            std::vector<std::string>{"node(s) didn't find available persistent volumes to bind"});
  EXPECT_EQ(h.evaluate("deleting")["node-a"].reasons,
            std::vector<std::string>{"persistentvolumeclaim \"pvc-deleting\" is being deleted"});
  EXPECT_EQ(h.evaluate("no-pv")["node-a"].reasons,
            std::vector<std::string>{
                "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"})
      << "pv not found";
}

TEST(VolumeBinding, WaitForFirstConsumerMatchesAndProvisions) {
  // Unbound WaitForFirstConsumer claims: an Available local volume of the class binds on its node
  // only; a class with a provisioner and allowedTopologies provisions where the topology allows.
  const std::string objects =
      kNodes + storage_class("local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer") +
      storage_class(
          "zonal", "pd.csi.storage.gke.io", "WaitForFirstConsumer",
          "allowedTopologies: [{matchLabelExpressions: [{key: foo, values: [barbar]}]}]\n") +
      local_pv("free-on-b", "node-b") +
      "---\nkind: PersistentVolume\nmetadata: {name: free-on-b-2}\nspec: {storageClassName: "
      "local, capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], nodeAffinity: {required: "
      "{nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, "
      "values: [node-b]}]}]}}}\nstatus: {phase: Available}\n" +
      pvc("c-local",
          "storageClassName: local, accessModes: [ReadWriteOnce], resources: "
          "{requests: {storage: 1Gi}}") +
      pvc("c-zonal", "storageClassName: zonal, accessModes: [ReadWriteOnce]") +
      vol_pod("p-local", {claim_vol("c-local")}) + vol_pod("p-zonal", {claim_vol("c-zonal")});
  Harness h(objects, config_with({"VolumeBinding"}));
  // free-on-b has no storageClassName (class ""): only free-on-b-2 matches.
  EXPECT_EQ(h.feasible("p-local"), std::set<std::string>{"node-b"});
  EXPECT_EQ(h.feasible("p-zonal"), std::set<std::string>{"node-b"});
}

TEST(VolumeBinding, SelectedNodeIsAssumedForLaterPods) {
  // Two pods share a WaitForFirstConsumer claim that can be provisioned anywhere: the first one's
  // node is selected for the claim (AssumePodVolumes), so the second follows it.
  const std::string objects =
      kNodes + storage_class("wait", "pd.csi.storage.gke.io", "WaitForFirstConsumer") +
      pvc("shared", "storageClassName: wait") +
      vol_pod("first", {claim_vol("shared")}, "", "nodeSelector: {foo: barbar}") +
      vol_pod("second", {claim_vol("shared")});
  Harness h(objects, kDefault);
  auto placed = h.schedule_all();
  EXPECT_EQ(placed["first"], "node-b");
  EXPECT_EQ(placed["second"], "node-b");
}

// ---- the default profile ----

TEST(VolumePlugins, DefaultProfileMessages) {
  // The default profile's PreFilter order decides which plugin reports a missing object:
  // VolumeRestrictions (missing claim) before VolumeBinding, VolumeZone (missing volume) after it.
  const std::string objects = kNodes + bound_pvc("pvc-no-pv", "pv-gone") +
                              vol_pod("missing", {claim_vol("nope")}) +
                              vol_pod("no-pv", {claim_vol("pvc-no-pv")});
  Harness h(objects, kDefault);
  std::vector<fw::ScheduleOutcome> outcomes;
  h.schedule_all(&outcomes);
  std::map<std::string, std::string> msg;
  for (const auto& o : outcomes) msg[h.state().pod(o.pod).name] = o.message;
  EXPECT_EQ(msg["missing"],
            "0/2 nodes are available: persistentvolumeclaim \"nope\" not found. preemption: 0/2 "
            "nodes are available: 2 Preemption is not helpful for scheduling.");
  EXPECT_EQ(msg["no-pv"],
            "0/2 nodes are available: persistentvolume \"pv-gone\" not found. preemption: 0/2 "
            "nodes are available: 2 Preemption is not helpful for scheduling.");
}

TEST(VolumePlugins, LoaderErrorsNameFileLineAndField) {
  auto error_of = [](const std::string& text) {
    try {
      build_cluster(parse_k8s_objects(text, "dump.yaml"));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error_of("kind: PersistentVolumeClaim\nmetadata: {name: a}\nspec:\n  accessModes: "
                     "[ReadWriteSometimes]\n"),
            "dump.yaml:4: spec.accessModes[0]: expected ReadWriteOnce, ReadOnlyMany, "
            "ReadWriteMany or ReadWriteOncePod, got \"ReadWriteSometimes\"");
  EXPECT_NE(error_of("kind: PodDisruptionBudget\nmetadata: {name: a}\nspec:\n  selector:\n"
                     "    matchExpressions: [{key: app, operator: Gt, values: [\"1\"]}]\n")
                .find("dump.yaml:5: spec.selector.matchExpressions[0].operator: expected In, "
                      "NotIn, Exists or DoesNotExist"),
            std::string::npos);
  EXPECT_EQ(error_of("kind: PodDisruptionBudget\nmetadata: {name: a}\nspec:\n  minAvailable: "
                     "\"150%\"\n"),
            "dump.yaml:4: spec.minAvailable: expected an integer >= 0 or a percentage "
            "\"0%\"..\"100%\", got \"150%\"");
  EXPECT_EQ(error_of("kind: StorageClass\nmetadata: {name: a}\nprovisioner: x\n"
                     "volumeBindingMode: Later\n"),
            "dump.yaml:4: volumeBindingMode: expected Immediate or WaitForFirstConsumer");
  EXPECT_NE(error_of("kind: Pod\nmetadata: {name: p}\nspec:\n  containers: []\n  volumes:\n"
                     "  - name: v\n    persistentVolumeClaim: {claimName: \"\"}\n")
                .find("dump.yaml:7: spec.volumes[0].persistentVolumeClaim.claimName: must not be "
                      "empty"),
            std::string::npos);
  EXPECT_NE(error_of("kind: List\nitems:\n- kind: PersistentVolume\n  metadata: {name: a}\n"
                     "  spec: {}\n- kind: PersistentVolume\n  metadata: {name: a}\n  spec: {}\n")
                .find("duplicate PersistentVolume \"a\""),
            std::string::npos);
}

TEST(VolumePlugins, WarningsForMissingObjects) {
  const auto objects = parse_k8s_objects(
      kNodes + bound_pvc("c", "gone") + pvc("d", "storageClassName: nowhere") +
          vol_pod("a", {claim_vol("missing")}) +
          vol_pod("b", {claim_vol("c"), claim_vol("d", "d")}) +
          "---\nkind: PodDisruptionBudget\nmetadata: {name: pdb}\nspec: {selector: {matchLabels: "
          "{app: x}}}\n",
      "dump.yaml");
  const auto w = k8s_warnings(objects);
  ASSERT_EQ(w.size(), 4u);
  EXPECT_NE(w[0].find("1 PersistentVolumeClaim(s) used by pods are not in the input (first: pod "
                      "default/a claim \"missing\")"),
            std::string::npos);
  EXPECT_NE(w[1].find("claim(s) are bound to PersistentVolumes that are not in the input"),
            std::string::npos);
  EXPECT_NE(w[2].find("name StorageClasses that are not in the input"), std::string::npos);
  EXPECT_NE(w[3].find("PodDisruptionBudget(s) have no status.disruptionsAllowed"),
            std::string::npos);
}

TEST(BadInput, AffinityToAnUnknownNamespaceIsAWarning) {
  // Upstream accepts a term naming a namespace that does not exist (the API server does not check
  // it) and the term matches no pod there: a warning, not an error.
  const auto objects = parse_k8s_objects(
      kNodes +
          pod_doc("a", {""},
                  "affinity:\n  podAntiAffinity:\n    requiredDuringSchedulingIgnoredDuring"
                  "Execution:\n    - labelSelector: {matchLabels: {app: x}}\n      "
                  "namespaces: [nowhere, default]\n      topologyKey: kubernetes.io/hostname\n"),
      "dump.yaml");
  const auto w = k8s_warnings(objects);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0],
            "1 pod affinity term namespace(s) are not in the input (first: pod default/a names "
            "namespace \"nowhere\"): no Namespace object and no pod there, so the term matches no "
            "pod in it, as kube-scheduler does (check the name, or add the namespace's objects)");
}

TEST(BadInput, AbsurdWeightsAndUnknownOperatorsNameTheField) {
  auto error_of = [](const std::string& text) {
    try {
      parse_k8s_objects(text, "dump.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string head = "kind: Pod\nmetadata: {name: p}\nspec:\n  containers: []\n  affinity:\n";
  EXPECT_EQ(
      error_of(head + "    nodeAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n"
                      "      - weight: 1000000\n        preference: {}\n"),
      "dump.yaml:8: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuring"
      "Execution[0].weight: weight must be in 1..100");
  EXPECT_EQ(
      error_of(head + "    podAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n"
                      "      - weight: -5\n        podAffinityTerm: {topologyKey: k}\n"),
      "dump.yaml:8: spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuring"
      "Execution[0].weight: weight must be in 1..100");
  EXPECT_NE(
      error_of(head + "    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
                      "      - topologyKey: k\n        labelSelector:\n          matchExpressions:"
                      " [{key: a, operator: Near, values: [b]}]\n")
          .find("dump.yaml:10: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuring"
                "Execution[0].labelSelector.matchExpressions[0].operator: expected In"),
      std::string::npos);
  EXPECT_NE(
      error_of(head +
               "    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
               "      - topologyKey: k\n        labelSelector: {matchLabels: {\"bad key!\": x}}\n")
          .find("invalid label key \"bad key!\""),
      std::string::npos);
}

}  // namespace
}  // namespace orrery::plugins
