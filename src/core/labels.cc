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
  if (term.invalid) return false;
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

namespace {

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool qualified_name_part(std::string_view s) {
  if (s.empty() || !alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s)
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

// RFC 1123 subdomain: [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*, <= 253.
bool dns1123_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (true) {
    const size_t dot = s.find('.', start);
    const std::string_view label = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (label.empty()) return false;
    auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (!lower_alnum(label.front()) || !lower_alnum(label.back())) return false;
    for (char c : label)
      if (!lower_alnum(c) && c != '-') return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

}  // namespace

std::vector<std::string> label_value_errors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.emplace_back("must be no more than 63 characters");
  if (!value.empty() && !qualified_name_part(value)) {
    errs.emplace_back(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
        "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
        "'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  }
  return errs;
}

std::vector<std::string> qualified_name_errors(std::string_view name) {
  std::vector<std::string> errs;
  std::string_view n = name;
  const size_t slash = name.find('/');
  if (slash != std::string_view::npos) {
    const std::string_view prefix = name.substr(0, slash);
    n = name.substr(slash + 1);
    if (prefix.empty()) {
      errs.emplace_back("prefix part must be non-empty");
    } else if (!dns1123_subdomain(prefix)) {
      errs.emplace_back(
          "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
          "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
          "'example.com', regex used for validation is "
          "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    }
  }
  if (n.empty()) {
    errs.emplace_back("name part must be non-empty");
  } else {
    if (n.size() > 63) errs.emplace_back("name part must be no more than 63 characters");
    if (!qualified_name_part(n)) {
      errs.emplace_back(
          "name part must consist of alphanumeric characters, '-', '_' or '.', and must start "
          "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
          "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
    }
  }
  return errs;
}

bool parse_go_int64(std::string_view s, int64_t* out) {
  std::string_view digits = s;
  bool negative = false;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
    negative = digits.front() == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) return false;
  uint64_t v = 0;
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (limit - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  return true;
}

std::vector<std::string> NodeSelectorTerm::errors() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < match_expressions.size(); ++i)
    for (const std::string& e : match_expressions[i].errors)
      out.push_back("matchExpressions[" + std::to_string(i) + "]." + e);
  for (size_t i = 0; i < match_fields.size(); ++i)
    for (const std::string& e : match_fields[i].errors)
      out.push_back("matchFields[" + std::to_string(i) + "]." + e);
  return out;
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
