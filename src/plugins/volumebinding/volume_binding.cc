#include "plugins/volumebinding/volume_binding.h"

#include <algorithm>
#include <set>

#include "plugins/helper/hints.h"
#include "plugins/helper/names.h"
#include "plugins/helper/volumes.h"

namespace orrery::plugins {

namespace {

// FindPodVolumes' reasons, in upstream's order.
constexpr uint32_t kNodeConflict = 1;  // ErrReasonNodeConflict
constexpr uint32_t kBindConflict = 2;  // ErrReasonBindConflict
constexpr uint32_t kPvNotExist = 4;    // ErrReasonPVNotExist

// volume.CheckNodeAffinity: the volume's required terms against a node known by its labels only
// (matchFields on metadata.name see an empty name).
bool volume_fits_node(const PersistentVolume& pv, const LabelSet& labels) {
  return !pv.node_affinity || matches_any(*pv.node_affinity, labels, kNoStr);
}

// GetLocalPersistentVolumeNodeNames: per term the intersection of its kubernetes.io/hostname In
// values, united over the terms (a term without one adds nothing).
std::set<std::string> local_node_names(const PersistentVolume& pv) {
  static const StrId kHostname = intern("kubernetes.io/hostname");
  std::set<std::string> out;
  if (!pv.node_affinity) return out;
  for (const NodeSelectorTerm& term : *pv.node_affinity) {
    std::optional<std::set<std::string>> names;
    for (const NodeSelectorRequirement& r : term.match_expressions) {
      if (r.key != kHostname || r.op != SelectorOp::kIn) continue;
      std::set<std::string> vs;
      for (StrId v : r.values) vs.emplace(interned(v));
      if (!names) {
        names = std::move(vs);
      } else {
        std::set<std::string> both;
        std::set_intersection(names->begin(), names->end(), vs.begin(), vs.end(),
                              std::inserter(both, both.begin()));
        names = std::move(both);
      }
    }
    if (names) out.insert(names->begin(), names->end());
  }
  return out;
}

// v1helper.MatchTopologySelectorTerms.
bool matches_topology(const std::vector<TopologySelectorTerm>& terms, const LabelSet& labels) {
  if (terms.empty()) return true;
  for (const TopologySelectorTerm& t : terms) {
    if (t.expressions.empty()) continue;
    bool all = true;
    for (const auto& [key, values] : t.expressions) {
      auto v = labels.get(key);
      all = all && v && std::find(values.begin(), values.end(), *v) != values.end();
    }
    if (all) return true;
  }
  return false;
}

fw::Status unresolvable(std::string msg) {
  return fw::Status::unschedulable(names::kVolumeBinding, std::move(msg), /*unresolvable=*/true);
}

}  // namespace

std::string_view VolumeBinding::name() const {
  return names::kVolumeBinding;
}

fw::Status VolumeBinding::pre_filter(const fw::CycleContext& cycle,
                                     std::optional<std::vector<NodeId>>* only) {
  claims_ = {};
  if (cycle.spec.volumes.empty()) return fw::Status::skip();
  const ApiObjects& api = cycle.state.api_objects();
  const Pod& pod = cycle.pod;
  // podHasPVCs.
  std::vector<const PersistentVolumeClaim*> pvcs;
  for (const PodVolume& v : cycle.spec.volumes) {
    const std::string claim = claim_name(pod, v);
    if (claim.empty()) continue;
    const bool ephemeral = v.kind == PodVolume::Kind::kEphemeral;
    const PersistentVolumeClaim* pvc = api.find_pvc(pod.ns, claim);
    if (!pvc) {
      return unresolvable(ephemeral ? "waiting for ephemeral volume controller to create the "
                                      "persistentvolumeclaim \"" +
                                          claim + "\""
                                    : not_found_message("persistentvolumeclaim", claim));
    }
    if (pvc->lost) {
      return unresolvable("persistentvolumeclaim \"" + pvc->name +
                          "\" bound to non-existent persistentvolume \"" + pvc->volume_name + "\"");
    }
    if (pvc->deleting) {
      return unresolvable("persistentvolumeclaim \"" + pvc->name + "\" is being deleted");
    }
    if (ephemeral) {
      std::string err = ephemeral_owner_error(pod, *pvc);
      if (!err.empty()) return unresolvable(err);
    }
    pvcs.push_back(pvc);
  }
  if (pvcs.empty()) return fw::Status::skip();
  // GetPodVolumeClaims.
  bool immediate = false;
  for (const PersistentVolumeClaim* pvc : pvcs) {
    if (pvc->fully_bound()) {
      claims_.bound.push_back(pvc);
      continue;
    }
    const StorageClass* sc =
        pvc->storage_class.empty() ? nullptr : api.find_storage_class(pvc->storage_class);
    if (sc && sc->wait_for_first_consumer && pvc->volume_name.empty()) {
      claims_.delayed.push_back(pvc);
    } else {
      immediate = true;  // immediate binding, or pre-bound: the PV controller binds them
    }
  }
  if (immediate) return unresolvable("pod has unbound immediate PersistentVolumeClaims");
  // GetEligibleNodes.
  std::optional<std::set<std::string>> eligible;
  for (const PersistentVolumeClaim* pvc : claims_.bound) {
    const PersistentVolume* pv = api.find_pv(pvc->volume_name);
    if (!pv) continue;
    std::set<std::string> names = local_node_names(*pv);
    if (names.empty()) continue;
    if (!eligible) {
      eligible = std::move(names);
    } else {
      std::set<std::string> both;
      std::set_intersection(eligible->begin(), eligible->end(), names.begin(), names.end(),
                            std::inserter(both, both.begin()));
      eligible = std::move(both);
    }
  }
  if (eligible) {
    // An empty result rejects the pod at PreFilter (RunPreFilterPlugins).
    if (eligible->empty()) return unresolvable("node(s) didn't satisfy plugin VolumeBinding");
    only->emplace();
    for (const std::string& nm : *eligible)
      if (auto id = cycle.state.find_node(nm)) (*only)->push_back(*id);
    std::sort((*only)->begin(), (*only)->end());
  }
  return fw::Status::ok();
}

bool VolumeBinding::bound_to_claim(const PersistentVolume& pv,
                                   const PersistentVolumeClaim& pvc) const {
  if (auto it = assumed_volumes_.find(pv.name); it != assumed_volumes_.end()) {
    return it->second == pvc.key();
  }
  return pv.has_claim_ref && pv.claim_name == pvc.name && pv.claim_ns == pvc.ns &&
         (pv.claim_uid.empty() || pv.claim_uid == pvc.uid);
}

const PersistentVolume* VolumeBinding::find_matching_volume(
    const ApiObjects& api, const PersistentVolumeClaim& pvc, const Node& node,
    const std::vector<const PersistentVolume*>& excluded) const {
  const PersistentVolume* smallest = nullptr;
  for (const PersistentVolume* pv : api.pvs_of_class(pvc.storage_class)) {
    if (std::find(excluded.begin(), excluded.end(), pv) != excluded.end()) continue;
    const bool claimed = pv->has_claim_ref || assumed_volumes_.count(pv->name);
    const bool mine = bound_to_claim(*pv, pvc);
    if (claimed && !mine) continue;
    if (pv->capacity < pvc.storage_request) continue;
    if (pv->block != pvc.block) continue;
    if (pv->deleting) continue;
    const bool affinity_ok = volume_fits_node(*pv, node.labels);
    if (mine) return affinity_ok ? pv : nullptr;  // pre-bound: this volume or none
    if (pv->phase != PersistentVolume::Phase::kAvailable) continue;
    if (pvc.selector && !pvc.selector->matches(pv->labels)) continue;
    if (pv->storage_class != pvc.storage_class) continue;
    if (!affinity_ok) continue;
    if ((pvc.access_modes & pv->access_modes) != pvc.access_modes) continue;
    if (!smallest || pv->capacity < smallest->capacity) smallest = pv;
  }
  return smallest;
}

VolumeBinding::Found VolumeBinding::find_pod_volumes(const ClusterState& state,
                                                     NodeId node_id) const {
  const ApiObjects& api = state.api_objects();
  const Node& node = state.node(node_id);
  Found f;
  // checkBoundClaims.
  for (const PersistentVolumeClaim* pvc : claims_.bound) {
    const PersistentVolume* pv = api.find_pv(pvc->volume_name);
    if (!pv) {
      f.reasons |= kPvNotExist;
      break;
    }
    if (!volume_fits_node(*pv, node.labels)) {
      f.reasons |= kNodeConflict;
      break;
    }
  }
  if (claims_.delayed.empty()) return f;
  std::vector<const PersistentVolumeClaim*> to_match, to_provision;
  for (const PersistentVolumeClaim* pvc : claims_.delayed) {
    std::optional<std::string> selected = pvc->selected_node;
    if (auto it = assumed_nodes_.find(pvc->key()); it != assumed_nodes_.end()) {
      selected = it->second;
    }
    if (selected) {
      if (*selected != node.name) {
        f.reasons |= kBindConflict;  // fast path: selected for another node
        return f;
      }
      to_provision.push_back(pvc);
    } else {
      to_match.push_back(pvc);
    }
  }
  bool satisfied = true;
  if (!to_match.empty()) {
    // findMatchingVolumes: claims by increasing size request.
    std::stable_sort(to_match.begin(), to_match.end(),
                     [](const PersistentVolumeClaim* a, const PersistentVolumeClaim* b) {
                       return a->storage_request < b->storage_request;
                     });
    std::vector<const PersistentVolume*> chosen;
    for (const PersistentVolumeClaim* pvc : to_match) {
      const PersistentVolume* pv = find_matching_volume(api, *pvc, node, chosen);
      if (!pv) {
        to_provision.push_back(pvc);
        satisfied = false;
        continue;
      }
      chosen.push_back(pv);
      f.bindings.emplace_back(pv, pvc);
    }
  }
  if (!to_provision.empty()) {
    // checkVolumeProvisions (storage capacity is not modelled: always sufficient).
    satisfied = true;
    for (const PersistentVolumeClaim* pvc : to_provision) {
      const StorageClass* sc = api.find_storage_class(pvc->storage_class);
      if (!sc || sc->provisioner.empty() || sc->provisioner == "kubernetes.io/no-provisioner" ||
          !matches_topology(sc->allowed_topologies, node.labels)) {
        satisfied = false;
        f.provisions.clear();
        break;
      }
      f.provisions.push_back(pvc);
    }
  }
  if (!satisfied) f.reasons |= kBindConflict;
  return f;
}

size_t VolumeBinding::filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                             fw::Rejections& rejections) {
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    const NodeId id = nodes[i];
    const uint32_t reasons = find_pod_volumes(cycle.state, id).reasons;
    if (reasons == 0) {
      nodes[kept++] = id;
    } else {
      rejections.add(id, 0, reasons, /*unresolvable=*/true);
    }
  }
  return kept;
}

