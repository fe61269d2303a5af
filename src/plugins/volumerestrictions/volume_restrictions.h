// VolumeRestrictions (PreFilter, Filter), as upstream v1.34
// (pkg/scheduler/framework/plugins/volumerestrictions):
//  - PreFilter: every persistentVolumeClaim volume's claim must exist (else UnschedulableAnd-
//    Unresolvable `persistentvolumeclaim "x" not found`); the claims with the ReadWriteOncePod
//    access mode are noted, and the number of them some counted pod already uses (the snapshot's
//    usedPVCSet, ClusterState::claim_users) is the conflict count. Skip when the pod has no
//    in-tree disk (gcePersistentDisk, awsElasticBlockStore, rbd, iscsi) and no conflict.
//  - PreFilterExtensions: a removed (added) pod with a volume whose claim name is one of the
//    ReadWriteOncePod claims lowers (raises) the count, as upstream (by name, any namespace).
//  - Filter: "node(s) had no available disk" when an in-tree disk conflicts with one of a pod on
//    the node (same GCE PD unless both read-only; same EBS volume; same iSCSI IQN unless both
//    read-only; RBD sharing a monitor, same pool and image unless both read-only), then "node has
//    pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode" on every
//    node while the count is > 0. Both Unschedulable: preemption may evict the holder.
#pragma once

#include <string>
#include <vector>

#include "framework/plugin.h"

namespace orrery::plugins {

class VolumeRestrictions : public fw::Plugin {
 public:
  std::string_view name() const override;
  uint32_t extension_points() const override { return fw::kPreFilter | fw::kFilter; }
  fw::Status pre_filter(const fw::CycleContext& cycle,
                        std::optional<std::vector<NodeId>>* only) override;
  void pre_filter_remove_pod(const fw::CycleContext& cycle, PodId other, NodeId node) override;
  void pre_filter_add_pod(const fw::CycleContext& cycle, PodId other, NodeId node) override;
  size_t filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                fw::Rejections& rejections) override;
  void describe(const ClusterState& state, const fw::Rejection& r,
                std::vector<std::string>* reasons) const override;
  // A released pod (a disk or a claim freed) or a new or changed node may help; a cleared
  // nomination frees what the nominated pod held.
  fw::QueueingHint queueing_hint(const fw::QueueEvent& event, const ClusterState& state,
                                 const fw::PodClassKey& waiting) const override;
  uint64_t class_salt(const ClusterState& state, PodId pod) const override;

 private:
  int conflicts_for(const ClusterState& state, PodId other) const;
  std::vector<std::string> rwop_claims_;  // names of the pod's ReadWriteOncePod claims
  int conflicts_ = 0;
};

// isVolumeConflict: does `v` (an in-tree disk of the incoming pod) conflict with a volume of
// `existing`?
bool disk_conflict(const PodVolume& v, const PodSpec& existing);

}  // namespace orrery::plugins
