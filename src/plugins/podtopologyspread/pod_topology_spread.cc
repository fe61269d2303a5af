#include "plugins/podtopologyspread/pod_topology_spread.h"

#include <cmath>
#include <limits>
#include <set>

#include "io/k8s_objects.h"
#include "plugins/helper/args.h"
#include "plugins/helper/fast_div.h"
#include "plugins/helper/hints.h"
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
    case OwnerKind::kStatefulSet: return !pod.owner.name.empty();
    default: return false;
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

const PodTopologySpread::Domains& PodTopologySpread::domains(const ClusterState& st, StrId key) {
  Domains& d = domains_[key];
  if (d.epoch == st.node_epoch() && d.of_node.size() == st.node_slots()) return d;
  d.of_node.assign(st.node_slots(), 0);
  d.has.assign(st.node_slots(), 0);
  std::unordered_map<StrId, uint32_t> index{{kNoStr, 0}};
  for (NodeId id : st.nodes()) {
    const auto v = st.node(id).labels.get(key);
    if (!v) continue;
    d.has[id] = 1;
    d.of_node[id] = index.emplace(*v, static_cast<uint32_t>(index.size())).first->second;
  }
  d.count = static_cast<uint32_t>(index.size());
  d.epoch = st.node_epoch();
  return d;
}

void PodTopologySpread::compile(const fw::CycleContext& cycle, SpreadWhenUnsatisfiable action,
                                std::vector<Constraint>* out) {
  out->clear();
  const PodSpec& spec = cycle.spec;
  const bool own = !spec.topology_spread.empty();
  if (!own && !spreads_by_owner(cycle.pod)) return;  // default constraints need a selector
  for (const TopologySpreadConstraint& t : own ? spec.topology_spread : defaults_) {
    if (t.when_unsatisfiable != action) continue;
    Constraint c;
    c.max_skew = t.max_skew;
    c.key = t.topology_key;
    c.domains = &domains(cycle.state, t.topology_key);
    c.hostname = t.topology_key == hostname_key();
    c.min_domains = t.min_domains.value_or(1);
    c.honor_affinity = t.node_affinity_policy == InclusionPolicy::kHonor;
    c.honor_taints = t.node_taints_policy == InclusionPolicy::kHonor;
    if (own) {
      c.labels = &t.selector;
      for (StrId k : t.match_label_keys)
        if (auto v = spec.labels.get(k)) c.label_values.emplace_back(k, *v);
      // An absent labelSelector selects nothing; `{}` every pod (LabelSelectorAsSelector).
      // matchLabelKeys values merged into Nothing give a selector of those labels alone
      // (mergeLabelSetWithSelector), which the API server forbids anyway.
      c.counts_nothing = !t.selector_set && c.label_values.empty();
      c.self_match = !c.counts_nothing && c.labels->matches(spec.labels);
      for (const auto& [k, v] : c.label_values)
        c.self_match = c.self_match && spec.labels.get(k) == v;
    } else {
      c.by_owner = true;
      c.self_match = true;  // the controller's selector matches its own pods
    }
    out->push_back(std::move(c));
  }
  if (out->empty()) return;
  names_ = &node_names_.get(cycle.state, [](const Node& node) { return intern(node.name); });
  if (!own) {
    group_ = cycle.pod_id != kNoPod
                 ? cycle.state.pod_group(cycle.pod_id)
                 : cycle.state.find_group(cycle.pod.ns, cycle.pod.owner.kind, cycle.pod.owner.name);
  }
}

bool PodTopologySpread::selects(const Constraint& c, const fw::CycleContext& cycle,
                                PodId other) const {
  if (c.counts_nothing) return false;
  if (c.by_owner) return group_ != kNoGroup && cycle.state.pod_group(other) == group_;
  const Pod& p = cycle.state.pod(other);
  if (p.ns != cycle.pod.ns) return false;
  const LabelSet& labels = p.spec->labels;
  if (!c.labels->matches(labels)) return false;
  for (const auto& [k, v] : c.label_values) {
    auto got = labels.get(k);
    if (!got || *got != v) return false;
  }
  return true;
}

