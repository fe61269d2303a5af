#include "plugins/podtopologyspread/pod_topology_spread.h"

#include <cmath>
#include <limits>
#include <set>

#include "core/k8s_objects.h"
#include "plugins/helper/args.h"
#include "plugins/helper/names.h"
#include "plugins/helper/node_affinity.h"

namespace orrery::plugins {

namespace {

const StrId& hostname_key() {
  static const StrId k = intern("kubernetes.io/hostname");
  return k;
}

std::vector<TopologySpreadConstraint> system_default_constraints() {
  TopologySpreadConstraint host;
  host.topology_key = intern("kubernetes.io/hostname");
  host.when_unsatisfiable = SpreadWhenUnsatisfiable::kScheduleAnyway;
  host.max_skew = 3;
  TopologySpreadConstraint zone;
  zone.topology_key = intern("topology.kubernetes.io/zone");
  zone.when_unsatisfiable = SpreadWhenUnsatisfiable::kScheduleAnyway;
  zone.max_skew = 5;
  return {host, zone};
}

// Controllers whose selector upstream's DefaultSelector uses (ReplicaSet, StatefulSet,
// ReplicationController); orrery also lets pods be owned by a Deployment directly.
bool spreads_by_owner(const Pod& pod) {
  switch (pod.owner.kind) {
    case OwnerKind::kReplicaSet:
    case OwnerKind::kDeployment:
    case OwnerKind::kStatefulSet:
      return !pod.owner.name.empty();
    default:
      return false;
  }
}

}  // namespace

PodTopologySpreadArgs PodTopologySpreadArgs::parse(const yaml::Ctx& args) {
  PodTopologySpreadArgs a;
  expect_arg_keys(args, {"defaultConstraints", "defaultingType"});
  if (!args.defined()) return a;
  const std::string type = args.str_or("defaultingType", "System");
  if (type == "List") {
    a.system_defaulting = false;
  } else if (type != "System") {
    args.child("defaultingType")
        .fail("Unsupported value: \"" + type + "\": supported values: \"List\", \"System\"");
  }
  yaml::Ctx list = args.child("defaultConstraints");
  if (!list.defined()) return a;
  list.expect_seq();
  if (a.system_defaulting && list.size() > 0) {
    list.fail("when .defaultingType is \"System\", .defaultConstraints must be empty");
  }
  std::set<std::pair<StrId, int>> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    yaml::Ctx item = list.item(i);
    TopologySpreadConstraint c = parse_topology_spread_constraint(item);
    if (item.has("labelSelector")) {
      item.child("labelSelector")
          .fail("constraint must not define a selector, as they deduced for each pod");
    }
    if (!seen.insert({c.topology_key, static_cast<int>(c.when_unsatisfiable)}).second) {
      item.fail("Duplicate value: {topologyKey, whenUnsatisfiable}");
    }
    a.default_constraints.push_back(std::move(c));
  }
  return a;
}

PodTopologySpread::PodTopologySpread(PodTopologySpreadArgs args)
    : args_(std::move(args)),
      defaults_(args_.system_defaulting ? system_default_constraints()
                                        : args_.default_constraints) {}

std::string_view PodTopologySpread::name() const {
  return names::kPodTopologySpread;
}

void PodTopologySpread::compile(const fw::CycleContext& cycle, SpreadWhenUnsatisfiable action,
                                std::vector<Constraint>* out) const {
  out->clear();
  const PodSpec& spec = cycle.spec;
  const bool own = !spec.topology_spread.empty();
  if (!own && !spreads_by_owner(cycle.pod)) return;  // default constraints need a selector
  for (const TopologySpreadConstraint& t : own ? spec.topology_spread : defaults_) {
    if (t.when_unsatisfiable != action) continue;
    Constraint c;
    c.max_skew = t.max_skew;
    c.key = t.topology_key;
    c.hostname = t.topology_key == hostname_key();
    c.min_domains = t.min_domains.value_or(1);
    c.honor_affinity = t.node_affinity_policy == InclusionPolicy::kHonor;
    c.honor_taints = t.node_taints_policy == InclusionPolicy::kHonor;
    if (own) {
      c.labels = &t.selector;
      for (StrId k : t.match_label_keys)
        if (auto v = spec.labels.get(k)) c.label_values.emplace_back(k, *v);
      c.counts_nothing = t.selector.match_labels.empty() && t.selector.match_expressions.empty() &&
                         c.label_values.empty();
    } else {
      c.by_owner = true;
    }
    c.self_match = !c.counts_nothing && selects(c, cycle, cycle.pod);
    out->push_back(std::move(c));
  }
}

bool PodTopologySpread::selects(const Constraint& c, const fw::CycleContext& cycle,
                                const Pod& other) const {
  if (c.counts_nothing) return false;
  if (c.by_owner) {
    return other.owner.kind == cycle.pod.owner.kind && other.owner.name == cycle.pod.owner.name;
  }
  const LabelSet& labels = other.spec->labels;
  if (!c.labels->matches(labels)) return false;
  for (const auto& [k, v] : c.label_values) {
    auto got = labels.get(k);
    if (!got || *got != v) return false;
  }
  return true;
}

