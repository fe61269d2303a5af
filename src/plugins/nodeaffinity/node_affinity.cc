#include "plugins/nodeaffinity/node_affinity.h"

#include <algorithm>
#include <set>

#include "io/k8s_objects.h"
#include "plugins/helper/args.h"
#include "plugins/helper/hints.h"
#include "plugins/helper/names.h"
#include "plugins/helper/node_affinity.h"
#include "plugins/helper/normalize.h"

namespace orrery::plugins {

namespace {

bool empty_term(const NodeSelectorTerm& t) {
  return t.match_expressions.empty() && t.match_fields.empty();
}

}  // namespace

NodeAffinityArgs NodeAffinityArgs::parse(const yaml::Ctx& args) {
  NodeAffinityArgs a;
  expect_arg_keys(args, {"addedAffinity"});
  if (args.defined() && args.has("addedAffinity")) {
    a.added = parse_node_affinity(args.child("addedAffinity"));
    // ValidateNodeAffinityArgs: the terms must parse (nodeaffinity.NewNodeSelector /
    // NewPreferredSchedulingTerms).
    if (a.added.required) {
      for (size_t i = 0; i < a.added.required->size(); ++i) {
        const auto errs = (*a.added.required)[i].errors();
        if (!errs.empty()) {
          args.child("addedAffinity")
              .fail("requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[" +
                    std::to_string(i) + "]." + errs.front());
        }
      }
    }
    for (size_t i = 0; i < a.added.preferred.size(); ++i) {
      const auto errs = a.added.preferred[i].preference.errors();
      if (!errs.empty()) {
        args.child("addedAffinity")
            .fail("preferredDuringSchedulingIgnoredDuringExecution[" + std::to_string(i) + "]." +
                  errs.front());
      }
    }
  }
  return a;
}

NodeAffinityPlugin::NodeAffinityPlugin(NodeAffinityArgs args) : args_(std::move(args)) {}

std::string_view NodeAffinityPlugin::name() const {
  return names::kNodeAffinity;
}

fw::Status NodeAffinityPlugin::pre_filter(const fw::CycleContext& cycle,
                                          std::optional<std::vector<NodeId>>* only) {
  const auto& required = cycle.spec.node_affinity.required;
  if (!required && !args_.added.required && cycle.spec.node_selector.empty()) {
    return fw::Status::skip();
  }
  selector_.clear();
  for (const auto& [k, v] : cycle.spec.node_selector.items())
    selector_.emplace_back(&columns_.get(cycle.state, k), v);
  if (!required || required->empty()) return fw::Status::ok();
  // Terms that all pin node names (metadata.name In) narrow the candidates.
  static const StrId kMetadataName = intern("metadata.name");
  std::set<StrId> names;
  for (const NodeSelectorTerm& term : *required) {
    std::optional<std::set<StrId>> term_names;
    for (const NodeSelectorRequirement& r : term.match_fields) {
      if (r.key != kMetadataName || r.op != SelectorOp::kIn) continue;
      std::set<StrId> s(r.values.begin(), r.values.end());
      if (!term_names) {
        term_names = std::move(s);
      } else {
        std::set<StrId> both;
        std::set_intersection(term_names->begin(), term_names->end(), s.begin(), s.end(),
                              std::inserter(both, both.begin()));
        term_names = std::move(both);
      }
    }
    if (!term_names) return fw::Status::ok();  // this term allows every node
    names.insert(term_names->begin(), term_names->end());
  }
  if (names.empty()) {
    return fw::Status::unschedulable(name(), "pod affinity terms conflict", /*unresolvable=*/true);
  }
  only->emplace();
  for (StrId nm : names) {
    if (auto id = cycle.state.find_node(interned(nm))) (*only)->push_back(*id);
  }
  std::sort((*only)->begin(), (*only)->end());
  return fw::Status::ok();
}

size_t NodeAffinityPlugin::filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                                  fw::Rejections& rejections) {
  const auto& added = args_.added.required;
  const auto& required = cycle.spec.node_affinity.required;
  const std::vector<StrId>& names =
      node_names_.get(cycle.state, [](const Node& node) { return intern(node.name); });
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    const NodeId id = nodes[i];
    const Node& node = cycle.state.node(id);
    const StrId node_name = names[id];
    bool selected = true;
    for (const auto& [column, value] : selector_)
      selected = selected && column->has[id] && column->value[id] == value;
    if (added && !matches_any(*added, node.labels, node_name)) {
      rejections.add(id, kEnforced, 0, /*unresolvable=*/true);
    } else if (!selected || (required && !matches_any(*required, node.labels, node_name))) {
      rejections.add(id, kPod, 0, /*unresolvable=*/true);
    } else {
      nodes[kept++] = id;
    }
  }
  return kept;
}

