#include "core/labels.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/node.h"

namespace orrery {
namespace {

Taint taint(const char* k, const char* v, TaintEffect e) {
  return {intern(k), intern(v), e};
}

Toleration tol(StrId key, TolerationOp op, StrId value, TaintEffect effect) {
  Toleration t;
  t.key = key;
  t.op = op;
  t.value = value;
  t.effect = effect;
  return t;
}

TEST(Toleration, MatchesUpstreamRules) {
  Taint t = taint("dedicated", "gpu", TaintEffect::kNoSchedule);
  Toleration eq =
      tol(intern("dedicated"), TolerationOp::kEqual, intern("gpu"), TaintEffect::kNoSchedule);
  EXPECT_TRUE(eq.tolerates(t));
  Toleration wrong_value =
      tol(intern("dedicated"), TolerationOp::kEqual, intern("cpu"), TaintEffect::kNoSchedule);
  EXPECT_FALSE(wrong_value.tolerates(t));
  Toleration exists = tol(intern("dedicated"), TolerationOp::kExists, kNoStr, TaintEffect::kNone);
  EXPECT_TRUE(exists.tolerates(t));
  Toleration other_effect =
      tol(intern("dedicated"), TolerationOp::kExists, kNoStr, TaintEffect::kNoExecute);
  EXPECT_FALSE(other_effect.tolerates(t));
  Toleration everything = tol(kNoStr, TolerationOp::kExists, kNoStr, TaintEffect::kNone);
  EXPECT_TRUE(everything.tolerates(t));
  EXPECT_TRUE(everything.tolerates(taint("x", "y", TaintEffect::kNoExecute)));
  // Equal with an empty value matches only a taint with an empty value.
  Toleration empty_eq = tol(intern("dedicated"), TolerationOp::kEqual, kNoStr, TaintEffect::kNone);
  EXPECT_FALSE(empty_eq.tolerates(t));
  EXPECT_TRUE(empty_eq.tolerates(taint("dedicated", "", TaintEffect::kNoSchedule)));
}

LabelSet labels(std::initializer_list<std::pair<const char*, const char*>> kv) {
  LabelSet s;
  for (auto& [k, v] : kv) s.set(k, v);
  return s;
}

NodeSelectorRequirement req(const char* key, SelectorOp op, std::vector<const char*> values,
                            int64_t number = 0) {
  NodeSelectorRequirement r;
  r.key = intern(key);
  r.op = op;
  for (auto* v : values) r.values.push_back(intern(v));
  r.number = number;
  return r;
}

TEST(NodeSelector, Operators) {
  LabelSet l = labels({{"zone", "a"}, {"cores", "16"}, {"name", "x"}});
  EXPECT_TRUE(matches(req("zone", SelectorOp::kIn, {"a", "b"}), l));
  EXPECT_FALSE(matches(req("zone", SelectorOp::kIn, {"b"}), l));
  EXPECT_TRUE(matches(req("zone", SelectorOp::kNotIn, {"b"}), l));
  EXPECT_TRUE(matches(req("missing", SelectorOp::kNotIn, {"b"}), l)) << "NotIn matches absent keys";
  EXPECT_TRUE(matches(req("zone", SelectorOp::kExists, {}), l));
  EXPECT_FALSE(matches(req("zone", SelectorOp::kDoesNotExist, {}), l));
  EXPECT_TRUE(matches(req("missing", SelectorOp::kDoesNotExist, {}), l));
  EXPECT_TRUE(matches(req("cores", SelectorOp::kGt, {"8"}, 8), l));
  EXPECT_FALSE(matches(req("cores", SelectorOp::kGt, {"16"}, 16), l));
  EXPECT_TRUE(matches(req("cores", SelectorOp::kLt, {"17"}, 17), l));
  EXPECT_FALSE(matches(req("name", SelectorOp::kGt, {"1"}, 1), l)) << "non-integer never matches";
  EXPECT_FALSE(matches(req("missing", SelectorOp::kLt, {"1"}, 1), l));
}

TEST(NodeSelector, TermsOrRequirementsAnd) {
  LabelSet l = labels({{"zone", "a"}, {"disk", "ssd"}});
  NodeSelectorTerm both;
  both.match_expressions = {req("zone", SelectorOp::kIn, {"a"}),
                            req("disk", SelectorOp::kIn, {"hdd"})};
  NodeSelectorTerm zone;
  zone.match_expressions = {req("zone", SelectorOp::kIn, {"a"})};
  EXPECT_FALSE(matches(both, l, intern("n1")));
  EXPECT_TRUE(matches_any({both, zone}, l, intern("n1")));
  EXPECT_FALSE(matches(NodeSelectorTerm{}, l, intern("n1"))) << "an empty term matches nothing";
  NodeSelectorTerm by_name;
  by_name.match_fields = {req("metadata.name", SelectorOp::kIn, {"n1"})};
  EXPECT_TRUE(matches(by_name, l, intern("n1")));
  EXPECT_FALSE(matches(by_name, l, intern("n2")));
}

TEST(LabelSelector, EmptyMatchesEverything) {
  LabelSelector s;
  EXPECT_TRUE(s.matches(labels({{"a", "b"}})));
  s.match_labels.set("app", "web");
  EXPECT_FALSE(s.matches(labels({{"a", "b"}})));
  EXPECT_TRUE(s.matches(labels({{"app", "web"}, {"a", "b"}})));
}

TEST(NodeFields, ConstraintIds) {
  EXPECT_EQ(parse_constraint_ids("0,3,7", "x"), (1u << 0) | (1u << 3) | (1u << 7));
  EXPECT_EQ(parse_constraint_ids("1_2", "x"), (1u << 1) | (1u << 2));
  EXPECT_EQ(parse_constraint_ids("", "x"), 0u);
  EXPECT_THROW(parse_constraint_ids("64", "x"), InputError);
  EXPECT_THROW(parse_constraint_ids("a", "x"), InputError);
}

}  // namespace
}  // namespace orrery