void PodTopologySpread::scatter_group(const ClusterState& st) {
  for (NodeId n : group_touched_) group_count_[n] = 0;
  group_touched_.clear();
  if (group_count_.size() < st.node_slots()) group_count_.resize(st.node_slots(), 0);
  if (group_ == kNoGroup) return;
  for (const auto& [n, c] : st.group_nodes(group_)) {
    group_count_[n] = c;
    group_touched_.push_back(n);
  }
}

int64_t PodTopologySpread::count_on_node(const fw::CycleContext& cycle, const Constraint& c,
                                         NodeId node) const {
  if (c.counts_nothing) return 0;
  if (c.by_owner) return group_count_[node];  // ClusterState's group counts skip terminating pods
  int64_t n = 0;
  for (PodId p : cycle.state.pods_on(node)) {
    // countPodsMatchSelector: pods being deleted are not counted (upstream #87621).
    if (!cycle.state.pod(p).terminating && selects(c, cycle, p)) ++n;
  }
  return n;
}

bool PodTopologySpread::has_all_keys(NodeId node, const std::vector<Constraint>& cs) const {
  for (const Constraint& c : cs)
    if (!c.domains->has[node]) return false;
  return true;
}

bool PodTopologySpread::included(const fw::CycleContext& cycle, const Constraint& c,
                                 NodeId id) const {
  const PodSpec& spec = cycle.spec;
  if (c.honor_affinity && (!spec.node_selector.empty() || spec.node_affinity.required) &&
      !matches_required_affinity(spec, cycle.state.node(id), (*names_)[id])) {
    return false;
  }
  if (c.honor_taints && first_untolerated_hard_taint(cycle.state.node(id), spec.tolerations) >= 0) {
    return false;
  }
  return true;
}

fw::Status PodTopologySpread::pre_filter(const fw::CycleContext& cycle,
                                         std::optional<std::vector<NodeId>>*) {
  compile(cycle, SpreadWhenUnsatisfiable::kDoNotSchedule, &hard_);
  if (hard_.empty()) return fw::Status::skip();
  const ClusterState& st = cycle.state;
  if (hard_[0].by_owner) scatter_group(st);
  const size_t k = hard_.size();
  hard_counts_.resize(k);
  hard_min_.assign(k, 0);
  hard_num_domains_.assign(k, 0);
  hard_min_dirty_.assign(k, 1);
  for (size_t i = 0; i < k; ++i) hard_counts_[i].assign(hard_[i].domains->count, -1);
  for (NodeId id : st.nodes()) {
    if (!has_all_keys(id, hard_)) continue;
    for (size_t i = 0; i < k; ++i) {
      const Constraint& c = hard_[i];
      if (!included(cycle, c, id)) continue;
      int64_t& count = hard_counts_[i][c.domains->of_node[id]];
      if (count < 0) {
        count = 0;
        ++hard_num_domains_[i];
      }
      count += count_on_node(cycle, c, id);
    }
  }
  return fw::Status::ok();
}

void PodTopologySpread::refresh_min(size_t i) {
  if (!hard_min_dirty_[i]) return;
  // With no domain at all the minimum stays "infinite" (upstream's MaxInt32 critical path).
  int64_t m = std::numeric_limits<int32_t>::max();
  for (int64_t count : hard_counts_[i])
    if (count >= 0) m = std::min(m, count);
  hard_min_[i] = m;
  hard_min_dirty_[i] = 0;
}

