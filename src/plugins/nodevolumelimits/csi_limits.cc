#include "plugins/nodevolumelimits/csi_limits.h"

#include "plugins/helper/hints.h"
#include "plugins/helper/names.h"
#include "plugins/helper/volumes.h"

namespace orrery::plugins {

namespace {

constexpr uint16_t kExceeded = 0;
constexpr uint16_t kLookupError = 1;

// getCSIDriverInfoFromSC: the provisioner and a handle unique to the claim (upstream prefixes a
// random string, so it never equals a real volume handle). In-tree provisioners would need CSI
// migration (not modelled): nothing is counted.
std::pair<std::string, std::string> driver_from_class(const ApiObjects& api,
                                                      const PersistentVolumeClaim& pvc) {
  if (pvc.storage_class.empty()) return {};
  const StorageClass* sc = api.find_storage_class(pvc.storage_class);
  if (!sc || sc->provisioner.starts_with("kubernetes.io/")) return {};
  return {sc->provisioner, "\x01" + pvc.ns + "/" + pvc.name};
}

// getCSIDriverInfo.
std::pair<std::string, std::string> driver_of(const ApiObjects& api,
                                              const PersistentVolumeClaim& pvc) {
  if (pvc.volume_name.empty()) return driver_from_class(api, pvc);
  const PersistentVolume* pv = api.find_pv(pvc.volume_name);
  if (!pv) return driver_from_class(api, pvc);
  if (pv->csi_driver.empty()) return {};  // in-tree (migration not modelled) or not attachable
  return {pv->csi_driver, pv->csi_handle};
}

}  // namespace

std::string_view NodeVolumeLimits::name() const {
  return names::kNodeVolumeLimits;
}

std::string NodeVolumeLimits::attachable_volumes(const ClusterState& state, const Pod& pod,
                                                 bool new_pod,
                                                 std::map<std::string, std::string>* out) {
  const ApiObjects& api = state.api_objects();
  for (const PodVolume& v : pod.spec->volumes) {
    const std::string claim = claim_name(pod, v);
    if (claim.empty()) continue;
    const PersistentVolumeClaim* pvc = api.find_pvc(pod.ns, claim);
    if (!pvc) {
      if (new_pod) {
        return "looking up PVC " + pod.ns + "/" + claim + ": " +
               not_found_message("persistentvolumeclaim", claim);
      }
      continue;  // an existing pod's claim that cannot be found is not counted
    }
    if (v.kind == PodVolume::Kind::kEphemeral) {
      std::string err = ephemeral_owner_error(pod, *pvc);
      if (!err.empty()) {
        if (new_pod) return err;
        continue;
      }
    }
    auto [driver, handle] = driver_of(api, *pvc);
    if (driver.empty() || handle.empty()) continue;
    (*out)[driver + "/" + handle] = driver;
  }
  return {};
}

fw::Status NodeVolumeLimits::pre_filter(const fw::CycleContext& cycle,
                                        std::optional<std::vector<NodeId>>*) {
  error_.clear();
  return cycle.spec.has_claim_volumes() ? fw::Status::ok() : fw::Status::skip();
}

size_t NodeVolumeLimits::filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                                fw::Rejections& rejections) {
  const ClusterState& st = cycle.state;
  const ApiObjects& api = st.api_objects();
  std::map<std::string, std::string> wanted;
  error_ = attachable_volumes(st, cycle.pod, true, &wanted);
  size_t kept = 0;
  std::map<std::string, std::string> attached;
  std::map<std::string, int> attached_count, new_count;
  for (size_t i = 0; i < n; ++i) {
    const NodeId id = nodes[i];
    if (!error_.empty()) {
      rejections.add(id, kLookupError, 0, /*unresolvable=*/true);
      continue;
    }
    const CSINode* csi = wanted.empty() ? nullptr : api.find_csi_node(st.node(id).name);
    bool limited = false;
    if (csi) {
      for (const CSINodeDriver& d : csi->drivers) limited = limited || d.allocatable_count;
    }
    if (!limited) {
      nodes[kept++] = id;
      continue;
    }
    attached.clear();
    for (PodId p : st.pods_on(id)) {
      if (!st.pod(p).spec->volumes.empty()) attachable_volumes(st, st.pod(p), false, &attached);
    }
    attached_count.clear();
    new_count.clear();
    std::map<std::string, std::string> fresh = wanted;
    for (const auto& [volume, driver] : attached) {
      fresh.erase(volume);  // a volume used by several pods counts once
      ++attached_count[driver];
    }
    for (const auto& [volume, driver] : fresh) ++new_count[driver];
    bool fits = true;
    for (const auto& [driver, count] : new_count) {
      for (const CSINodeDriver& d : csi->drivers) {
        if (d.name == driver && d.allocatable_count &&
            attached_count[driver] + count > *d.allocatable_count) {
          fits = false;
        }
      }
    }
    if (fits) {
      nodes[kept++] = id;
    } else {
      rejections.add(id, kExceeded, 0, /*unresolvable=*/false);
    }
  }
  return kept;
}

void NodeVolumeLimits::describe(const ClusterState&, const fw::Rejection& r,
                                std::vector<std::string>* reasons) const {
  reasons->push_back(r.code == kExceeded ? std::string("node(s) exceed max volume count") : error_);
}

fw::QueueingHint NodeVolumeLimits::queueing_hint(const fw::QueueEvent& event, const ClusterState&,
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

uint64_t NodeVolumeLimits::class_salt(const ClusterState& state, PodId pod) const {
  return state.pod(pod).spec->has_ephemeral_volumes() ? kUniqueClass : 0;
}

}  // namespace orrery::plugins
