#include "plugins/volumerestrictions/volume_restrictions.h"

#include <algorithm>

#include "plugins/helper/hints.h"
#include "plugins/helper/names.h"

namespace orrery::plugins {

namespace {

constexpr uint16_t kCodeDiskConflict = 0;
constexpr uint16_t kCodeReadWriteOncePod = 1;

bool is_disk(const PodVolume& v) {
  using K = PodVolume::Kind;
  return v.kind == K::kGcePd || v.kind == K::kAwsEbs || v.kind == K::kRbd || v.kind == K::kIscsi;
}

bool overlap(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (const std::string& x : a)
    if (std::find(b.begin(), b.end(), x) != b.end()) return true;
  return false;
}

}  // namespace

bool disk_conflict(const PodVolume& v, const PodSpec& existing) {
  using K = PodVolume::Kind;
  for (const PodVolume& e : existing.volumes) {
    if (e.kind != v.kind) continue;
    switch (v.kind) {
      case K::kGcePd:
      case K::kIscsi:
        if (v.id == e.id && !(v.read_only && e.read_only)) return true;
        break;
      case K::kAwsEbs:
        if (v.id == e.id) return true;
        break;
      case K::kRbd:
        if (overlap(v.monitors, e.monitors) && v.pool == e.pool && v.id == e.id &&
            !(v.read_only && e.read_only)) {
          return true;
        }
        break;
      default: break;
    }
  }
  return false;
}

std::string_view VolumeRestrictions::name() const {
  return names::kVolumeRestrictions;
}

fw::Status VolumeRestrictions::pre_filter(const fw::CycleContext& cycle,
                                          std::optional<std::vector<NodeId>>*) {
  rwop_claims_.clear();
  conflicts_ = 0;
  const std::vector<PodVolume>& volumes = cycle.spec.volumes;
  if (volumes.empty()) return fw::Status::skip();
  bool needs_check = false;
  const ApiObjects& api = cycle.state.api_objects();
  for (const PodVolume& v : volumes) {
    needs_check = needs_check || is_disk(v);
    if (v.kind != PodVolume::Kind::kClaim) continue;
    const PersistentVolumeClaim* pvc = api.find_pvc(cycle.pod.ns, v.id);
    if (!pvc) {
      return fw::Status::unschedulable(name(), not_found_message("persistentvolumeclaim", v.id),
                                       /*unresolvable=*/true);
    }
    if ((pvc->access_modes & kReadWriteOncePod) &&
        std::find(rwop_claims_.begin(), rwop_claims_.end(), v.id) == rwop_claims_.end()) {
      rwop_claims_.push_back(v.id);
    }
  }
  // There can only be one pod using a ReadWriteOncePod claim.
  for (const std::string& c : rwop_claims_)
    if (cycle.state.claim_users(cycle.pod.ns, c) > 0) ++conflicts_;
  if (!needs_check && conflicts_ == 0) return fw::Status::skip();
  return fw::Status::ok();
}

int VolumeRestrictions::conflicts_for(const ClusterState& state, PodId other) const {
  int n = 0;
  for (const PodVolume& v : state.pod(other).spec->volumes) {
    if (v.kind == PodVolume::Kind::kClaim &&
        std::find(rwop_claims_.begin(), rwop_claims_.end(), v.id) != rwop_claims_.end()) {
      ++n;
    }
  }
  return n;
}

void VolumeRestrictions::pre_filter_remove_pod(const fw::CycleContext& cycle, PodId other, NodeId) {
  if (!rwop_claims_.empty()) conflicts_ -= conflicts_for(cycle.state, other);
}

void VolumeRestrictions::pre_filter_add_pod(const fw::CycleContext& cycle, PodId other, NodeId) {
  if (!rwop_claims_.empty()) conflicts_ += conflicts_for(cycle.state, other);
}

size_t VolumeRestrictions::filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                                  fw::Rejections& rejections) {
  const ClusterState& st = cycle.state;
  bool has_disks = false;
  for (const PodVolume& v : cycle.spec.volumes) has_disks = has_disks || is_disk(v);
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    const NodeId id = nodes[i];
    bool conflict = false;
    if (has_disks) {
      for (PodId p : st.pods_on(id)) {
        const PodSpec& other = *st.pod(p).spec;
        if (other.volumes.empty()) continue;
        for (const PodVolume& v : cycle.spec.volumes) {
          if (is_disk(v) && disk_conflict(v, other)) {
            conflict = true;
            break;
          }
        }
        if (conflict) break;
      }
    }
    if (conflict) {
      rejections.add(id, kCodeDiskConflict, 0, /*unresolvable=*/false);
    } else if (conflicts_ > 0) {
      rejections.add(id, kCodeReadWriteOncePod, 0, /*unresolvable=*/false);
    } else {
      nodes[kept++] = id;
    }
  }
  return kept;
}

void VolumeRestrictions::describe(const ClusterState&, const fw::Rejection& r,
                                  std::vector<std::string>* reasons) const {
  reasons->push_back(r.code == kCodeDiskConflict
                         ? "node(s) had no available disk"
                         : "node has pod using PersistentVolumeClaim with the same name and "
                           "ReadWriteOncePod access mode");
}

fw::QueueingHint VolumeRestrictions::queueing_hint(const fw::QueueEvent& event, const ClusterState&,
                                                   const fw::PodClassKey& waiting) const {
  switch (event.kind) {
    case fw::QueueEvent::kPodReleased:
    case fw::QueueEvent::kNodeAdded:
    case fw::QueueEvent::kNodeUpdated:
    case fw::QueueEvent::kAll: return fw::QueueingHint::kQueue;
    case fw::QueueEvent::kNominationCleared: return queue_if(nomination_may_help(event, waiting));
    default: return fw::QueueingHint::kSkip;
  }
}

uint64_t VolumeRestrictions::class_salt(const ClusterState&, PodId) const {
  return 0;  // the spec's volumes and the namespace
}

}  // namespace orrery::plugins
