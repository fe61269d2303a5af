#include "brute_force.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "plugins/helper/node_affinity.h"

namespace orrery::plugins::testing {

namespace {

// ---- InterPodAffinity, node by node from the definitions (upstream filtering.go / scoring.go)
// ----

// Does `term` of the incoming pod `owner` select `other`? A term without namespaces and
// namespaceSelector means the owner's namespace; the selector picks Namespace objects by label
// ({} = every namespace).
bool incoming_selects(const ClusterState& st, const PodAffinityTerm& term, const Pod& owner,
                      const Pod& other) {
  if (!term.selector) return false;
  bool ns = false;
  if (term.namespaces.empty() && !term.namespace_selector) {
    ns = other.ns == owner.ns;
  } else {
    for (StrId n : term.namespaces) ns = ns || interned(n) == other.ns;
    if (term.namespace_selector) {
      const LabelSet* l = st.namespace_labels(other.ns);
      ns = ns || term.namespace_selector->empty() || (l && term.namespace_selector->matches(*l));
    }
  }
  return ns && term.selector->matches(other.spec->labels);
}

// Does `term` of the existing pod `owner` select the incoming pod? Its namespaceSelector is
// matched against the incoming pod's namespace labels (none without a Namespace object).
bool existing_selects(const ClusterState& st, const PodAffinityTerm& term, const Pod& owner,
                      const Pod& incoming) {
  if (!term.selector) return false;
  bool ns = false;
  if (term.namespaces.empty() && !term.namespace_selector) {
    ns = incoming.ns == owner.ns;
  } else {
    for (StrId n : term.namespaces) ns = ns || interned(n) == incoming.ns;
    if (term.namespace_selector) {
      const LabelSet* l = st.namespace_labels(incoming.ns);
      ns = ns || term.namespace_selector->matches(l ? *l : LabelSet());
    }
  }
  return ns && term.selector->matches(incoming.spec->labels);
}

std::optional<StrId> topology(const ClusterState& st, NodeId n, StrId key) {
  return st.node(n).labels.get(key);
}

// The InterPodAffinity filter reason for `pod` on `n`, or "".
std::string inter_pod_affinity_reason(const ClusterState& st, const Pod& pod, NodeId n) {
  const PodSpec& spec = *pod.spec;
  const auto& aff = spec.pod_affinity.required;
  auto selects_all = [&](const Pod& e) {
    for (const PodAffinityTerm& t : aff)
      if (!incoming_selects(st, t, pod, e)) return false;
    return true;
  };
  if (!aff.empty()) {
    bool ok = true;
    for (const PodAffinityTerm& t : aff) ok = ok && topology(st, n, t.topology_key).has_value();
    if (ok) {
      bool exist = true;
      for (const PodAffinityTerm& t : aff) {
        bool found = false;
        for (NodeId m : st.nodes()) {
          auto v = topology(st, m, t.topology_key);
          if (!v || v != topology(st, n, t.topology_key)) continue;
          for (PodId q : st.pods_on(m)) found = found || selects_all(st.pod(q));
        }
        exist = exist && found;
      }
      if (!exist) {
        // Allowed only when no pod anywhere is counted for the terms and the pod matches itself.
        bool counted = false;
        for (NodeId m : st.nodes()) {
          bool has_key = false;
          for (const PodAffinityTerm& t : aff)
            has_key = has_key || topology(st, m, t.topology_key).has_value();
          if (!has_key) continue;
          for (PodId q : st.pods_on(m)) counted = counted || selects_all(st.pod(q));
        }
        ok = !counted && selects_all(pod);
      }
    }
    if (!ok) return "node(s) didn't match pod affinity rules";
  }
  for (const PodAffinityTerm& t : spec.pod_anti_affinity.required) {
    auto v = topology(st, n, t.topology_key);
    if (!v) continue;
    for (NodeId m : st.nodes()) {
      if (topology(st, m, t.topology_key) != v) continue;
      for (PodId q : st.pods_on(m))
        if (incoming_selects(st, t, pod, st.pod(q)))
          return "node(s) didn't match pod anti-affinity rules";
    }
  }
  for (NodeId m : st.nodes()) {
    for (PodId q : st.pods_on(m)) {
      const Pod& e = st.pod(q);
      for (const PodAffinityTerm& t : e.spec->pod_anti_affinity.required) {
        auto v = topology(st, m, t.topology_key);
        if (v && topology(st, n, t.topology_key) == v && existing_selects(st, t, e, pod))
          return "node(s) didn't satisfy existing pods anti-affinity rules";
      }
    }
  }
  return "";
}

// Raw InterPodAffinity scores of the feasible nodes (hardPodAffinityWeight 1); `applies` is false
// when no term of any pod contributed anywhere (PreScore Skip: the plugin then gives 0).
std::map<NodeId, int64_t> inter_pod_affinity_raw(const ClusterState& st, const Pod& pod,
                                                 const std::vector<NodeId>& feasible,
                                                 bool* applies) {
  std::map<NodeId, int64_t> raw;
  for (NodeId n : feasible) raw[n] = 0;
  *applies = false;
  const PodSpec& spec = *pod.spec;
  for (NodeId m : st.nodes()) {
    for (PodId q : st.pods_on(m)) {
      const Pod& e = st.pod(q);
      std::vector<std::pair<StrId, int64_t>> add;  // (topology key, weight)
      for (const auto& t : spec.pod_affinity.preferred)
        if (incoming_selects(st, t.term, pod, e)) add.emplace_back(t.term.topology_key, t.weight);
      for (const auto& t : spec.pod_anti_affinity.preferred)
        if (incoming_selects(st, t.term, pod, e)) add.emplace_back(t.term.topology_key, -t.weight);
      for (const auto& t : e.spec->pod_affinity.required)
        if (existing_selects(st, t, e, pod)) add.emplace_back(t.topology_key, 1);
      for (const auto& t : e.spec->pod_affinity.preferred)
        if (existing_selects(st, t.term, e, pod)) add.emplace_back(t.term.topology_key, t.weight);
      for (const auto& t : e.spec->pod_anti_affinity.preferred)
        if (existing_selects(st, t.term, e, pod)) add.emplace_back(t.term.topology_key, -t.weight);
      for (const auto& [key, w] : add) {
        auto v = topology(st, m, key);
        if (!v) continue;
        *applies = true;
        for (NodeId n : feasible)
          if (topology(st, n, key) == v) raw[n] += w;
      }
    }
  }
  return raw;
}

// ---- PodTopologySpread, from upstream's common.go / filtering.go / scoring.go ----

// One constraint as upstream's topologySpreadConstraint: an explicit one of the pod (its
// labelSelector, absent = Nothing, {} = Everything, plus the pod's values of matchLabelKeys) or a
// system default one (the pod's controller as the selector).
struct Spread {
  StrId key = kNoStr;
  int64_t max_skew = 1, min_domains = 1;
  bool honor_affinity = true, honor_taints = false;
  const TopologySpreadConstraint* own = nullptr;  // null: system default, by controller
};

bool spread_selects(const Spread& c, const Pod& pod, const Pod& other) {
  if (other.ns != pod.ns) return false;
  if (!c.own) return other.owner.kind == pod.owner.kind && other.owner.name == pod.owner.name;
  bool any_value = false;
  for (StrId k : c.own->match_label_keys) {
    auto v = pod.spec->labels.get(k);
    if (!v) continue;
    any_value = true;
    if (other.spec->labels.get(k) != v) return false;
  }
  if (!c.own->selector_set) return any_value;
  return c.own->selector.matches(other.spec->labels);
}

// countPodsMatchSelector: pods being deleted are not counted.
int64_t spread_count(const ClusterState& st, NodeId n, const Spread& c, const Pod& pod) {
  int64_t k = 0;
  for (PodId q : st.pods_on(n)) {
    const Pod& o = st.pod(q);
    if (!o.terminating && spread_selects(c, pod, o)) ++k;
  }
  return k;
}

bool untolerated_hard_taint(const Node& node, const PodSpec& spec) {
  for (const Taint& t : node.taints) {
    if ((t.effect == TaintEffect::kNoSchedule || t.effect == TaintEffect::kNoExecute) &&
        !tolerates(spec.tolerations, t)) {
      return true;
    }
  }
  return false;
}

// matchNodeInclusionPolicies.
bool spread_includes(const ClusterState& st, const Spread& c, const Pod& pod, NodeId n) {
  const Node& node = st.node(n);
  if (c.honor_affinity && !matches_required_affinity(*pod.spec, node, intern(node.name)))
    return false;
  return !(c.honor_taints && untolerated_hard_taint(node, *pod.spec));
}

bool has_all_keys(const ClusterState& st, NodeId n, const std::vector<Spread>& cs) {
  for (const Spread& c : cs)
    if (!st.node(n).labels.has(c.key)) return false;
  return true;
}

// The pod's constraints with `action` (its own, or the system defaults for pods with a
// controller: hostname maxSkew 3 and zone maxSkew 5, ScheduleAnyway).
std::vector<Spread> spread_constraints(const Pod& pod, SpreadWhenUnsatisfiable action) {
  std::vector<Spread> out;
  const PodSpec& spec = *pod.spec;
  if (spec.topology_spread.empty()) {
    if (action != SpreadWhenUnsatisfiable::kScheduleAnyway ||
        pod.owner.kind != OwnerKind::kReplicaSet) {
      return out;
    }
    out.push_back({intern("kubernetes.io/hostname"), 3, 1, true, false, nullptr});
    out.push_back({intern("topology.kubernetes.io/zone"), 5, 1, true, false, nullptr});
    return out;
  }
  for (const TopologySpreadConstraint& t : spec.topology_spread) {
    if (t.when_unsatisfiable != action) continue;
    out.push_back({t.topology_key, t.max_skew, t.min_domains.value_or(1),
                   t.node_affinity_policy == InclusionPolicy::kHonor,
                   t.node_taints_policy == InclusionPolicy::kHonor, &t});
  }
  return out;
}

// The PodTopologySpread filter reason for `pod` on `n`, or "".
std::string topology_spread_reason(const ClusterState& st, const Pod& pod, NodeId n) {
  const std::vector<Spread> cs = spread_constraints(pod, SpreadWhenUnsatisfiable::kDoNotSchedule);
  if (cs.empty()) return "";
  // PreFilter: per constraint, value → matching pods over the nodes holding every key and
  // passing the constraint's inclusion policies.
  std::vector<std::map<StrId, int64_t>> counts(cs.size());
  for (NodeId m : st.nodes()) {
    if (!has_all_keys(st, m, cs)) continue;
    for (size_t i = 0; i < cs.size(); ++i) {
      if (!spread_includes(st, cs[i], pod, m)) continue;
      counts[i][*st.node(m).labels.get(cs[i].key)] += spread_count(st, m, cs[i], pod);
    }
  }
  for (size_t i = 0; i < cs.size(); ++i) {
    auto v = st.node(n).labels.get(cs[i].key);
    if (!v) return "node(s) didn't match pod topology spread constraints (missing required label)";
    int64_t min_match = INT64_MAX;
    for (const auto& [value, k] : counts[i]) min_match = std::min(min_match, k);
    if (static_cast<int64_t>(counts[i].size()) < cs[i].min_domains) min_match = 0;
    const int64_t self = spread_selects(cs[i], pod, pod) ? 1 : 0;
    const int64_t here = counts[i].count(*v) ? counts[i][*v] : 0;
    if (here + self - min_match > cs[i].max_skew)
      return "node(s) didn't match pod topology spread constraints";
  }
  return "";
}

// Normalised PodTopologySpread scores of the feasible nodes (0 everywhere when PreScore skips).
std::map<NodeId, int64_t> topology_spread_scores(const ClusterState& st, const Pod& pod,
                                                 const std::vector<NodeId>& feasible) {
  std::map<NodeId, int64_t> out;
  for (NodeId n : feasible) out[n] = 0;
  const std::vector<Spread> cs = spread_constraints(pod, SpreadWhenUnsatisfiable::kScheduleAnyway);
  if (cs.empty()) return out;
  const StrId host = intern("kubernetes.io/hostname");
  // Only explicit constraints require every key (system defaults let zone-less nodes spread by
  // hostname).
  const bool require_all = !pod.spec->topology_spread.empty();
  std::set<NodeId> ignored;
  std::vector<std::map<StrId, int64_t>> counts(cs.size());  // non-hostname: value → pods
  for (NodeId n : feasible) {
    if (require_all && !has_all_keys(st, n, cs)) {
      ignored.insert(n);
      continue;
    }
    for (size_t i = 0; i < cs.size(); ++i)
      if (cs[i].key != host)
        counts[i].emplace(st.node(n).labels.get(cs[i].key).value_or(kNoStr), 0);
  }
  std::vector<double> weight(cs.size());
  for (size_t i = 0; i < cs.size(); ++i) {
    const size_t size = cs[i].key == host ? feasible.size() - ignored.size() : counts[i].size();
    weight[i] = std::log(static_cast<double>(size + 2));
  }
  for (NodeId m : st.nodes()) {
    if (require_all && !has_all_keys(st, m, cs)) continue;
    for (size_t i = 0; i < cs.size(); ++i) {
      if (cs[i].key == host || !spread_includes(st, cs[i], pod, m)) continue;
      auto it = counts[i].find(st.node(m).labels.get(cs[i].key).value_or(kNoStr));
      if (it != counts[i].end()) it->second += spread_count(st, m, cs[i], pod);
    }
  }
  std::map<NodeId, int64_t> raw;
  for (NodeId n : feasible) {
    if (ignored.count(n)) continue;
    double s = 0;
    for (size_t i = 0; i < cs.size(); ++i) {
      auto v = st.node(n).labels.get(cs[i].key);
      if (!v) continue;
      const int64_t cnt = cs[i].key == host ? spread_count(st, n, cs[i], pod) : counts[i][*v];
      s += static_cast<double>(cnt) * weight[i] + static_cast<double>(cs[i].max_skew - 1);
    }
    raw[n] = std::llround(s);
  }
  int64_t lo = INT64_MAX, hi = 0;
  for (const auto& [n, s] : raw) {
    lo = std::min(lo, s);
    hi = std::max(hi, s);
  }
  for (const auto& [n, s] : raw) out[n] = hi == 0 ? 100 : 100 * (hi + lo - s) / hi;
  return out;
}

// ---- Volumes: claims bound to CSI PVs, unbound Immediate claims, missing claims ----
// (volumerestrictions, nodevolumelimits/csi.go, volumebinding, volumezone)

// The claims of the pod's persistentVolumeClaim volumes, null for a missing one.
std::vector<std::pair<std::string, const PersistentVolumeClaim*>> claims_of(const ClusterState& st,
                                                                            const Pod& pod) {
  std::vector<std::pair<std::string, const PersistentVolumeClaim*>> out;
  for (const PodVolume& v : pod.spec->volumes)
    if (v.kind == PodVolume::Kind::kClaim)
      out.emplace_back(v.id, st.api_objects().find_pvc(pod.ns, v.id));
  return out;
}

// The PreFilter rejection every node gets, or "": VolumeRestrictions' missing claim, then
// VolumeBinding's unbound claims that are not WaitForFirstConsumer (a missing class is Immediate).
std::string volume_pre_filter_reason(const ClusterState& st, const Pod& pod) {
  const auto claims = claims_of(st, pod);
  for (const auto& [name, pvc] : claims)
    if (!pvc) return "persistentvolumeclaim \"" + name + "\" not found";
  for (const auto& [name, pvc] : claims) {
    if (pvc->fully_bound()) continue;
    const StorageClass* sc = st.api_objects().find_storage_class(pvc->storage_class);
    if (!sc || !sc->wait_for_first_consumer || !pvc->volume_name.empty())
      return "pod has unbound immediate PersistentVolumeClaims";
  }
  return "";
}

// CSILimits: unique driver/handle of the bound claims' CSI volumes → driver.
void csi_volumes(const ClusterState& st, const Pod& pod, std::map<std::string, std::string>* out) {
  for (const auto& [name, pvc] : claims_of(st, pod)) {
    if (!pvc || pvc->volume_name.empty()) continue;
    const PersistentVolume* pv = st.api_objects().find_pv(pvc->volume_name);
    if (pv && !pv->csi_driver.empty())
      (*out)[pv->csi_driver + "/" + pv->csi_handle] = pv->csi_driver;
  }
}

// The volume filters' reason on `n`, in the profile's order, or "".
std::string volume_filter_reason(const ClusterState& st, const Pod& pod, NodeId n) {
  const auto claims = claims_of(st, pod);
  if (claims.empty()) return "";
  const Node& node = st.node(n);
  // NodeVolumeLimits: the node's CSINode counts; volumes already attached there count once.
  if (const CSINode* csi = st.api_objects().find_csi_node(node.name)) {
    std::map<std::string, std::string> wanted, attached;
    csi_volumes(st, pod, &wanted);
    for (PodId q : st.pods_on(n)) csi_volumes(st, st.pod(q), &attached);
    std::map<std::string, int64_t> used, fresh;
    for (const auto& [vol, driver] : attached) {
      wanted.erase(vol);
      ++used[driver];
    }
    for (const auto& [vol, driver] : wanted) ++fresh[driver];
    for (const CSINodeDriver& d : csi->drivers) {
      if (d.allocatable_count && fresh[d.name] > 0 &&
          used[d.name] + fresh[d.name] > *d.allocatable_count)
        return "node(s) exceed max volume count";
    }
  }
  // VolumeBinding: every bound PV's required node affinity.
  std::vector<const PersistentVolume*> pvs;
  for (const auto& [name, pvc] : claims)
    if (pvc->fully_bound()) pvs.push_back(st.api_objects().find_pv(pvc->volume_name));
  for (const PersistentVolume* pv : pvs)
    if (pv->node_affinity && !matches_any(*pv->node_affinity, node.labels, intern(node.name)))
      return "node(s) had volume node affinity conflict";
  // VolumeZone: nodes with zone/region labels must carry a value each PV label lists ("__"-split).
  static const char* kKeys[] = {"failure-domain.beta.kubernetes.io/zone",
                                "failure-domain.beta.kubernetes.io/region",
                                "topology.kubernetes.io/zone", "topology.kubernetes.io/region"};
  bool constrained = false;
  for (const char* k : kKeys) constrained = constrained || node.labels.get(std::string_view(k));
  if (!constrained) return "";
  for (const PersistentVolume* pv : pvs) {
    for (int i = 0; i < 4; ++i) {
      auto v = pv->labels.get(std::string_view(kKeys[i]));
      if (!v) continue;
      std::set<std::string> values;
      std::string_view rest = *v;
      for (size_t at; (at = rest.find("__")) != std::string_view::npos; rest.remove_prefix(at + 2))
        values.emplace(rest.substr(0, at));
      values.emplace(rest);
      auto have = node.labels.get(std::string_view(kKeys[i]));
      if (!have && i < 2) have = node.labels.get(std::string_view(kKeys[i + 2]));
      if (!have || !values.count(std::string(*have))) return "node(s) had no available volume zone";
    }
  }
  return "";
}

}  // namespace

std::vector<std::string> filter_reasons(const ClusterState& st, const Pod& pod, NodeId n) {
  const PodSpec& spec = *pod.spec;
  const Node& node = st.node(n);
  if (std::string r = volume_pre_filter_reason(st, pod); !r.empty()) return {r};
  const StrId unsched_key = intern("node.kubernetes.io/unschedulable");
  if (node.unschedulable &&
      !tolerates(spec.tolerations, Taint{unsched_key, kNoStr, TaintEffect::kNoSchedule})) {
    return {"node(s) were unschedulable"};
  }
  for (const Taint& t : node.taints) {
    if ((t.effect == TaintEffect::kNoSchedule || t.effect == TaintEffect::kNoExecute) &&
        !tolerates(spec.tolerations, t)) {
      return {"node(s) had untolerated taint {" + std::string(interned(t.key)) + ": " +
              std::string(interned(t.value)) + "}"};
    }
  }
  if (!matches_required_affinity(spec, node, intern(node.name)))
    return {"node(s) didn't match Pod's node affinity/selector"};
  // NodePorts: the pods on the node, their host ports, HostPortInfo.CheckConflict.
  const StrId any_ip = intern("0.0.0.0");
  for (const HostPort& want : spec.host_ports) {
    for (PodId q : st.pods_on(n)) {
      for (const HostPort& used : st.pod(q).spec->host_ports) {
        if (used.port == want.port && used.protocol == want.protocol &&
            (want.ip == any_ip || used.ip == any_ip || used.ip == want.ip)) {
          return {"node(s) didn't have free ports for the requested pod ports"};
        }
      }
    }
  }
  std::vector<std::string> reasons;
  const Resources free = st.free_of(n);
  if (st.requested(kPods)[n] + 1 > node.allocatable[kPods]) reasons.push_back("Too many pods");
  // Only requested resources are checked (an overcommitted node still takes best-effort pods).
  for (int r = 0; r < kMaxResources; ++r) {
    if (r == kPods || spec.request.q[r] <= 0 || spec.request.q[r] <= free.q[r]) continue;
    reasons.push_back("Insufficient " + std::string(resource_name(static_cast<ResourceId>(r))));
  }
  if (!reasons.empty()) return reasons;
  if (std::string r = volume_filter_reason(st, pod, n); !r.empty()) return {r};
  if (std::string r = topology_spread_reason(st, pod, n); !r.empty()) return {r};
  if (std::string r = inter_pod_affinity_reason(st, pod, n); !r.empty()) return {r};
  return {};
}

std::map<NodeId, Expected> brute_force(const ClusterState& st, const Pod& pod,
                                       const std::vector<uint8_t>* feasible_mask) {
  const PodSpec& spec = *pod.spec;
  std::map<NodeId, Expected> out;
  std::vector<NodeId> feasible;
  for (NodeId n : st.nodes()) {
    Expected& e = out[n];
    e.reasons = feasible_mask ? std::vector<std::string>{} : filter_reasons(st, pod, n);
    e.feasible = feasible_mask ? (*feasible_mask)[n] != 0 : e.reasons.empty();
    if (e.feasible) feasible.push_back(n);
  }
  if (feasible.empty()) return out;
  std::map<NodeId, std::map<std::string, int64_t>> raw;
  // TaintToleration.
  for (NodeId n : feasible) {
    int64_t c = 0;
    for (const Taint& t : st.node(n).taints) {
      if (t.effect != TaintEffect::kPreferNoSchedule) continue;
      bool ok = false;
      for (const Toleration& tol : spec.tolerations)
        ok = ok ||
             ((tol.effect == TaintEffect::kNone || tol.effect == TaintEffect::kPreferNoSchedule) &&
              tol.tolerates(t));
      if (!ok) ++c;
    }
    raw[n]["TaintToleration"] = c;
  }
  // NodeAffinity (skipped without preferred terms → 0).
  for (NodeId n : feasible) {
    int64_t s = 0;
    for (const auto& t : spec.node_affinity.preferred)
      if (matches(t.preference, st.node(n).labels, intern(st.node(n).name))) s += t.weight;
    raw[n]["NodeAffinity"] = s;
  }
  // NodeResourcesFit (LeastAllocated, cpu & memory with non-zero requests).
  for (NodeId n : feasible) {
    int64_t sum = 0, w = 0;
    for (ResourceId r : {kCpu, kMemory}) {
      const int64_t cap = st.allocatable(r)[n];
      if (cap == 0) continue;
      const int64_t req = st.nonzero_requested(r)[n] + spec.nonzero_request[r];
      sum += req > cap ? 0 : (cap - req) * 100 / cap;
      ++w;
    }
    raw[n]["NodeResourcesFit"] = w ? sum / w : 0;
  }
  // NodeResourcesBalancedAllocation (real requests; skipped for best-effort pods).
  const bool best_effort = spec.request[kCpu] == 0 && spec.request[kMemory] == 0;
  for (NodeId n : feasible) {
    std::vector<double> f;
    for (ResourceId r : {kCpu, kMemory}) {
      const int64_t cap = st.allocatable(r)[n];
      if (cap == 0) continue;
      f.push_back(std::min(1.0, double(st.requested(r)[n] + spec.request[r]) / double(cap)));
    }
    const double sd = f.size() == 2 ? std::abs((f[0] - f[1]) / 2) : 0;
    raw[n]["NodeResourcesBalancedAllocation"] = best_effort ? 0 : int64_t((1 - sd) * 100);
  }
  // PodTopologySpread: the pod's ScheduleAnyway constraints, or the system defaults for pods
  // with a controller (already normalised).
  const std::map<NodeId, int64_t> pts = topology_spread_scores(st, pod, feasible);
  // InterPodAffinity: min-max normalisation, float then truncated; 0 everywhere when skipped.
  bool ipa_applies = false;
  auto ipa_raw = inter_pod_affinity_raw(st, pod, feasible, &ipa_applies);
  int64_t ipa_min = INT64_MAX, ipa_max = INT64_MIN;
  for (NodeId n : feasible) {
    ipa_min = std::min(ipa_min, ipa_raw[n]);
    ipa_max = std::max(ipa_max, ipa_raw[n]);
  }
  for (NodeId n : feasible) {
    raw[n]["InterPodAffinity"] = !ipa_applies || ipa_max == ipa_min
                                     ? 0
                                     : static_cast<int64_t>(100.0 * (double(ipa_raw[n] - ipa_min) /
                                                                     double(ipa_max - ipa_min)));
  }
  // Normalisation and weights.
  auto max_of = [&](const std::string& p) {
    int64_t m = 0;
    for (NodeId n : feasible) m = std::max(m, raw[n][p]);
    return m;
  };
  // ImageLocality: per container image (":latest" added without a tag), the size the first node
  // listing it reports, scaled by the share of nodes listing it; clamped and scaled to 0..100.
  auto lists = [&](NodeId n, const std::string& name) {
    for (const NodeImage& im : st.node(n).images)
      for (StrId s : im.names)
        if (interned(s) == name) return im.size_bytes;
    return int64_t{-1};
  };
  std::vector<const Container*> containers;
  for (const Container& c : spec.init_containers) containers.push_back(&c);
  for (const Container& c : spec.containers) containers.push_back(&c);
  const int64_t mib = 1024 * 1024;
  for (NodeId n : feasible) {
    int64_t sum = 0;
    for (const Container* c : containers) {
      std::string name = c->image;
      const auto colon = name.rfind(':'), slash = name.rfind('/');
      if (colon == std::string::npos || (slash != std::string::npos && colon < slash)) {
        name += ":latest";
      }
      if (lists(n, name) < 0) continue;
      int64_t size = -1, holders = 0;
      for (NodeId m : st.nodes()) {
        const int64_t sz = lists(m, name);
        if (sz < 0) continue;
        if (size < 0) size = sz;
        ++holders;
      }
      sum +=
          static_cast<int64_t>(static_cast<double>(size) * (static_cast<double>(holders) /
                                                            static_cast<double>(st.node_count())));
    }
    const int64_t max_threshold = 1000 * mib * static_cast<int64_t>(containers.size());
    sum = std::max<int64_t>(23 * mib, std::min(sum, max_threshold));
    raw[n]["ImageLocality"] = 100 * (sum - 23 * mib) / (max_threshold - 23 * mib);
  }
  const int64_t tt_max = max_of("TaintToleration"), na_max = max_of("NodeAffinity");
  for (NodeId n : feasible) {
    auto& r = raw[n];
    Expected& e = out[n];
    e.scores["TaintToleration"] = tt_max == 0 ? 100 : 100 - 100 * r["TaintToleration"] / tt_max;
    e.scores["NodeAffinity"] = na_max == 0 ? 0 : 100 * r["NodeAffinity"] / na_max;
    e.scores["NodeResourcesFit"] = r["NodeResourcesFit"];
    e.scores["NodeResourcesBalancedAllocation"] = r["NodeResourcesBalancedAllocation"];
    e.scores["InterPodAffinity"] = r["InterPodAffinity"];
    e.scores["PodTopologySpread"] = pts.at(n);
    e.scores["ImageLocality"] = r["ImageLocality"];
    e.total = 3 * e.scores["TaintToleration"] + 2 * e.scores["NodeAffinity"] +
              e.scores["NodeResourcesFit"] + 2 * e.scores["PodTopologySpread"] +
              2 * e.scores["InterPodAffinity"] + e.scores["NodeResourcesBalancedAllocation"] +
              e.scores["ImageLocality"];
  }
  return out;
}

}  // namespace orrery::plugins::testing