void VolumeBinding::describe(const ClusterState&, const fw::Rejection& r,
                             std::vector<std::string>* reasons) const {
  if (r.arg & kNodeConflict) reasons->push_back("node(s) had volume node affinity conflict");
  if (r.arg & kBindConflict) {
    reasons->push_back("node(s) didn't find available persistent volumes to bind");
  }
  if (r.arg & kPvNotExist) {
    reasons->push_back("node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)");
  }
}

fw::Status VolumeBinding::reserve(const fw::CycleContext& cycle, NodeId node) {
  reserved_.erase(cycle.state.pod_serial(cycle.pod_id));
  if (claims_.delayed.empty()) return fw::Status::ok();
  const Found f = find_pod_volumes(cycle.state, node);
  auto& undo = reserved_[cycle.state.pod_serial(cycle.pod_id)];
  for (const auto& [pv, pvc] : f.bindings) {
    if (assumed_volumes_.emplace(pv->name, pvc->key()).second) undo.emplace_back(true, pv->name);
  }
  const std::string& node_name = cycle.state.node(node).name;
  for (const PersistentVolumeClaim* pvc : f.provisions) {
    if (assumed_nodes_.emplace(pvc->key(), node_name).second) undo.emplace_back(false, pvc->key());
  }
  return fw::Status::ok();
}

void VolumeBinding::unreserve(const fw::CycleContext& cycle, NodeId) {
  auto it = reserved_.find(cycle.state.pod_serial(cycle.pod_id));
  if (it == reserved_.end()) return;
  for (const auto& [volume, key] : it->second) {
    if (volume) {
      assumed_volumes_.erase(key);
    } else {
      assumed_nodes_.erase(key);
    }
  }
  reserved_.erase(it);
}

fw::QueueingHint VolumeBinding::queueing_hint(const fw::QueueEvent& event, const ClusterState&,
                                              const fw::PodClassKey&) const {
  switch (event.kind) {
    case fw::QueueEvent::kPodReleased:
    case fw::QueueEvent::kNodeAdded:
    case fw::QueueEvent::kNodeUpdated:
    case fw::QueueEvent::kAll: return fw::QueueingHint::kQueue;
    default: return fw::QueueingHint::kSkip;
  }
}

uint64_t VolumeBinding::class_salt(const ClusterState& state, PodId pod) const {
  return state.pod(pod).spec->has_ephemeral_volumes() ? kUniqueClass : 0;
}

}  // namespace orrery::plugins
