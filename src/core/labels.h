// Labels, taints, tolerations and node selectors with interned strings, so matching is integer
// comparison. Semantics follow k8s.io/api/core/v1 and component-helpers/scheduling/corev1.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/intern.h"

namespace orrery {

// A label map kept sorted by key id.
class LabelSet {
 public:
  LabelSet() = default;
  void set(std::string_view key, std::string_view value) { set_ids(intern(key), intern(value)); }
  void set_ids(StrId key, StrId value);
  // The value id for `key`, or nullopt when the key is absent (a present empty value is kNoStr).
  std::optional<StrId> get(StrId key) const {
    auto it = std::lower_bound(items_.begin(), items_.end(), key,
                               [](const auto& kv, StrId k) { return kv.first < k; });
    if (it == items_.end() || it->first != key) return std::nullopt;
    return it->second;
  }
  std::optional<std::string_view> get(std::string_view key) const {
    StrId k = find_interned(key);
    if (k == kNoStr) return std::nullopt;
    auto v = get(k);
    if (!v) return std::nullopt;
    return interned(*v);
  }
  bool has(StrId key) const { return get(key).has_value(); }
  const std::vector<std::pair<StrId, StrId>>& items() const { return items_; }
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  bool operator==(const LabelSet&) const = default;

 private:
  std::vector<std::pair<StrId, StrId>> items_;
};

enum class TaintEffect : uint8_t { kNone, kNoSchedule, kPreferNoSchedule, kNoExecute };
std::string_view to_string(TaintEffect e);
std::optional<TaintEffect> parse_taint_effect(std::string_view s);  // "" → kNone

struct Taint {
  StrId key = kNoStr;
  StrId value = kNoStr;
  TaintEffect effect = TaintEffect::kNoSchedule;
  bool operator==(const Taint&) const = default;
};

enum class TolerationOp : uint8_t { kEqual, kExists };

struct Toleration {
  StrId key = kNoStr;  // empty with kExists: tolerates every taint
  TolerationOp op = TolerationOp::kEqual;
  StrId value = kNoStr;
  TaintEffect effect = TaintEffect::kNone;  // kNone: every effect
  std::optional<int64_t> toleration_seconds;

  // v1.Toleration.ToleratesTaint.
  bool tolerates(const Taint& t) const {
    if (effect != TaintEffect::kNone && effect != t.effect) return false;
    if (key != kNoStr && key != t.key) return false;
    return op == TolerationOp::kExists || value == t.value;
  }
};

bool tolerates(const std::vector<Toleration>& tolerations, const Taint& taint);

enum class SelectorOp : uint8_t { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };
std::optional<SelectorOp> parse_selector_op(std::string_view s);
std::string_view to_string(SelectorOp op);

struct NodeSelectorRequirement {
  StrId key = kNoStr;
  SelectorOp op = SelectorOp::kIn;
  std::vector<StrId> values;
  int64_t number = 0;  // parsed values[0] for Gt/Lt
  // Why upstream's parser rejects the requirement (labels.NewRequirement: key not a qualified
  // name, a value not a valid label value, a Gt/Lt value not an integer; the field selector: not
  // exactly one value), as field errors relative to it ("values[0][key]: Invalid value: ...").
  // Empty when valid. The API server does not check these for node affinity, so a real pod can
  // carry them.
  std::vector<std::string> errors;
};

// Terms are ORed; requirements inside a term are ANDed. match_fields supports metadata.name only.
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;
  // A requirement has errors: the term never matches (upstream's nodeSelectorTerm.match with
  // parse errors). Set by the loader.
  bool invalid = false;
  // The errors of the term's requirements, each prefixed with its path inside the term
  // ("matchExpressions[0].values[0][key]: Invalid value: ...").
  std::vector<std::string> errors() const;
};

struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;
};

struct NodeAffinity {
  std::optional<std::vector<NodeSelectorTerm>> required;  // nodeSelectorTerms
  std::vector<PreferredSchedulingTerm> preferred;
};

// Label selector (metav1.LabelSelector): matchLabels ANDed with matchExpressions (In, NotIn,
// Exists, DoesNotExist). An empty selector matches everything.
struct LabelSelector {
  LabelSet match_labels;
  std::vector<NodeSelectorRequirement> match_expressions;
  bool matches(const LabelSet& labels) const;
  bool empty() const { return match_labels.empty() && match_expressions.empty(); }
};

// apimachinery validation.IsValidLabelValue: the error messages ("" when valid).
std::vector<std::string> label_value_errors(std::string_view value);
// apimachinery validation.IsQualifiedName (label keys): the error messages.
std::vector<std::string> qualified_name_errors(std::string_view name);
// strconv.ParseInt(s, 10, 64): an optional sign and decimal digits, within int64.
bool parse_go_int64(std::string_view s, int64_t* out);

// One requirement against a label set (Gt/Lt compare integers; a non-integer label never matches).
bool matches(const NodeSelectorRequirement& r, const LabelSet& labels);
// A term against a node's labels and name. An empty term, or an invalid one, matches nothing
// (upstream).
bool matches(const NodeSelectorTerm& term, const LabelSet& labels, StrId node_name);
bool matches_any(const std::vector<NodeSelectorTerm>& terms, const LabelSet& labels,
                 StrId node_name);

}  // namespace orrery
