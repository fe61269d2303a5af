#include "core/labels.h"

#include <charconv>

namespace orrery {

void LabelSet::set_ids(StrId key, StrId value) {
  auto it = std::lower_bound(items_.begin(), items_.end(), key,
                             [](const auto& kv, StrId k) { return kv.first < k; });
  if (it != items_.end() && it->first == key) {
    it->second = value;
  } else {
    items_.insert(it, {key, value});
  }
}

std::string_view to_string(TaintEffect e) {
  switch (e) {
    case TaintEffect::kNone: return "";
    case TaintEffect::kNoSchedule: return "NoSchedule";
    case TaintEffect::kPreferNoSchedule: return "PreferNoSchedule";
    case TaintEffect::kNoExecute: return "NoExecute";
  }
  return "";
}

std::optional<TaintEffect> parse_taint_effect(std::string_view s) {
  if (s.empty()) return TaintEffect::kNone;
  if (s == "NoSchedule") return TaintEffect::kNoSchedule;
  if (s == "PreferNoSchedule") return TaintEffect::kPreferNoSchedule;
  if (s == "NoExecute") return TaintEffect::kNoExecute;
  return std::nullopt;
}

bool tolerates(const std::vector<Toleration>& tolerations, const Taint& taint) {
  for (const Toleration& t : tolerations)
    if (t.tolerates(taint)) return true;
  return false;
}

std::optional<SelectorOp> parse_selector_op(std::string_view s) {
  if (s == "In") return SelectorOp::kIn;
  if (s == "NotIn") return SelectorOp::kNotIn;
  if (s == "Exists") return SelectorOp::kExists;
  if (s == "DoesNotExist") return SelectorOp::kDoesNotExist;
  if (s == "Gt") return SelectorOp::kGt;
  if (s == "Lt") return SelectorOp::kLt;
  return std::nullopt;
}

std::string_view to_string(SelectorOp op) {
  switch (op) {
    case SelectorOp::kIn: return "In";
    case SelectorOp::kNotIn: return "NotIn";
    case SelectorOp::kExists: return "Exists";
    case SelectorOp::kDoesNotExist: return "DoesNotExist";
    case SelectorOp::kGt: return "Gt";
    case SelectorOp::kLt: return "Lt";
  }
  return "";
}

namespace {

bool contains(const std::vector<StrId>& values, StrId v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

bool parse_int(std::string_view s, int64_t* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

// Shared by label and field requirements: `value` is the label/field value if present.
bool matches_value(const NodeSelectorRequirement& r, std::optional<StrId> value) {
  switch (r.op) {
    case SelectorOp::kIn: return value && contains(r.values, *value);
    case SelectorOp::kNotIn: return !value || !contains(r.values, *value);
    case SelectorOp::kExists: return value.has_value();
    case SelectorOp::kDoesNotExist: return !value.has_value();
    case SelectorOp::kGt:
    case SelectorOp::kLt: {
      if (!value) return false;
      int64_t v;
      if (!parse_int(interned(*value), &v)) return false;
      return r.op == SelectorOp::kGt ? v > r.number : v < r.number;
    }
  }
  return false;
}

}  // namespace

bool matches(const NodeSelectorRequirement& r, const LabelSet& labels) {
  return matches_value(r, labels.get(r.key));
}

bool matches(const NodeSelectorTerm& term, const LabelSet& labels, StrId node_name) {
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  for (const auto& r : term.match_expressions)
    if (!matches(r, labels)) return false;
  static const StrId kMetadataName = intern("metadata.name");
  for (const auto& r : term.match_fields) {
    std::optional<StrId> v;
    if (r.key == kMetadataName) v = node_name;
    if (!matches_value(r, v)) return false;
  }
  return true;
}

bool matches_any(const std::vector<NodeSelectorTerm>& terms, const LabelSet& labels,
                 StrId node_name) {
  for (const auto& t : terms)
    if (matches(t, labels, node_name)) return true;
  return false;
}

bool LabelSelector::matches(const LabelSet& labels) const {
  for (const auto& [k, v] : match_labels.items()) {
    auto got = labels.get(k);
    if (!got || *got != v) return false;
  }
  for (const auto& r : match_expressions)
    if (!orrery::matches(r, labels)) return false;
  return true;
}

}  // namespace orrery
