// VolumeBinding (PreFilter, Filter, Reserve), as upstream v1.34
// (pkg/scheduler/framework/plugins/volumebinding, binder.go), with feature gates at their
// defaults (StorageCapacityScoring off: no score).
//  - PreFilter: Skip for pods without claims (persistentVolumeClaim or generic ephemeral
//    volumes, named "<pod>-<volume>"). UnschedulableAndUnresolvable: a missing claim
//    (`persistentvolumeclaim "x" not found`; for an ephemeral volume `waiting for ephemeral volume
//    controller to create the persistentvolumeclaim "x"`), a Lost claim (`persistentvolumeclaim
//    "x" bound to non-existent persistentvolume "v"`), a claim being deleted (`... is being
//    deleted`), an ephemeral claim the pod does not own, and unbound claims that are not
//    WaitForFirstConsumer ("pod has unbound immediate PersistentVolumeClaims"; a claim is bound
//    when it has spec.volumeName and the pv.kubernetes.io/bind-completed annotation; a class that
//    is absent counts as Immediate). Bound claims whose volumes pin kubernetes.io/hostname (In)
//    narrow the candidates to those node names (GetEligibleNodes; none left: "node(s) didn't
//    satisfy plugin VolumeBinding").
//  - Filter (FindPodVolumes), UnschedulableAndUnresolvable with every reason that applies, in
//    upstream's order: "node(s) had volume node affinity conflict" (a bound volume's
//    nodeAffinity does not match the node's labels), "node(s) didn't find available persistent
//    volumes to bind" (an unbound WaitForFirstConsumer claim selected for another node, or that
//    neither matches an Available volume of its class — size, access modes, volume mode,
//    selector, node affinity, smallest first, claims in increasing size — nor can be provisioned:
//    the class's provisioner is kubernetes.io/no-provisioner or its allowedTopologies exclude the
//    node), "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)".
//  - Reserve/Unreserve: the choice is assumed for later pods (AssumePodVolumes): a matched volume
//    is taken for its claim, a claim to provision is selected for the node.
// Not modelled: CSIStorageCapacity (capacity is taken as sufficient), CSI translation of in-tree
// volumes, VolumeAttributesClass.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/plugin.h"

namespace orrery::plugins {

class VolumeBinding : public fw::Plugin {
 public:
  std::string_view name() const override;
  uint32_t extension_points() const override { return fw::kPreFilter | fw::kFilter | fw::kReserve; }
  fw::Status pre_filter(const fw::CycleContext& cycle,
                        std::optional<std::vector<NodeId>>* only) override;
  size_t filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                fw::Rejections& rejections) override;
  void describe(const ClusterState& state, const fw::Rejection& r,
                std::vector<std::string>* reasons) const override;
  fw::Status reserve(const fw::CycleContext& cycle, NodeId node) override;
  void unreserve(const fw::CycleContext& cycle, NodeId node) override;
  // Node changes (labels) may help; a released pod may have unreserved its choices.
  fw::QueueingHint queueing_hint(const fw::QueueEvent& event, const ClusterState& state,
                                 const fw::PodClassKey& waiting) const override;
  // Generic ephemeral claims are named after the pod: pods with them are classes of their own.
  uint64_t class_salt(const ClusterState& state, PodId pod) const override;

 private:
  struct Claims {
    std::vector<const PersistentVolumeClaim*> bound, delayed;
  };
  // What FindPodVolumes found for one node: reasons (bit set) and the choices for Reserve.
  struct Found {
    uint32_t reasons = 0;
    std::vector<std::pair<const PersistentVolume*, const PersistentVolumeClaim*>> bindings;
    std::vector<const PersistentVolumeClaim*> provisions;
  };
  Found find_pod_volumes(const ClusterState& state, NodeId node) const;
  bool bound_to_claim(const PersistentVolume& pv, const PersistentVolumeClaim& pvc) const;
  const PersistentVolume* find_matching_volume(
      const ApiObjects& api, const PersistentVolumeClaim& pvc, const Node& node,
      const std::vector<const PersistentVolume*>& excluded) const;

  Claims claims_;
  // Assumed choices of earlier pods: volume name → claim key ("ns/name") and claim key → node.
  std::unordered_map<std::string, std::string> assumed_volumes_;
  std::unordered_map<std::string, std::string> assumed_nodes_;
  // What each reserved pod assumed (by pod serial), for Unreserve.
  std::unordered_map<uint64_t, std::vector<std::pair<bool, std::string>>> reserved_;
};

}  // namespace orrery::plugins