int64_t PodTopologySpread::count_on_node(const fw::CycleContext& cycle, const Constraint& c,
                                         NodeId node) const {
  if (c.counts_nothing) return 0;
  int64_t n = 0;
  for (PodId p : cycle.state.pods_on(node)) {
    const Pod& other = cycle.state.pod(p);
    if (other.ns == cycle.pod.ns && selects(c, cycle, other)) ++n;
  }
  return n;
}

bool PodTopologySpread::has_all_keys(const Node& node, const std::vector<Constraint>& cs) const {
  for (const Constraint& c : cs)
    if (!node.labels.has(c.key)) return false;
  return true;
}

bool PodTopologySpread::included(const fw::CycleContext& cycle, const Constraint& c,
                                 NodeId id) const {
  const Node& node = cycle.state.node(id);
  if (c.honor_affinity && !matches_required_affinity(cycle.spec, node, (*names_)[id])) {
    return false;
  }
  if (c.honor_taints && first_untolerated_hard_taint(node, cycle.spec.tolerations) >= 0) {
    return false;
  }
  return true;
}

void PodTopologySpread::refresh_names(const ClusterState& st) {
  names_ = &node_names_.get(st, [](const Node& node) { return intern(node.name); });
}

fw::Status PodTopologySpread::pre_filter(const fw::CycleContext& cycle,
                                         std::optional<std::vector<NodeId>>*) {
  compile(cycle, SpreadWhenUnsatisfiable::kDoNotSchedule, &hard_);
  if (hard_.empty()) return fw::Status::skip();
  refresh_names(cycle.state);
  const size_t k = hard_.size();
  hard_counts_.resize(k);
  hard_min_.assign(k, 0);
  hard_min_dirty_.assign(k, 1);
  for (auto& m : hard_counts_) m.clear();
  const ClusterState& st = cycle.state;
  for (NodeId id : st.nodes()) {
    const Node& node = st.node(id);
    if (!has_all_keys(node, hard_)) continue;
    for (size_t i = 0; i < k; ++i) {
      const Constraint& c = hard_[i];
      if (!included(cycle, c, id)) continue;
      hard_counts_[i][*node.labels.get(c.key)] += count_on_node(cycle, c, id);
    }
  }
  return fw::Status::ok();
}

void PodTopologySpread::refresh_min(size_t i) {
  if (!hard_min_dirty_[i]) return;
  // With no domain at all the minimum stays "infinite" (upstream's MaxInt32 critical path).
  int64_t m = std::numeric_limits<int32_t>::max();
  for (const auto& [value, count] : hard_counts_[i]) m = std::min(m, count);
  hard_min_[i] = m;
  hard_min_dirty_[i] = 0;
}

void PodTopologySpread::update_with_pod(const fw::CycleContext& cycle, PodId other, NodeId node,
                                        int64_t delta) {
  if (hard_.empty()) return;
  const ClusterState& st = cycle.state;
  const Pod& p = st.pod(other);
  if (p.ns != cycle.pod.ns) return;
  const Node& n = st.node(node);
  if (!has_all_keys(n, hard_)) return;
  for (size_t i = 0; i < hard_.size(); ++i) {
    const Constraint& c = hard_[i];
    if (!selects(c, cycle, p) || !included(cycle, c, node)) continue;
    hard_counts_[i][*n.labels.get(c.key)] += delta;
    hard_min_dirty_[i] = 1;
  }
}

void PodTopologySpread::pre_filter_remove_pod(const fw::CycleContext& cycle, PodId other,
                                              NodeId node) {
  update_with_pod(cycle, other, node, -1);
}

void PodTopologySpread::pre_filter_add_pod(const fw::CycleContext& cycle, PodId other,
                                           NodeId node) {
  update_with_pod(cycle, other, node, +1);
}

size_t PodTopologySpread::filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                                 fw::Rejections& rejections) {
  for (size_t i = 0; i < hard_.size(); ++i) refresh_min(i);
  const ClusterState& st = cycle.state;
  size_t kept = 0;
  for (size_t j = 0; j < n; ++j) {
    const NodeId id = nodes[j];
    const LabelSet& labels = st.node(id).labels;
    bool ok = true;
    for (size_t i = 0; i < hard_.size() && ok; ++i) {
      const Constraint& c = hard_[i];
      const auto value = labels.get(c.key);
      if (!value) {
        rejections.add(id, kMissingLabel, 0, /*unresolvable=*/true);
        ok = false;
        break;
      }
      const auto& counts = hard_counts_[i];
      const int64_t min_match =
          static_cast<int64_t>(counts.size()) < c.min_domains ? 0 : hard_min_[i];
      auto it = counts.find(*value);
      const int64_t match = it == counts.end() ? 0 : it->second;
      if (match + (c.self_match ? 1 : 0) - min_match > c.max_skew) {
        rejections.add(id, kSkew, 0, /*unresolvable=*/false);
        ok = false;
      }
    }
    if (ok) nodes[kept++] = id;
  }
  return kept;
}

