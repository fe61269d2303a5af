#include "io/json_items.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace orrery::json {
namespace {

std::string slice(std::string_view text, const Span& s) {
  return std::string(text.substr(s.begin, s.end - s.begin));
}

TEST(JsonItems, FindsKindAndItemsWithLines) {
  const std::string text =
      "{\"apiVersion\": \"v1\",\n \"items\": [\n  {\"a\": \"x]}\\\"\"},\n  [1, {\"b\": [2]}],\n"
      "  -1.5e+3, true, null, \"s\"\n ],\n \"kind\": \"List\", \"metadata\": {}}\n";
  auto list = scan_top_level_list(text);
  ASSERT_TRUE(list.has_value());
  EXPECT_EQ(list->kind, "List");
  ASSERT_TRUE(list->items.has_value());
  const auto& items = *list->items;
  ASSERT_EQ(items.size(), 6u);
  EXPECT_EQ(slice(text, items[0]), "{\"a\": \"x]}\\\"\"}");
  EXPECT_EQ(items[0].line, 3);
  EXPECT_EQ(slice(text, items[1]), "[1, {\"b\": [2]}]");
  EXPECT_EQ(items[1].line, 4);
  EXPECT_EQ(slice(text, items[2]), "-1.5e+3");
  EXPECT_EQ(items[2].line, 5);
  EXPECT_EQ(slice(text, items[5]), "\"s\"");
}

TEST(JsonItems, ShapesThatAreNotListsGiveNothing) {
  EXPECT_FALSE(scan_top_level_list("kind: List\nitems: []\n").has_value());
  EXPECT_FALSE(scan_top_level_list("[{\"kind\": \"Node\"}]").has_value());
  EXPECT_FALSE(scan_top_level_list("{\"kind\": \"List\"}\n---\n{}\n").has_value());
  EXPECT_FALSE(scan_top_level_list("{\"items\": [], \"items\": []}").has_value());

  auto one = scan_top_level_list("  {\"kind\": \"Pod\", \"spec\": {\"items\": [1]}}  \n");
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->kind, "Pod");
  EXPECT_FALSE(one->items.has_value()) << "only the top level's items count";

  auto escaped = scan_top_level_list("{\"kind\": \"Li\\u0073t\", \"items\": null}");
  ASSERT_TRUE(escaped.has_value());
  EXPECT_FALSE(escaped->kind.has_value()) << "a kind with escapes is left to the YAML path";
  EXPECT_FALSE(escaped->items.has_value());
}

int error_line(const std::string& text, std::string* what = nullptr) {
  try {
    scan_top_level_list(text);
  } catch (const SyntaxError& e) {
    if (what) *what = e.what();
    return e.line;
  }
  return 0;
}

TEST(JsonItems, SyntaxErrorsNameTheirLine) {
  std::string what;
  EXPECT_EQ(error_line("{\"items\": [\n{\"a\": \"unterminated}\n]}", &what), 2);
  EXPECT_EQ(what, "unterminated string");
  EXPECT_EQ(error_line("{\"items\": [\n{\"a\": 1}\n", &what), 3);
  EXPECT_NE(what.find("end of input"), std::string::npos) << what;
  EXPECT_EQ(error_line("{\"items\": [\n1,,2]}"), 2) << "stray comma";
  EXPECT_EQ(error_line("{\"items\": [1, 2,\n]}"), 2) << "trailing comma";
  EXPECT_EQ(error_line("{\"a\": 1,\n}"), 2);
  EXPECT_EQ(error_line("{\"a\": 1}}"), 0) << "trailing text is not JSON's business: no list";
  EXPECT_EQ(error_line("{\"a\":\n\n tru}"), 3);
  EXPECT_EQ(error_line("{\"a\": 01}"), 1);
  EXPECT_EQ(error_line("{\"a\": 1.}"), 1);
  EXPECT_EQ(error_line("{\"a\": \"\\x\"}"), 1);
  EXPECT_EQ(error_line("{\"a\": \"\\u12g4\"}"), 1);
  EXPECT_EQ(error_line("{a: 1}"), 1) << "YAML flow style is not JSON";
  EXPECT_EQ(error_line("{\"a\" 1}"), 1);
  EXPECT_EQ(error_line("{\"a\": \"tab\there\"}"), 1);
  EXPECT_EQ(error_line(std::string(2000, '[')), 0) << "not an object: not scanned";
  EXPECT_EQ(error_line("{\"a\": " + std::string(2000, '[') + std::string(2000, ']') + "}", &what),
            1);
  EXPECT_NE(what.find("nesting"), std::string::npos) << what;
}

}  // namespace
}  // namespace orrery::json

TEST(JsonItems, ObjectMembersAndArrayElementsGiveSpansThatParseToTheValues) {
  const std::string text =
      " {\"Pod\": {\"metadata\": {\"name\": \"a\"}}, \"nodes\" : null,\n\"NodeNames\": [\"n1\", "
      "\"n\\\"2\", {\"x\": [1, 2.5e3]}], \"k\\u0041\": true} ";
  auto members = orrery::json::object_members(text);
  ASSERT_TRUE(members);
  ASSERT_EQ(members->size(), 4u);
  const nlohmann::json whole = nlohmann::json::parse(text);
  const char* keys[] = {"Pod", "nodes", "NodeNames"};
  for (int i = 0; i < 3; ++i) {
    const auto& m = (*members)[i];
    EXPECT_EQ(m.key, keys[i]);
    EXPECT_TRUE(m.plain);
    EXPECT_EQ(nlohmann::json::parse(text.substr(m.value.begin, m.value.end - m.value.begin)),
              whole[keys[i]]);
  }
  EXPECT_FALSE((*members)[3].plain) << "a key with escapes is not matched by name";
  EXPECT_EQ((*members)[2].value.line, 2);
  const auto& names = (*members)[2].value;
  auto elements = orrery::json::array_elements(
      std::string_view(text).substr(names.begin, names.end - names.begin));
  ASSERT_TRUE(elements);
  ASSERT_EQ(elements->size(), 3u);
  const std::string arr = text.substr(names.begin, names.end - names.begin);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(nlohmann::json::parse(
                  arr.substr((*elements)[i].begin, (*elements)[i].end - (*elements)[i].begin)),
              whole["NodeNames"][i]);
  EXPECT_FALSE(orrery::json::object_members("[1]"));
  EXPECT_FALSE(orrery::json::array_elements("{}"));
  EXPECT_TRUE(orrery::json::object_members("{}")->empty());
  EXPECT_TRUE(orrery::json::array_elements(" [ ] ")->empty());
  EXPECT_THROW(orrery::json::object_members("{\"a\": 1} x"), orrery::json::SyntaxError);
  EXPECT_THROW(orrery::json::object_members("{\"a\": [1,}"), orrery::json::SyntaxError);
  EXPECT_THROW(orrery::json::array_elements("[1 2]"), orrery::json::SyntaxError);
}
