#include "plugins/interpodaffinity/inter_pod_affinity.h"

#include <algorithm>
#include <limits>

#include "plugins/helper/args.h"
#include "plugins/helper/names.h"

namespace orrery::plugins {

namespace {

const LabelSet& no_labels() {
  static const LabelSet kEmpty;
  return kEmpty;
}

// The value of `key` in labels sorted by key, or nullptr.
const StrId* find_label(const std::pair<StrId, StrId>* begin, const std::pair<StrId, StrId>* end,
                        StrId key) {
  const auto* it = std::lower_bound(
      begin, end, key, [](const std::pair<StrId, StrId>& kv, StrId k) { return kv.first < k; });
  return it != end && it->first == key ? &it->second : nullptr;
}

// LabelSelector::matches on a flat label array (label selectors hold In, NotIn, Exists and
// DoesNotExist only: the loader rejects Gt and Lt there).
bool selector_matches(const LabelSelector& s, const std::pair<StrId, StrId>* begin,
                      const std::pair<StrId, StrId>* end) {
  for (const auto& [k, v] : s.match_labels.items()) {
    const StrId* got = find_label(begin, end, k);
    if (!got || *got != v) return false;
  }
  for (const NodeSelectorRequirement& r : s.match_expressions) {
    const StrId* got = find_label(begin, end, r.key);
    const bool in = got && std::find(r.values.begin(), r.values.end(), *got) != r.values.end();
    switch (r.op) {
      case SelectorOp::kIn:
        if (!in) return false;
        break;
      case SelectorOp::kNotIn:
        if (in) return false;
        break;
      case SelectorOp::kExists:
        if (!got) return false;
        break;
      case SelectorOp::kDoesNotExist:
        if (got) return false;
        break;
      default: return false;
    }
  }
  return true;
}

bool contains(const std::vector<std::string_view>& sorted, std::string_view s) {
  if (sorted.size() <= 4) {
    for (std::string_view n : sorted)
      if (n == s) return true;
    return false;
  }
  return std::binary_search(sorted.begin(), sorted.end(), s);
}

}  // namespace

InterPodAffinityArgs InterPodAffinityArgs::parse(const yaml::Ctx& args) {
  InterPodAffinityArgs a;
  expect_arg_keys(args, {"hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods"});
  if (!args.defined()) return a;
  const int64_t w = args.i64_or("hardPodAffinityWeight", a.hard_pod_affinity_weight);
  if (w < 0 || w > 100) args.child("hardPodAffinityWeight").fail("not in valid range [0, 100]");
  a.hard_pod_affinity_weight = static_cast<int32_t>(w);
  a.ignore_preferred_terms_of_existing_pods =
      args.bool_or("ignorePreferredTermsOfExistingPods", false);
  return a;
}

InterPodAffinity::InterPodAffinity(InterPodAffinityArgs args) : args_(args) {}

std::string_view InterPodAffinity::name() const {
  return names::kInterPodAffinity;
}

// ---- TopoCounts ----

void InterPodAffinity::TopoCounts::reset() {
  for (size_t i = 0; i < used_; ++i) {
    Key& k = keys_[i];
    for (uint32_t d : k.touched) k.count[d] = 0;
    k.touched.clear();
  }
  used_ = 0;
  nonzero_ = 0;
}

size_t InterPodAffinity::TopoCounts::find(StrId key) const {
  for (size_t i = 0; i < used_; ++i)
    if (keys_[i].key == key) return i;
  return npos;
}

size_t InterPodAffinity::TopoCounts::add_key(StrId key, const Domains* d) {
  if (used_ == keys_.size()) keys_.emplace_back();
  Key& k = keys_[used_];
  k.key = key;
  k.d = d;
  // Entries are all zero (reset() cleared what was touched); only the size may differ.
  if (k.count.size() != d->count) k.count.assign(d->count, 0);
  return used_++;
}

bool InterPodAffinity::TopoCounts::add(size_t k, NodeId node, int64_t v) {
  Key& key = keys_[k];
  if (!key.d->has[node]) return false;
  const uint32_t dom = key.d->of_node[node];
  int64_t& c = key.count[dom];
  const bool was = c != 0;
  if (!was) key.touched.push_back(dom);
  c += v;
  nonzero_ += static_cast<int64_t>(c != 0) - static_cast<int64_t>(was);
  return true;
}

// ---- helpers ----

const InterPodAffinity::Domains& InterPodAffinity::domains(const ClusterState& st, StrId key) {
  Domains& d = domains_[key];
  if (d.epoch == st.node_epoch() && d.of_node.size() == st.node_slots()) return d;
  d.of_node.assign(st.node_slots(), 0);
  d.has.assign(st.node_slots(), 0);
  std::unordered_map<StrId, uint32_t> index;
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

size_t InterPodAffinity::key_index(TopoCounts& counts, const ClusterState& st, StrId key) {
  const size_t k = counts.find(key);
  return k != TopoCounts::npos ? k : counts.add_key(key, &domains(st, key));
}

void InterPodAffinity::set_incoming(const fw::CycleContext& cycle) {
  in_pod_ = &cycle.pod;
  in_labels_ = &cycle.spec.labels;
  const LabelSet* ns = cycle.state.namespace_labels(cycle.pod.ns);
  in_ns_labels_ = ns ? ns : &no_labels();
  in_ns_ = find_interned(cycle.pod.ns);
}

void InterPodAffinity::compile(const fw::CycleContext& cycle, const PodAffinityTerm& term,
                               int64_t weight, TopoCounts& counts, std::vector<Term>* out) {
  Term t;
  t.selector = term.selector ? &*term.selector : nullptr;
  t.key = term.topology_key;
  t.k = key_index(counts, cycle.state, term.topology_key);
  t.weight = weight;
  if (term.own_namespace_only()) {
    t.namespaces.push_back(cycle.pod.ns);
  } else {
    for (StrId n : term.namespaces) t.namespaces.push_back(interned(n));
    if (term.namespace_selector) {
      if (term.namespace_selector->empty()) {
        t.all_namespaces = true;  // {}: every namespace
      } else {
        for (const auto& [name, labels] : cycle.state.namespaces())
          if (term.namespace_selector->matches(labels)) t.namespaces.push_back(name);
      }
    }
    std::sort(t.namespaces.begin(), t.namespaces.end());
    t.namespaces.erase(std::unique(t.namespaces.begin(), t.namespaces.end()), t.namespaces.end());
  }
  for (std::string_view n : t.namespaces) t.namespace_ids.push_back(intern(n));
  out->push_back(std::move(t));
}

bool InterPodAffinity::matches(const Term& t, const Pod& other) {
  if (!t.selector) return false;
  if (!t.all_namespaces && !contains(t.namespaces, other.ns)) return false;
  return t.selector->matches(other.spec->labels);
}

bool InterPodAffinity::matches(const Term& t, const NodePods& np, const MirroredPod& p) {
  if (!t.selector) return false;
  if (!t.all_namespaces &&
      std::find(t.namespace_ids.begin(), t.namespace_ids.end(), p.ns) == t.namespace_ids.end()) {
    return false;
  }
  return selector_matches(*t.selector, np.labels.data() + p.begin, np.labels.data() + p.end);
}

void InterPodAffinity::sync_mirror(const ClusterState& st) {
  if (mirror_.size() < st.node_slots()) mirror_.resize(st.node_slots());
  const uint64_t* versions = st.node_versions();
  for (NodeId n : st.nodes()) {
    NodePods& np = mirror_[n];
    if (np.version == versions[n]) continue;
    np.version = versions[n];
    np.pods.clear();
    np.labels.clear();
    for (PodId q : st.pods_on(n)) {
      const Pod& e = st.pod(q);
      const auto begin = static_cast<uint32_t>(np.labels.size());
      for (const auto& kv : e.spec->labels.items()) np.labels.push_back(kv);
      np.pods.push_back({intern(e.ns), begin, static_cast<uint32_t>(np.labels.size())});
    }
  }
}

bool InterPodAffinity::existing_matches(const PodAffinityTerm& t, const Pod& owner) const {
  if (!t.selector) return false;
  bool ns_ok;
  if (t.own_namespace_only()) {
    ns_ok = owner.ns == in_pod_->ns;
  } else {
    ns_ok = (in_ns_ != kNoStr &&
             std::find(t.namespaces.begin(), t.namespaces.end(), in_ns_) != t.namespaces.end()) ||
            (t.namespace_selector && t.namespace_selector->matches(*in_ns_labels_));
  }
  return ns_ok && t.selector->matches(*in_labels_);
}

// ---- Filter ----

fw::Status InterPodAffinity::pre_filter(const fw::CycleContext& cycle,
                                        std::optional<std::vector<NodeId>>*) {
  active_ = false;
  const ClusterState& st = cycle.state;
  const PodSpec& spec = cycle.spec;
  const std::vector<PodId>& with_anti = st.pods_with_required_anti_affinity();
  const bool own_terms =
      !spec.pod_affinity.required.empty() || !spec.pod_anti_affinity.required.empty();
  if (!own_terms && with_anti.empty()) return fw::Status::skip();
  set_incoming(cycle);

  // Existing pods' required anti-affinity terms that match the incoming pod.
  existing_anti_.reset();
  for (PodId q : with_anti) {
    const Pod& e = st.pod(q);
    const NodeId n = st.pod_node(q);
    for (const PodAffinityTerm& t : e.spec->pod_anti_affinity.required) {
      if (existing_matches(t, e))
        existing_anti_.add(key_index(existing_anti_, st, t.topology_key), n, 1);
    }
  }

  // Existing pods matching the incoming pod's required terms.
  affinity_.reset();
  anti_affinity_.reset();
  req_affinity_.clear();
  req_anti_affinity_.clear();
  for (const PodAffinityTerm& t : spec.pod_affinity.required)
    compile(cycle, t, 0, affinity_, &req_affinity_);
  for (const PodAffinityTerm& t : spec.pod_anti_affinity.required)
    compile(cycle, t, 0, anti_affinity_, &req_anti_affinity_);
  self_match_ = !req_affinity_.empty();
  for (const Term& t : req_affinity_) self_match_ = self_match_ && matches(t, cycle.pod);
  if (own_terms) {
    sync_mirror(st);
    for (NodeId n : st.nodes()) {
      const NodePods& np = mirror_[n];
      for (const MirroredPod& e : np.pods) {
        if (!req_affinity_.empty()) {
          bool all = true;
          for (const Term& t : req_affinity_) {
            if (!matches(t, np, e)) {
              all = false;
              break;
            }
          }
          if (all)
            for (const Term& t : req_affinity_) affinity_.add(t.k, n, 1);
        }
        for (const Term& t : req_anti_affinity_)
          if (matches(t, np, e)) anti_affinity_.add(t.k, n, 1);
      }
    }
  }
  if (existing_anti_.nonzero() == 0 && !own_terms) return fw::Status::skip();
  active_ = true;
  return fw::Status::ok();
}

void InterPodAffinity::update_with_pod(const fw::CycleContext& cycle, PodId other, NodeId node,
                                       int64_t m) {
  if (!active_) return;
  const ClusterState& st = cycle.state;
  const Pod& e = st.pod(other);
  for (const PodAffinityTerm& t : e.spec->pod_anti_affinity.required) {
    if (existing_matches(t, e))
      existing_anti_.add(key_index(existing_anti_, st, t.topology_key), node, m);
  }
  if (!req_affinity_.empty()) {
    bool all = true;
    for (const Term& t : req_affinity_) all = all && matches(t, e);
    if (all)
      for (const Term& t : req_affinity_) affinity_.add(t.k, node, m);
  }
  for (const Term& t : req_anti_affinity_)
    if (matches(t, e)) anti_affinity_.add(t.k, node, m);
}

void InterPodAffinity::pre_filter_remove_pod(const fw::CycleContext& cycle, PodId other,
                                             NodeId node) {
  update_with_pod(cycle, other, node, -1);
}

void InterPodAffinity::pre_filter_add_pod(const fw::CycleContext& cycle, PodId other, NodeId node) {
  update_with_pod(cycle, other, node, +1);
}

size_t InterPodAffinity::filter(const fw::CycleContext&, NodeId* nodes, size_t n,
                                fw::Rejections& rejections) {
  // A pod whose terms match no existing pod but match itself may go anywhere the keys exist.
  const bool self_ok = affinity_.nonzero() == 0 && self_match_;
  const bool check_anti = anti_affinity_.nonzero() > 0;
  const bool check_existing = existing_anti_.nonzero() > 0;
  size_t kept = 0;
  for (size_t j = 0; j < n; ++j) {
    const NodeId id = nodes[j];
    bool ok = true;
    if (!req_affinity_.empty()) {
      bool exist = true;
      for (const Term& t : req_affinity_) {
        const Domains& d = affinity_.domains(t.k);
        if (!d.has[id]) {  // every topology key must exist on the node
          ok = false;
          break;
        }
        if (affinity_.counts(t.k)[d.of_node[id]] <= 0) exist = false;
      }
      if (ok && !exist && !self_ok) ok = false;
      if (!ok) {
        rejections.add(id, kAffinity, 0, /*unresolvable=*/true);
        continue;
      }
    }
    if (check_anti) {
      for (const Term& t : req_anti_affinity_) {
        const Domains& d = anti_affinity_.domains(t.k);
        if (d.has[id] && anti_affinity_.counts(t.k)[d.of_node[id]] > 0) {
          ok = false;
          break;
        }
      }
      if (!ok) {
        rejections.add(id, kAntiAffinity, 0, /*unresolvable=*/false);
        continue;
      }
    }
    if (check_existing) {
      for (size_t k = 0; k < existing_anti_.size(); ++k) {
        const Domains& d = existing_anti_.domains(k);
        if (d.has[id] && existing_anti_.counts(k)[d.of_node[id]] > 0) {
          ok = false;
          break;
        }
      }
      if (!ok) {
        rejections.add(id, kExisting, 0, /*unresolvable=*/false);
        continue;
      }
    }
    nodes[kept++] = id;
  }
  return kept;
}

void InterPodAffinity::describe(const ClusterState&, const fw::Rejection& r,
                                std::vector<std::string>* reasons) const {
  switch (r.code) {
    case kAffinity: reasons->push_back("node(s) didn't match pod affinity rules"); break;
    case kAntiAffinity: reasons->push_back("node(s) didn't match pod anti-affinity rules"); break;
    default: reasons->push_back("node(s) didn't satisfy existing pods anti-affinity rules");
  }
}

// ---- Score ----

void InterPodAffinity::add_score(const ClusterState& st, StrId key, NodeId node, int64_t v) {
  if (score_.add(key_index(score_, st, key), node, v)) any_score_ = true;
}

fw::Status InterPodAffinity::pre_score(const fw::CycleContext& cycle,
                                       std::span<const NodeId> nodes) {
  if (nodes.empty()) return fw::Status::skip();
  const ClusterState& st = cycle.state;
  const PodSpec& spec = cycle.spec;
  const bool has_constraints =
      !spec.pod_affinity.preferred.empty() || !spec.pod_anti_affinity.preferred.empty();
  if (args_.ignore_preferred_terms_of_existing_pods && !has_constraints) {
    return fw::Status::skip();
  }
  const std::vector<PodId>& with_terms = st.pods_with_scoring_affinity();
  if (!has_constraints && with_terms.empty()) return fw::Status::skip();
  set_incoming(cycle);
  score_.reset();
  any_score_ = false;
  pref_affinity_.clear();
  pref_anti_affinity_.clear();
  for (const WeightedPodAffinityTerm& t : spec.pod_affinity.preferred)
    compile(cycle, t.term, t.weight, score_, &pref_affinity_);
  for (const WeightedPodAffinityTerm& t : spec.pod_anti_affinity.preferred)
    compile(cycle, t.term, -static_cast<int64_t>(t.weight), score_, &pref_anti_affinity_);
  const int64_t hard = args_.hard_pod_affinity_weight;

  // The incoming pod's preferred terms against every pod (from the mirror), then the terms of
  // the pods that have scoring terms toward it (upstream's processExistingPod, split in two).
  if (has_constraints) {
    sync_mirror(st);
    for (NodeId n : st.nodes()) {
      if (st.node(n).labels.empty()) continue;
      const NodePods& np = mirror_[n];
      for (const MirroredPod& e : np.pods) {
        for (const Term& t : pref_affinity_)
          if (matches(t, np, e) && score_.add(t.k, n, t.weight)) any_score_ = true;
        for (const Term& t : pref_anti_affinity_)
          if (matches(t, np, e) && score_.add(t.k, n, t.weight)) any_score_ = true;
      }
    }
  }
  for (PodId q : with_terms) {
    const NodeId n = st.pod_node(q);
    if (st.node(n).labels.empty()) continue;
    const Pod& e = st.pod(q);
    const PodSpec& es = *e.spec;
    if (hard > 0) {
      for (const PodAffinityTerm& t : es.pod_affinity.required)
        if (existing_matches(t, e)) add_score(st, t.topology_key, n, hard);
    }
    for (const WeightedPodAffinityTerm& t : es.pod_affinity.preferred)
      if (existing_matches(t.term, e)) add_score(st, t.term.topology_key, n, t.weight);
    for (const WeightedPodAffinityTerm& t : es.pod_anti_affinity.preferred)
      if (existing_matches(t.term, e)) add_score(st, t.term.topology_key, n, -t.weight);
  }
  return any_score_ ? fw::Status::ok() : fw::Status::skip();
}

void InterPodAffinity::score(const fw::CycleContext&, std::span<const NodeId> nodes,
                             int64_t* scores) {
  const size_t keys = score_.size();
  for (size_t j = 0; j < nodes.size(); ++j) scores[j] = 0;
  for (size_t k = 0; k < keys; ++k) {
    const uint8_t* has = score_.domains(k).has.data();
    const uint32_t* of_node = score_.domains(k).of_node.data();
    const int64_t* counts = score_.counts(k);
    for (size_t j = 0; j < nodes.size(); ++j) {
      const NodeId id = nodes[j];
      if (has[id]) scores[j] += counts[of_node[id]];
    }
  }
}

void InterPodAffinity::normalize(const fw::CycleContext&, std::span<const NodeId> nodes,
                                 int64_t* scores) {
  if (score_.size() == 0) return;
  int64_t lo = std::numeric_limits<int64_t>::max();
  int64_t hi = std::numeric_limits<int64_t>::min();
  for (size_t j = 0; j < nodes.size(); ++j) {
    lo = std::min(lo, scores[j]);
    hi = std::max(hi, scores[j]);
  }
  const int64_t diff = hi - lo;
  for (size_t j = 0; j < nodes.size(); ++j) {
    // float64(MaxNodeScore) * (float64(s - min) / float64(max - min)), truncated.
    double f = 0;
    if (diff > 0) {
      f = static_cast<double>(fw::kMaxNodeScore) *
          (static_cast<double>(scores[j] - lo) / static_cast<double>(diff));
    }
    scores[j] = static_cast<int64_t>(f);
  }
}

InterPodAffinity::CountsForTesting InterPodAffinity::counts_for_testing(
    const ClusterState& st) const {
  auto dump = [&](const TopoCounts& c, std::map<std::string, int64_t>* out) {
    for (size_t k = 0; k < c.size(); ++k) {
      const Domains& d = c.domains(k);
      for (NodeId id : st.nodes()) {
        if (!d.has[id]) continue;
        const int64_t v = c.counts(k)[d.of_node[id]];
        if (v == 0) continue;
        (*out)[std::string(interned(c.key(k))) + "=" +
               std::string(interned(*st.node(id).labels.get(c.key(k))))] = v;
      }
    }
  };
  CountsForTesting out;
  dump(affinity_, &out.affinity);
  dump(anti_affinity_, &out.anti_affinity);
  dump(existing_anti_, &out.existing_anti_affinity);
  return out;
}

fw::QueueingHint InterPodAffinity::queueing_hint(const fw::QueueEvent& event, const ClusterState&,
                                                 const fw::PodClassKey&) const {
  // Conservative: every event that changes which pods count where (or which nodes exist, or
  // their labels) may help; a cleared nomination may too. Nothing else does.
  return event.kind == fw::QueueEvent::kOther ? fw::QueueingHint::kSkip : fw::QueueingHint::kQueue;
}

uint64_t InterPodAffinity::class_salt(const ClusterState&, PodId) const {
  return 0;
}

}  // namespace orrery::plugins
