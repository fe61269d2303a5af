// Small helpers for reading YAML/JSON with precise error locations: every error is
// "FILE:LINE: field.path: what was expected". Shared by the object loader, the scheduler
// configuration and scenario parsers. A Ctx reads either a yaml-cpp node (files: YAML or JSON
// text) or a parsed nlohmann JSON value (the API server's objects, Ctx::of_json), through the same
// accessors, so one reader serves snapshots and watch events.
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace orrery::yaml {

// A position in a document: the file, the node (for its line) and the field path.
// JSON-backed (`json_backed`): `json` is the value (null when absent) and `node` is unused. A JSON
// value reads as yaml-cpp reads the same value's one-line JSON text (obj.dump()): scalars are the
// strings, or the JSON text of numbers and booleans; every present value is on line 1 (plus
// line_offset); objects' keys come in nlohmann's (sorted) order, which is dump()'s.
// A missing child is a null node that remembers its parent's line, so errors about absent fields
// still point near the right place. Never assign YAML::Node handles (yaml-cpp's operator= writes
// through to the referenced node); build a new Ctx instead.
struct Ctx {
  std::string file;
  YAML::Node node;
  std::string path;
  int line_hint = 0;  // line of the nearest present ancestor (1-based), for missing nodes
  // Lines before the parsed text in its file, when `node` was parsed from a slice of the file
  // (one item of a big JSON list): added to the node's own lines.
  int line_offset = 0;
  const nlohmann::json* json = nullptr;
  bool json_backed = false;

  // A JSON-backed Ctx over `value`, which must outlive it and its children.
  static Ctx of_json(const std::string& file, const nlohmann::json& value,
                     const std::string& path = "");

  Ctx child(const std::string& key) const;                // path.key, node[key]
  Ctx item(size_t i) const;                               // path[i], node[i]
  bool has(const std::string& key) const;                 // key present and not null
  std::string where() const;                              // "FILE:LINE: path"
  [[noreturn]] void fail(const std::string& what) const;  // throws InputError(where(): what)

  bool defined() const;  // present and not null
  int line() const;
  void expect_map() const;
  void expect_seq() const;
  bool is_map() const;                        // a mapping (JSON object)
  bool is_seq() const;                        // a sequence (JSON array)
  std::string str() const;                    // a scalar
  int64_t i64() const;                        // an integer scalar
  double f64() const;                         // a number
  bool boolean() const;                       // true/false
  std::vector<std::string> str_list() const;  // a sequence of scalars
  size_t size() const;                        // entries of a mapping or sequence, else 0
  // Keys of a mapping in document order.
  std::vector<std::string> keys() const;

  // Optional fields: the value if present, else `def`.
  std::string str_or(const std::string& key, const std::string& def) const;
  int64_t i64_or(const std::string& key, int64_t def) const;
  double f64_or(const std::string& key, double def) const;
  bool bool_or(const std::string& key, bool def) const;
};

// Duplicate keys are errors: yaml-cpp keeps both pairs and lookups find the first, so the second
// would be silently ignored. Checks every mapping under `c`; the error names the second key's
// line and the first's ("FILE:12: a.b: duplicate key \"b\" (first given at line 9)").
void check_unique_keys(const Ctx& c);

// `c` is a mapping whose every key is one of `keys`; an unknown key is an error naming it, the
// closest known key and the list ("unknown field \"cuont\" (did you mean \"count\"?); expected
// one of: name, count").
void check_keys(const Ctx& c, const std::vector<std::string>& keys);
void check_keys(const Ctx& c, std::initializer_list<const char*> keys);

// Parses all documents of a YAML/JSON text; throws InputError "SOURCE:LINE: ..." on syntax errors.
std::vector<YAML::Node> parse_documents(const std::string& text, const std::string& source);
// Exactly one document.
YAML::Node parse_document(const std::string& text, const std::string& source);

// Parses an RFC 3339 timestamp ("2024-05-01T12:00:00Z") into unix microseconds.
std::optional<int64_t> parse_rfc3339(const std::string& s);

// Appends `reader(item)` for every item of the sequence `c` to `*out`: nothing when the field is
// absent or null, an error naming the field when it is not a sequence.
template <typename T, typename Reader>
void read_seq(const Ctx& c, std::vector<T>* out, Reader&& reader) {
  if (!c.defined()) return;
  c.expect_seq();
  for (size_t i = 0; i < c.size(); ++i) out->push_back(reader(c.item(i)));
}

}  // namespace orrery::yaml
