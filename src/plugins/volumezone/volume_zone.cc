#include "plugins/volumezone/volume_zone.h"

#include <algorithm>

#include "plugins/helper/hints.h"
#include "plugins/helper/names.h"

namespace orrery::plugins {

namespace {

// The topology labels upstream checks, in its order.
struct Keys {
  StrId beta_zone = intern("failure-domain.beta.kubernetes.io/zone");
  StrId beta_region = intern("failure-domain.beta.kubernetes.io/region");
  StrId zone = intern("topology.kubernetes.io/zone");
  StrId region = intern("topology.kubernetes.io/region");
  StrId all[4] = {beta_zone, beta_region, zone, region};
  StrId to_ga(StrId key) const {
    if (key == beta_region) return region;
    if (key == beta_zone) return zone;
    return key;
  }
};
const Keys& keys() {
  static const Keys k;
  return k;
}

std::string_view trim(std::string_view s) {
  const auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<std::vector<std::string>> VolumeZone::zones_to_set(std::string_view value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t end = value.find("__", start);
    const std::string_view part =
        trim(value.substr(start, end == std::string_view::npos ? value.npos : end - start));
    if (part.empty()) return std::nullopt;
    if (std::find(out.begin(), out.end(), part) == out.end()) out.emplace_back(part);
    if (end == std::string_view::npos) break;
    start = end + 2;
  }
  return out;
}

std::string_view VolumeZone::name() const {
  return names::kVolumeZone;
}

fw::Status VolumeZone::pre_filter(const fw::CycleContext& cycle,
                                  std::optional<std::vector<NodeId>>*) {
  topologies_.clear();
  const ApiObjects& api = cycle.state.api_objects();
  bool has_claim = false;
  auto reject = [&](std::string msg) {
    return fw::Status::unschedulable(name(), std::move(msg), /*unresolvable=*/true);
  };
  for (const PodVolume& v : cycle.spec.volumes) {
    if (v.kind != PodVolume::Kind::kClaim) continue;  // ephemeral volumes are not looked at
    has_claim = true;
    const PersistentVolumeClaim* pvc = api.find_pvc(cycle.pod.ns, v.id);
    if (!pvc) return reject(not_found_message("persistentvolumeclaim", v.id));
    if (pvc->volume_name.empty()) {
      if (pvc->storage_class.empty()) {
        return reject("PersistentVolumeClaim had no pv name and storageClass name");
      }
      const StorageClass* sc = api.find_storage_class(pvc->storage_class);
      if (!sc) return reject(not_found_message("storageclass.storage.k8s.io", pvc->storage_class));
      if (sc->wait_for_first_consumer) continue;  // unbound volumes are skipped
      return reject("PersistentVolume had no name");
    }
    const PersistentVolume* pv = api.find_pv(pvc->volume_name);
    if (!pv) return reject(not_found_message("persistentvolume", pvc->volume_name));
    for (StrId key : keys().all) {
      auto value = pv->labels.get(key);
      if (!value) continue;
      auto zones = zones_to_set(interned(*value));
      if (!zones) continue;  // unparsable: ignored (logged upstream)
      Topology t{key, {}};
      for (const std::string& z : *zones) t.values.push_back(intern(z));
      topologies_.push_back(std::move(t));
    }
  }
  if (!has_claim || topologies_.empty()) return fw::Status::skip();
  return fw::Status::ok();
}

size_t VolumeZone::filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                          fw::Rejections& rejections) {
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    const NodeId id = nodes[i];
    const LabelSet& labels = cycle.state.node(id).labels;
    bool constrained = false;
    for (StrId key : keys().all) constrained = constrained || labels.has(key);
    bool fits = true;
    for (size_t t = 0; constrained && fits && t < topologies_.size(); ++t) {
      const Topology& top = topologies_[t];
      auto v = labels.get(top.key);
      if (!v) v = labels.get(keys().to_ga(top.key));
      fits = v && std::find(top.values.begin(), top.values.end(), *v) != top.values.end();
    }
    if (fits) {
      nodes[kept++] = id;
    } else {
      rejections.add(id, 0, 0, /*unresolvable=*/true);
    }
  }
  return kept;
}

void VolumeZone::describe(const ClusterState&, const fw::Rejection&,
                          std::vector<std::string>* reasons) const {
  reasons->push_back("node(s) had no available volume zone");
}

fw::QueueingHint VolumeZone::queueing_hint(const fw::QueueEvent& event, const ClusterState&,
                                           const fw::PodClassKey&) const {
  return node_only_hint(event);
}

uint64_t VolumeZone::class_salt(const ClusterState&, PodId) const {
  return 0;  // persistentVolumeClaim volumes of the spec, in the pod's namespace
}

}  // namespace orrery::plugins