void NodeAffinityPlugin::describe(const ClusterState&, const fw::Rejection& r,
                                  std::vector<std::string>* reasons) const {
  reasons->push_back(r.code == kEnforced ? "node(s) didn't match scheduler-enforced node affinity"
                                         : "node(s) didn't match Pod's node affinity/selector");
}

fw::Status NodeAffinityPlugin::pre_score(const fw::CycleContext& cycle, std::span<const NodeId>) {
  preferred_.clear();
  // getPodPreferredNodeAffinity → nodeaffinity.NewPreferredSchedulingTerms: a preferred term that
  // does not parse fails PreScore (an error, not a rejection) with the flattened field errors.
  const auto& pod_preferred = cycle.spec.node_affinity.preferred;
  std::vector<std::string> errors;
  for (size_t i = 0; i < pod_preferred.size(); ++i) {
    if (!pod_preferred[i].preference.invalid) continue;
    for (const std::string& e : pod_preferred[i].preference.errors()) {
      std::string msg(1, '[');  // (a string literal + std::string here trips GCC 12's -Wrestrict)
      msg += std::to_string(i);
      msg += "].";
      msg += e;
      if (std::find(errors.begin(), errors.end(), msg) == errors.end()) errors.push_back(msg);
    }
  }
  if (!errors.empty()) {
    std::string msg;
    for (const std::string& e : errors) msg += (msg.empty() ? "" : ", ") + e;
    if (errors.size() > 1) msg = std::string(1, '[') + msg + ']';
    return fw::Status::error(name(), msg);
  }
  const std::vector<PreferredSchedulingTerm>* lists[] = {&args_.added.preferred,
                                                         &cycle.spec.node_affinity.preferred};
  for (const auto* list : lists) {
    for (const PreferredSchedulingTerm& t : *list) {
      if (t.weight == 0 || empty_term(t.preference)) continue;
      Term term{&t, {}};
      if (t.preference.match_fields.empty()) {
        for (const NodeSelectorRequirement& r : t.preference.match_expressions)
          term.requirements.push_back({&r, &columns_.get(cycle.state, r.key)});
      }
      preferred_.push_back(std::move(term));
    }
  }
  if (cycle.spec.node_affinity.preferred.empty() && args_.added.preferred.empty()) {
    return fw::Status::skip();
  }
  return fw::Status::ok();
}

namespace {

// A label requirement against a node via its column (Gt/Lt parse the value: the generic path).
bool column_matches(const NodeSelectorRequirement& r, const LabelColumns::Column& c, NodeId id,
                    const LabelSet& labels) {
  auto in_values = [&] {
    return std::find(r.values.begin(), r.values.end(), c.value[id]) != r.values.end();
  };
  switch (r.op) {
    case SelectorOp::kIn: return c.has[id] && in_values();
    case SelectorOp::kNotIn: return !c.has[id] || !in_values();
    case SelectorOp::kExists: return c.has[id];
    case SelectorOp::kDoesNotExist: return !c.has[id];
    default: return matches(r, labels);
  }
}

}  // namespace

void NodeAffinityPlugin::score(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
                               int64_t* scores) {
  const std::vector<StrId>& names =
      node_names_.get(cycle.state, [](const Node& node) { return intern(node.name); });
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeId id = nodes[i];
    const Node& node = cycle.state.node(id);
    int64_t sum = 0;
    for (const Term& t : preferred_) {
      bool ok = true;
      if (t.requirements.empty()) {
        ok = matches(t.term->preference, node.labels, names[id]);
      } else {
        for (const Requirement& r : t.requirements)
          ok = ok && column_matches(*r.r, *r.column, id, node.labels);
      }
      if (ok) sum += t.term->weight;
    }
    scores[i] = sum;
  }
}

void NodeAffinityPlugin::normalize(const fw::CycleContext&, std::span<const NodeId> nodes,
                                   int64_t* scores) {
  default_normalize(fw::kMaxNodeScore, /*reverse=*/false, scores, nodes.size());
}

// Its verdict depends on the node alone.
fw::QueueingHint NodeAffinityPlugin::queueing_hint(const fw::QueueEvent& event, const ClusterState&,
                                                   const fw::PodClassKey&) const {
  return node_only_hint(event);
}

uint64_t NodeAffinityPlugin::class_salt(const ClusterState&, PodId) const {
  return 0;
}

}  // namespace orrery::plugins