void PodTopologySpread::update_with_pod(const fw::CycleContext& cycle, PodId other, NodeId node,
                                        int64_t delta) {
  if (hard_.empty()) return;
  if (!hard_[0].by_owner && cycle.state.pod(other).ns != cycle.pod.ns) return;
  if (!has_all_keys(node, hard_)) return;
  for (size_t i = 0; i < hard_.size(); ++i) {
    const Constraint& c = hard_[i];
    if (!selects(c, cycle, other) || !included(cycle, c, node)) continue;
    int64_t& count = hard_counts_[i][c.domains->of_node[node]];
    count += delta;
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

size_t PodTopologySpread::filter(const fw::CycleContext&, NodeId* nodes, size_t n,
                                 fw::Rejections& rejections) {
  for (size_t i = 0; i < hard_.size(); ++i) refresh_min(i);
  size_t kept = 0;
  for (size_t j = 0; j < n; ++j) {
    const NodeId id = nodes[j];
    bool ok = true;
    for (size_t i = 0; i < hard_.size() && ok; ++i) {
      const Constraint& c = hard_[i];
      if (!c.domains->has[id]) {
        rejections.add(id, kMissingLabel, 0, /*unresolvable=*/true);
        ok = false;
        break;
      }
      const int64_t min_match = hard_num_domains_[i] < c.min_domains ? 0 : hard_min_[i];
      const int64_t match = std::max<int64_t>(hard_counts_[i][c.domains->of_node[id]], 0);
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
  const bool by_owner = soft_[0].by_owner;
  if (by_owner) scatter_group(st);
  // Only pods with their own constraints (or List defaulting) require every topology key, so
  // nodes without a zone label still get hostname spreading from the system defaults.
  const bool require_all = !cycle.spec.topology_spread.empty() || !args_.system_defaulting;
  const size_t k = soft_.size();
  soft_counts_.resize(k);
  soft_weight_.assign(k, 0);
  topo_size_.assign(k, 0);
  for (size_t i = 0; i < k; ++i) {
    if (!soft_[i].hostname) soft_counts_[i].assign(soft_[i].domains->count, -1);
  }
  ignored_.assign(nodes.size(), 0);
  size_t num_ignored = 0;
  for (size_t j = 0; j < nodes.size(); ++j) {
    if (require_all && !has_all_keys(nodes[j], soft_)) {
      ignored_[j] = 1;
      ++num_ignored;
      continue;
    }
    for (size_t i = 0; i < k; ++i) {
      if (soft_[i].hostname) continue;  // per-node counts are taken in Score
      int64_t& count = soft_counts_[i][soft_[i].domains->of_node[nodes[j]]];
      if (count < 0) {
        count = 0;
        ++topo_size_[i];
      }
    }
  }
  bool any_zonal = false;
  for (size_t i = 0; i < k; ++i) {
    const size_t size = soft_[i].hostname ? nodes.size() - num_ignored : topo_size_[i];
    soft_weight_[i] = std::log(static_cast<double>(size + 2));
    any_zonal = any_zonal || !soft_[i].hostname;
  }
  if (!any_zonal) return fw::Status::ok();
  // Matching pods per domain over all nodes (only the group's nodes can hold any for owner
  // selectors).
  auto add_node = [&](NodeId id, int64_t owner_count) {
    if (require_all && !has_all_keys(id, soft_)) return;
    for (size_t i = 0; i < k; ++i) {
      const Constraint& c = soft_[i];
      if (c.hostname || !included(cycle, c, id)) continue;
      int64_t& count = soft_counts_[i][c.domains->of_node[id]];
      if (count < 0) continue;  // no candidate node has this value
      count += c.by_owner ? owner_count : count_on_node(cycle, c, id);
    }
  };
  if (by_owner) {
    if (group_ != kNoGroup)
      for (const auto& [id, cnt] : st.group_nodes(group_)) add_node(id, cnt);
  } else {
    for (NodeId id : st.nodes()) add_node(id, 0);
  }
  return fw::Status::ok();
}

// A soft constraint flattened for score(): its domains, its per-domain terms (non-hostname keys),
// weight and maxSkew - 1.
struct PodTopologySpread::ScoreView {
  const uint8_t* has;
  const uint32_t* domain;
  const double* terms;  // non-hostname
  double weight, offset;
  bool hostname, by_owner;
  const Constraint* c;
};

void PodTopologySpread::score(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
                              int64_t* scores) {
  compute_soft_terms();
  // Flat per-constraint views in locals (the score writes could alias members).
  const size_t k = soft_.size();
  ScoreView views[kMaxScoreViews];
  const size_t kv = fill_score_views(views);
  const uint8_t* ignored = ignored_.data();
  const int32_t* group_count = group_count_.data();
  // The system defaults (hostname, then one zonal key, by controller): a node without replicas
  // scores a value that depends only on which labels it has and its zone, so precompute those,
  // summing in the same order as below (bit-identical).
  const bool defaults =
      k == 2 && views[0].hostname && views[0].by_owner && !views[1].hostname && views[1].by_owner;
  if (defaults) precompute_default_scores(views);
  for (size_t j = 0; j < nodes.size(); ++j) {
    if (ignored[j]) {
      scores[j] = 0;
      continue;
    }
    const NodeId id = nodes[j];
    if (defaults && group_count[id] == 0) {
      const size_t domains = soft_counts_[1].size();
      const size_t h = views[0].has[id];
      scores[j] =
          views[1].has[id] ? fast_[h * domains + views[1].domain[id]] : fast_[2 * domains + h];
      continue;
    }
    double s = 0;
    for (size_t i = 0; i < kv; ++i) {
      const ScoreView& v = views[i];
      if (!v.has[id]) continue;
      if (v.hostname) {
        const int64_t cnt = v.by_owner ? group_count[id] : count_on_node(cycle, *v.c, id);
        s += static_cast<double>(cnt) * v.weight + v.offset;
      } else {
        s += v.terms[v.domain[id]];
      }
    }
    if (k > kv) s = add_unviewed_terms(cycle, id, kv, s);
    scores[j] = round_half_up(s);
  }
}

// Per constraint, the term a node of each domain adds: count·weight + maxSkew - 1 (computed as
// upstream computes it per node, so the sums are bit-identical).
void PodTopologySpread::compute_soft_terms() {
  const size_t k = soft_.size();
  soft_terms_.resize(k);
  for (size_t i = 0; i < k; ++i) {
    if (soft_[i].hostname) continue;
    const auto& counts = soft_counts_[i];
    soft_terms_[i].resize(counts.size());
    for (size_t d = 0; d < counts.size(); ++d) {
      soft_terms_[i][d] = static_cast<double>(std::max<int64_t>(counts[d], 0)) * soft_weight_[i] +
                          static_cast<double>(soft_[i].max_skew - 1);
    }
  }
}

// Fills views with the first kMaxScoreViews soft constraints; returns how many it filled.
size_t PodTopologySpread::fill_score_views(ScoreView* views) const {
  const size_t kv = std::min<size_t>(soft_.size(), kMaxScoreViews);
  for (size_t i = 0; i < kv; ++i) {
    const Constraint& c = soft_[i];
    views[i] = {c.domains->has.data(),
                c.domains->of_node.data(),
                c.hostname ? nullptr : soft_terms_[i].data(),
                soft_weight_[i],
                static_cast<double>(c.max_skew - 1),
                c.hostname,
                c.by_owner,
                &c};
  }
  return kv;
}

// The system defaults: fast_ gets the score of a replica-free node per zone, with and without the
// hostname label, then without the zone label (neither label, hostname only).
void PodTopologySpread::precompute_default_scores(const ScoreView* views) {
  const size_t domains = soft_counts_[1].size();
  fast_.resize(2 * domains + 2);
  for (size_t d = 0; d < domains; ++d) {
    fast_[d] = round_half_up(0.0 + views[1].terms[d]);  // no hostname
    fast_[domains + d] = round_half_up((0.0 + views[0].offset) + views[1].terms[d]);
  }
  fast_[2 * domains] = 0;                                         // neither label
  fast_[2 * domains + 1] = round_half_up(0.0 + views[0].offset);  // hostname only
}

// More than kMaxScoreViews constraints: adds to s, in order, the terms of node id for the
// constraints from `from` on (the general path, without views).
double PodTopologySpread::add_unviewed_terms(const fw::CycleContext& cycle, NodeId id, size_t from,
                                             double s) const {
  for (size_t i = from; i < soft_.size(); ++i) {
    const Constraint& c = soft_[i];
    if (!c.domains->has[id]) continue;
    s += c.hostname ? static_cast<double>(count_on_node(cycle, c, id)) * soft_weight_[i] +
                          static_cast<double>(c.max_skew - 1)
                    : soft_terms_[i][c.domains->of_node[id]];
  }
  return s;
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
  const double inv = max_score == 0 ? 0 : 1.0 / static_cast<double>(max_score);
  // Raw scores are small (counts × ln(domains + 2) + maxSkew - 1): a table of every value.
  constexpr int64_t kTable = 256;
  if (max_score > 0 && max_score < kTable) {
    int64_t table[kTable];
    for (int64_t v = min_score; v <= max_score; ++v) {
      table[v] = div_floor(fw::kMaxNodeScore * (max_score + min_score - v), max_score, inv);
    }
    for (size_t j = 0; j < nodes.size(); ++j) scores[j] = ignored_[j] ? 0 : table[scores[j]];
    return;
  }
  // Otherwise raw scores repeat on consecutive nodes (same domain): remember the last one.
  int64_t last_raw = -1, last = 0;
  for (size_t j = 0; j < nodes.size(); ++j) {
    if (ignored_[j]) {
      scores[j] = 0;
    } else if (max_score == 0) {
      scores[j] = fw::kMaxNodeScore;
    } else if (scores[j] == last_raw) {
      scores[j] = last;
    } else {
      last_raw = scores[j];
      last = div_floor(fw::kMaxNodeScore * (max_score + min_score - last_raw), max_score, inv);
      scores[j] = last;
    }
  }
}

// Any node change may change the domains (a removed node may take the minimum with it). A pod
// counted or uncounted changes the counts only if one of the waiting pod's hard constraints
// selects it (upstream's isSchedulableAfterPodChange): same namespace, selector and matchLabelKeys
// values; a pod already gone (deleted) is not known, and selection by owner (hard default
// constraints) is not checked, so those requeue.
fw::QueueingHint PodTopologySpread::queueing_hint(const fw::QueueEvent& event,
                                                  const ClusterState& state,
                                                  const fw::PodClassKey& waiting) const {
  switch (event.kind) {
    case fw::QueueEvent::kPodAssigned:
    case fw::QueueEvent::kPodReleased: break;
    case fw::QueueEvent::kNominationCleared: return queue_if(nomination_may_help(event, waiting));
    case fw::QueueEvent::kOther: return fw::QueueingHint::kSkip;
    default: return fw::QueueingHint::kQueue;
  }
  const PodSpec& spec = *waiting.spec;
  if (spec.topology_spread.empty() || event.pod == kNoPod || !state.pod_alive(event.pod)) {
    return fw::QueueingHint::kQueue;
  }
  const Pod& other = state.pod(event.pod);
  if (other.ns != interned(waiting.ns)) return fw::QueueingHint::kSkip;
  const LabelSet& labels = other.spec->labels;
  for (const TopologySpreadConstraint& t : spec.topology_spread) {
    if (t.when_unsatisfiable != SpreadWhenUnsatisfiable::kDoNotSchedule) continue;
    bool any_term = !t.selector.match_labels.empty() || !t.selector.match_expressions.empty();
    bool selects = t.selector.matches(labels);
    for (StrId k : t.match_label_keys) {
      if (auto v = spec.labels.get(k)) {
        any_term = true;
        selects = selects && labels.get(k) == v;
      }
    }
    if (any_term && selects) return fw::QueueingHint::kQueue;  // an empty selector counts nothing
  }
  return fw::QueueingHint::kSkip;
}

// Hard default constraints select the pod's controller group: pods of one spec in different
// groups count different pods.
uint64_t PodTopologySpread::class_salt(const ClusterState& state, PodId pod) const {
  const Pod& p = state.pod(pod);
  if (!p.spec->topology_spread.empty() || !spreads_by_owner(p)) return 0;
  for (const TopologySpreadConstraint& t : defaults_) {
    if (t.when_unsatisfiable == SpreadWhenUnsatisfiable::kDoNotSchedule) {
      return uint64_t{state.pod_group(pod)} + 1;
    }
  }
  return 0;
}

}  // namespace orrery::plugins
