// A small JSON scanner that finds the elements of a top-level "items" array without building a
// tree, so that big `kubectl get ... -o json` lists can be loaded one item at a time (memory
// O(largest item)) instead of as one yaml-cpp document (~60x the file size).
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace orrery::json {

// A byte range [begin, end) of the text and the 1-based line on which it starts.
struct Span {
  size_t begin = 0;
  size_t end = 0;
  int line = 1;
};

// The top-level object of a JSON list: its "kind" (when it is a string without escapes) and the
// elements of its "items" array (when it is an array).
struct TopLevelList {
  std::optional<std::string> kind;
  std::optional<std::vector<Span>> items;
};

// A JSON syntax error at a 1-based line.
class SyntaxError : public std::runtime_error {
 public:
  SyntaxError(int line, const std::string& what) : std::runtime_error(what), line(line) {}
  int line;
};

// When the text's first non-blank character is '{': checks the object against the JSON grammar
// (RFC 8259; throws SyntaxError) and returns its "kind" and "items". Returns nullopt when the text
// does not start with '{', when the object repeats "kind" or "items", or when non-blank text
// follows it (e.g. a second YAML document).
std::optional<TopLevelList> scan_top_level_list(std::string_view text);

// A member of a JSON object: its key (empty and `plain` false when the key has escapes) and the
// byte range of its value.
struct Member {
  std::string key;
  bool plain = true;
  Span value;
};

// When the text (blanks around it allowed) is a JSON object: checks it against the grammar (throws
// SyntaxError, also for text after it) and returns its members in order, spans relative to
// `text`. nullopt when the text does not start with '{'.
std::optional<std::vector<Member>> object_members(std::string_view text);
// The same for a JSON array: the elements' spans. nullopt when the text does not start with '['.
std::optional<std::vector<Span>> array_elements(std::string_view text);

// Whether the text starts as a JSON object does: '{', then a double-quoted key or '}'. (A YAML flow
// mapping, "{kind: Node}", also starts with '{'.)
bool starts_like_json_object(std::string_view text);

}  // namespace orrery::json
