#include "io/yaml_util.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ctime>
#include <sstream>

#include <yaml-cpp/eventhandler.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "util/suggest.h"

namespace orrery::yaml {

namespace {
// node[key] on a const node never inserts; a missing key gives an invalid ("zombie") handle.
YAML::Node lookup(const YAML::Node& node, const std::string& key) {
  if (!node.IsDefined() || !node.IsMap()) return YAML::Node();
  const YAML::Node& cn = node;
  YAML::Node n = cn[key];
  return n.IsDefined() ? n : YAML::Node();
}

// j[key] of a JSON object, or null when j is not an object or has no such key.
const nlohmann::json* json_lookup(const nlohmann::json* j, const std::string& key) {
  if (j == nullptr || !j->is_object()) return nullptr;
  auto it = j->find(key);
  return it == j->end() ? nullptr : &*it;
}
}  // namespace

Ctx Ctx::of_json(const std::string& file, const nlohmann::json& value, const std::string& path) {
  Ctx c{file, YAML::Node(), path};
  c.json = &value;
  c.json_backed = true;
  return c;
}

bool Ctx::defined() const {
  if (json_backed) return json != nullptr && !json->is_null();
  return node.IsDefined() && !node.IsNull();
}

bool Ctx::is_map() const {
  if (json_backed) return json != nullptr && json->is_object();
  return node.IsDefined() && node.IsMap();
}

bool Ctx::is_seq() const {
  if (json_backed) return json != nullptr && json->is_array();
  return node.IsDefined() && node.IsSequence();
}

size_t Ctx::size() const {
  if (json_backed) return is_map() || is_seq() ? json->size() : 0;
  return node.size();
}

int Ctx::line() const {
  if (json_backed) return json != nullptr ? 1 + line_offset : line_hint;
  if (node.IsDefined()) {
    YAML::Mark m = node.Mark();
    if (!m.is_null()) return m.line + 1 + line_offset;
  }
  return line_hint;
}

Ctx Ctx::child(const std::string& key) const {
  if (json_backed) {
    Ctx c{file, YAML::Node(), path.empty() ? key : path + "." + key, line(), line_offset};
    c.json = json_lookup(json, key);
    c.json_backed = true;
    return c;
  }
  return Ctx{file, lookup(node, key), path.empty() ? key : path + "." + key, line(), line_offset};
}

Ctx Ctx::item(size_t i) const {
  if (json_backed) {
    Ctx c{file, YAML::Node(), path + "[" + std::to_string(i) + "]", line(), line_offset};
    c.json = is_seq() && i < json->size() ? &(*json)[i] : nullptr;
    c.json_backed = true;
    return c;
  }
  YAML::Node n;
  if (node.IsDefined() && node.IsSequence() && i < node.size()) {
    const YAML::Node& cn = node;
    n.reset(cn[i]);
  }
  return Ctx{file, n, path + "[" + std::to_string(i) + "]", line(), line_offset};
}

bool Ctx::has(const std::string& key) const {
  if (json_backed) {
    const nlohmann::json* v = json_lookup(json, key);
    return v != nullptr && !v->is_null();
  }
  YAML::Node n = lookup(node, key);
  return n.IsDefined() && !n.IsNull();
}

std::string Ctx::where() const {
  return error_location(file, line(), path);
}

void Ctx::fail(const std::string& what) const {
  throw InputError(where() + ": " + what);
}

void Ctx::expect_map() const {
  if (!is_map()) fail("expected a mapping");
}

void Ctx::expect_seq() const {
  if (!is_seq()) fail("expected a list");
}

std::string Ctx::str() const {
  if (json_backed) {
    if (!defined()) fail("missing value");
    if (json->is_string()) return json->get_ref<const std::string&>();
    if (json->is_object() || json->is_array()) fail("expected a string");
    return json->dump();  // a number or a boolean: its JSON text, as yaml-cpp reads it
  }
  if (!node.IsDefined() || !node.IsScalar())
    fail(defined() ? "expected a string" : "missing value");
  return node.Scalar();
}

int64_t Ctx::i64() const {
  std::string s = str();
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) fail("expected an integer, got \"" + s + "\"");
  return v;
}

double Ctx::f64() const {
  std::string s = str();
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) {
    fail("expected a number, got \"" + s + "\"");
  }
  return v;
}

bool Ctx::boolean() const {
  std::string s = str();
  if (s == "true" || s == "True") return true;
  if (s == "false" || s == "False") return false;
  fail("expected true or false, got \"" + s + "\"");
}

std::vector<std::string> Ctx::str_list() const {
  expect_seq();
  std::vector<std::string> out;
  for (size_t i = 0; i < size(); ++i) out.push_back(item(i).str());
  return out;
}

