// NodeVolumeLimits (PreFilter, Filter), upstream v1.34's CSILimits
// (pkg/scheduler/framework/plugins/nodevolumelimits/csi.go):
//  - PreFilter: Skip for pods without persistentVolumeClaim or ephemeral volumes.
//  - Filter: the pod's new CSI volumes on a node are its claims' volumes — a bound claim's
//    PersistentVolume's spec.csi (driver, volumeHandle); an unbound claim, or one whose volume is
//    missing, counts under its StorageClass's provisioner with a handle unique to the claim; a
//    claim without a class, with an unknown class or with an in-tree volume counts nothing. A
//    missing claim of the new pod: UnschedulableAndUnresolvable "looking up PVC ns/x:
//    persistentvolumeclaim \"x\" not found". The node's limits are its CSINode's
//    spec.drivers[].allocatable.count per driver (no CSINode or no counts: no limit). Volumes of
//    the pods on the node are counted once per unique (driver, handle), the new pod's volumes
//    already attached there are not new, and a driver exceeding its limit gives "node(s) exceed
//    max volume count" (Unschedulable).
// Not modelled: in-tree volumes migrated to CSI (inline or PersistentVolumes with
// gcePersistentDisk, awsElasticBlockStore, ...), and attachable-volumes-* in node allocatable.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "framework/plugin.h"

namespace orrery::plugins {

class NodeVolumeLimits : public fw::Plugin {
 public:
  std::string_view name() const override;
  uint32_t extension_points() const override { return fw::kPreFilter | fw::kFilter; }
  fw::Status pre_filter(const fw::CycleContext& cycle,
                        std::optional<std::vector<NodeId>>* only) override;
  size_t filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                fw::Rejections& rejections) override;
  void describe(const ClusterState& state, const fw::Rejection& r,
                std::vector<std::string>* reasons) const override;
  // A released pod frees attachments; a new or changed node (and its CSINode) may have room; a
  // cleared nomination frees what the nominated pod held.
  fw::QueueingHint queueing_hint(const fw::QueueEvent& event, const ClusterState& state,
                                 const fw::PodClassKey& waiting) const override;
  // Generic ephemeral claims are named after the pod: pods with them are classes of their own.
  uint64_t class_salt(const ClusterState& state, PodId pod) const override;

  // volume unique name ("driver/handle") → driver, for one pod's claims (filterAttachableVolumes).
  // Returns "" or, for the new pod, the error that rejects it.
  static std::string attachable_volumes(const ClusterState& state, const Pod& pod, bool new_pod,
                                        std::map<std::string, std::string>* out);

 private:
  std::string error_;  // a lookup error of the pod being scheduled
};

}  // namespace orrery::plugins
