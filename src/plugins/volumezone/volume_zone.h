// VolumeZone (PreFilter, Filter), as upstream v1.34 (pkg/scheduler/framework/plugins/volumezone):
//  - PreFilter (pods with persistentVolumeClaim volumes; others Skip): for each claim, its bound
//    PersistentVolume's topology labels — failure-domain.beta.kubernetes.io/zone and /region,
//    topology.kubernetes.io/zone and /region, in that order — each a set of values split on "__"
//    (LabelZonesToSet; an unparsable value is ignored). Unbound claims of a WaitForFirstConsumer
//    class are skipped. UnschedulableAndUnresolvable: a missing claim, class or volume
//    (`persistentvolumeclaim "x" not found`, `storageclass.storage.k8s.io "x" not found`,
//    `persistentvolume "x" not found`), "PersistentVolumeClaim had no pv name and storageClass
//    name", "PersistentVolume had no name" (an unbound claim of an Immediate class). Skip when no
//    volume has topology labels.
//  - Filter: a node with none of the four labels passes (single-zone clusters); otherwise every
//    volume label must be on the node (a beta key may match the node's GA key) with one of the
//    volume's values, else "node(s) had no available volume zone" (UnschedulableAndUnresolvable).
#pragma once

#include <string>
#include <vector>

#include "framework/plugin.h"

namespace orrery::plugins {

class VolumeZone : public fw::Plugin {
 public:
  std::string_view name() const override;
  uint32_t extension_points() const override { return fw::kPreFilter | fw::kFilter; }
  fw::Status pre_filter(const fw::CycleContext& cycle,
                        std::optional<std::vector<NodeId>>* only) override;
  size_t filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                fw::Rejections& rejections) override;
  void describe(const ClusterState& state, const fw::Rejection& r,
                std::vector<std::string>* reasons) const override;
  // The verdict depends on the node's labels and the (static) volume objects.
  fw::QueueingHint queueing_hint(const fw::QueueEvent& event, const ClusterState& state,
                                 const fw::PodClassKey& waiting) const override;
  uint64_t class_salt(const ClusterState& state, PodId pod) const override;

  // volumehelpers.LabelZonesToSet: the values of a "__"-separated list, trimmed; nullopt when an
  // element is empty.
  static std::optional<std::vector<std::string>> zones_to_set(std::string_view value);

 private:
  struct Topology {
    StrId key;
    std::vector<StrId> values;
  };
  std::vector<Topology> topologies_;
};

}  // namespace orrery::plugins