std::vector<std::string> Ctx::keys() const {
  expect_map();
  std::vector<std::string> out;
  if (json_backed) {
    for (auto it = json->begin(); it != json->end(); ++it) out.push_back(it.key());
    return out;
  }
  for (auto it = node.begin(); it != node.end(); ++it) out.push_back(it->first.Scalar());
  return out;
}

std::string Ctx::str_or(const std::string& key, const std::string& def) const {
  return has(key) ? child(key).str() : def;
}
int64_t Ctx::i64_or(const std::string& key, int64_t def) const {
  return has(key) ? child(key).i64() : def;
}
double Ctx::f64_or(const std::string& key, double def) const {
  return has(key) ? child(key).f64() : def;
}
bool Ctx::bool_or(const std::string& key, bool def) const {
  return has(key) ? child(key).boolean() : def;
}

void check_keys(const Ctx& c, const std::vector<std::string>& keys) {
  c.expect_map();
  for (const std::string& k : c.keys()) {
    if (std::find(keys.begin(), keys.end(), k) != keys.end()) continue;
    std::string list;
    for (const std::string& kk : keys) list += (list.empty() ? "" : ", ") + kk;
    c.child(k).fail("unknown field \"" + k + "\"" + did_you_mean(k, keys) +
                    "; expected one of: " + list);
  }
}

void check_keys(const Ctx& c, std::initializer_list<const char*> keys) {
  check_keys(c, std::vector<std::string>(keys.begin(), keys.end()));
}

void check_unique_keys(const Ctx& c) {
  if (c.json_backed) return;  // a JSON object's keys are unique
  if (!c.node.IsDefined()) return;
  if (c.node.IsSequence()) {
    for (size_t i = 0; i < c.node.size(); ++i) check_unique_keys(c.item(i));
    return;
  }
  if (!c.node.IsMap()) return;
  std::vector<std::pair<std::string, int>> seen;  // key, line; small maps: a linear scan
  for (auto it = c.node.begin(); it != c.node.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string();
    const int line =
        it->first.Mark().is_null() ? c.line() : it->first.Mark().line + 1 + c.line_offset;
    for (const auto& [k, first_line] : seen) {
      if (k == key) {
        throw InputError(error_location(c.file, line, c.path.empty() ? key : c.path + "." + key) +
                         ": duplicate key \"" + key + "\" (first given at line " +
                         std::to_string(first_line) + ")");
      }
    }
    seen.emplace_back(key, line);
  }
  for (const auto& [k, line] : seen) check_unique_keys(c.child(k));
}

namespace {

// Walks the documents with yaml-cpp's event parser, building nothing, to catch input on which
// yaml-cpp 0.7's LoadAll never returns (jbeder/yaml-cpp#1319, fixed in 0.8): a stray token such as
// a top-level "," makes HandleNextDocument report an empty document without consuming anything,
// forever, each time appending a null document. Such a document starts where the previous one
// did; we stop there with a syntax error instead.
class StallGuard : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { start_ = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  static void check(const std::string& text) {
    std::istringstream in(text);
    YAML::Parser parser(in);
    StallGuard guard;
    int previous = -1;
    while (parser.HandleNextDocument(guard)) {
      if (guard.start_.pos == previous) {
        throw YAML::ParserException(guard.start_,
                                    "unexpected content (expected a mapping, a "
                                    "list, a scalar or a new document)");
      }
      previous = guard.start_.pos;
    }
  }

 private:
  YAML::Mark start_;
};

}  // namespace

std::vector<YAML::Node> parse_documents(const std::string& text, const std::string& source) {
  try {
    StallGuard::check(text);
    return YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    std::string loc = error_location(source, e.mark.is_null() ? 0 : e.mark.line + 1, "");
    throw InputError(loc + ": malformed YAML/JSON: " + e.msg);
  }
}

YAML::Node parse_document(const std::string& text, const std::string& source) {
  auto docs = parse_documents(text, source);
  if (docs.empty()) throw InputError(source + ": empty document");
  if (docs.size() > 1) throw InputError(source + ": expected a single YAML document");
  return docs[0];
}

std::optional<int64_t> parse_rfc3339(const std::string& s) {
  int y, mo, d, h, mi;
  double sec;
  char tz[16] = {0};
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf%15s", &y, &mo, &d, &h, &mi, &sec, tz) < 6) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = 0;
  int64_t t = static_cast<int64_t>(timegm(&tm));
  int64_t offset = 0;
  std::string z = tz;
  if (!z.empty() && z != "Z" && z != "z") {
    int oh = 0, om = 0;
    if (std::sscanf(z.c_str() + 1, "%2d:%2d", &oh, &om) < 1) return std::nullopt;
    offset = (oh * 3600 + om * 60) * (z[0] == '-' ? -1 : 1);
  }
  return (t - offset) * 1000000 + static_cast<int64_t>(std::llround(sec * 1e6));
}

}  // namespace orrery::yaml