void PodTopologySpread::describe(const ClusterState&, const fw::Rejection& r,
                                 std::vector<std::string>* reasons) const {
  reasons->push_back(r.code == kMissingLabel
                         ? "node(s) didn't match pod topology spread constraints (missing "
                           "required label)"
                         : "node(s) didn't match pod topology spread constraints");
}

fw::Status PodTopologySpread::pre_score(const fw::CycleContext& cycle,
                                        std::span<const NodeId> nodes) {
  const ClusterState& st = cycle.state;
  if (st.node_count() == 0) return fw::Status::skip();
  compile(cycle, SpreadWhenUnsatisfiable::kScheduleAnyway, &soft_);
  if (soft_.empty()) return fw::Status::skip();
  refresh_names(cycle.state);
  // Only pods with their own constraints (or List defaulting) require every topology key, so
  // nodes without a zone label still get hostname spreading from the system defaults.
  const bool require_all = !cycle.spec.topology_spread.empty() || !args_.system_defaulting;
  const size_t k = soft_.size();
  soft_counts_.resize(k);
  for (auto& m : soft_counts_) m.clear();
  soft_weight_.assign(k, 0);
  ignored_.assign(nodes.size(), 0);
  size_t num_ignored = 0;
  std::vector<size_t> topo_size(k, 0);
  for (size_t j = 0; j < nodes.size(); ++j) {
    const Node& node = st.node(nodes[j]);
    if (require_all && !has_all_keys(node, soft_)) {
      ignored_[j] = 1;
      ++num_ignored;
      continue;
    }
    for (size_t i = 0; i < k; ++i) {
      if (soft_[i].hostname) continue;  // per-node counts are taken in Score
      const StrId value = node.labels.get(soft_[i].key).value_or(kNoStr);
      if (soft_counts_[i].emplace(value, 0).second) ++topo_size[i];
    }
  }
  for (size_t i = 0; i < k; ++i) {
    const size_t size = soft_[i].hostname ? nodes.size() - num_ignored : topo_size[i];
    soft_weight_[i] = std::log(static_cast<double>(size + 2));
  }
  bool any_zonal = false;
  for (const Constraint& c : soft_) any_zonal = any_zonal || !c.hostname;
  if (!any_zonal) return fw::Status::ok();
  for (NodeId id : st.nodes()) {
    const Node& node = st.node(id);
    if (require_all && !has_all_keys(node, soft_)) continue;
    for (size_t i = 0; i < k; ++i) {
      const Constraint& c = soft_[i];
      if (c.hostname || !included(cycle, c, id)) continue;
      auto it = soft_counts_[i].find(node.labels.get(c.key).value_or(kNoStr));
      if (it == soft_counts_[i].end()) continue;  // no candidate node has this value
      it->second += count_on_node(cycle, c, id);
    }
  }
  return fw::Status::ok();
}

void PodTopologySpread::score(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
                              int64_t* scores) {
  const ClusterState& st = cycle.state;
  for (size_t j = 0; j < nodes.size(); ++j) {
    if (ignored_[j]) {
      scores[j] = 0;
      continue;
    }
    const LabelSet& labels = st.node(nodes[j]).labels;
    double s = 0;
    for (size_t i = 0; i < soft_.size(); ++i) {
      const Constraint& c = soft_[i];
      const auto value = labels.get(c.key);
      if (!value) continue;
      int64_t cnt = 0;
      if (c.hostname) {
        cnt = count_on_node(cycle, c, nodes[j]);
      } else {
        auto it = soft_counts_[i].find(*value);
        if (it != soft_counts_[i].end()) cnt = it->second;
      }
      s += static_cast<double>(cnt) * soft_weight_[i] + static_cast<double>(c.max_skew - 1);
    }
    scores[j] = std::llround(s);
  }
}

void PodTopologySpread::normalize(const fw::CycleContext&, std::span<const NodeId> nodes,
                                  int64_t* scores) {
  int64_t min_score = std::numeric_limits<int64_t>::max();
  int64_t max_score = 0;
  for (size_t j = 0; j < nodes.size(); ++j) {
    if (ignored_[j]) continue;
    min_score = std::min(min_score, scores[j]);
    max_score = std::max(max_score, scores[j]);
  }
  for (size_t j = 0; j < nodes.size(); ++j) {
    if (ignored_[j]) {
      scores[j] = 0;
    } else if (max_score == 0) {
      scores[j] = fw::kMaxNodeScore;
    } else {
      scores[j] = fw::kMaxNodeScore * (max_score + min_score - scores[j]) / max_score;
    }
  }
}

}  // namespace orrery::plugins
