// Differential: the same objects as YAML and as JSON must load to identical cluster states.
// The input is YAML; its documents are read with the product's reader (yaml::parse_documents)
// and written out as JSON the way a YAML-to-JSON converter does (plain scalars that are JSON
// numbers, true/false or null keep their type, everything else becomes a string). A single
// document is written as it is (a JSON List goes through the item scanner, anything else through
// yaml-cpp's reading of JSON); several documents are wrapped in {"kind": "List", "items": [...]}.
// Both texts go through parse_k8s_objects + build_cluster; both must fail, or both succeed with
// the same fingerprint (core/cluster_check.h: everything the scheduler reads).
// Inputs the conversion cannot express the same way are skipped: anchors/aliases and tags,
// non-scalar or duplicate keys, the merge key "<<", keys longer than 1024 characters (YAML's limit
// for implicit keys, which yaml-cpp enforces in flow mappings, i.e. in the JSON form, but not in
// block mappings; no Kubernetes key comes near it), and invalid UTF-8 (refused by the loader even
// in comments, which the JSON form drops).
#include <yaml-cpp/yaml.h>

#include <set>

#include "cluster_check.h"
#include "io/k8s_objects.h"
#include "io/yaml_util.h"

using namespace orrery;

namespace {

struct Unconvertible {};

bool is_json_number(const std::string& s) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  if (i >= s.size()) return false;
  if (s[i] == '0') {
    ++i;
  } else if (s[i] >= '1' && s[i] <= '9') {
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  } else {
    return false;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  return i == s.size();
}

void json_string(const std::string& s, std::string& out) {
  static const char* hex = "0123456789abcdef";
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

void to_json(const YAML::Node& n, std::string& out, int depth) {
  if (depth > 64) throw Unconvertible{};
  const std::string& tag = n.Tag();
  if (!tag.empty() && tag != "?" && tag != "!") throw Unconvertible{};  // explicit tags
  switch (n.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null: out += "null"; return;
    case YAML::NodeType::Scalar: {
      const std::string& s = n.Scalar();
      if (tag == "?" && (is_json_number(s) || s == "true" || s == "false")) {
        out += s;
      } else if (tag == "?" && (s == "null" || s == "~" || s.empty())) {
        out += "null";
      } else {
        json_string(s, out);
      }
      return;
    }
    case YAML::NodeType::Sequence: {
      out += '[';
      for (size_t i = 0; i < n.size(); ++i) {
        if (i) out += ',';
        to_json(n[i], out, depth + 1);
      }
      out += ']';
      return;
    }
    case YAML::NodeType::Map: {
      out += '{';
      std::set<std::string> keys;
      bool first = true;
      for (auto it = n.begin(); it != n.end(); ++it) {
        if (!it->first.IsScalar() || it->first.Scalar() == "<<") throw Unconvertible{};
        if (!keys.insert(it->first.Scalar()).second) throw Unconvertible{};
        std::string key;
        json_string(it->first.Scalar(), key);
        if (key.size() > 1024 + 2)
          throw Unconvertible{};  // YAML's implicit-key limit, quotes aside
        if (!first) out += ',';
        first = false;
        out += key;
        out += ':';
        to_json(it->second, out, depth + 1);
      }
      out += '}';
      return;
    }
  }
}

// "ok <fingerprint>" or "error".
std::string load(std::string_view text, const char* name) {
  std::string result = "error";
  fuzz::accepts([&] {
    const K8sObjects objects = parse_k8s_objects(text, name);
    std::vector<std::string> warnings;
    const ClusterState st = build_cluster(objects, &warnings);
    result = "ok " + fuzz::fingerprint(st);
  });
  return result;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::quiet_logs();
  const std::string yaml(fuzz::as_text(data, size));
  // Anchors and aliases share nodes; the JSON would repeat them (same meaning, but skip them to
  // keep the comparison about the loaders).
  if (yaml.find('&') != std::string::npos || yaml.find('*') != std::string::npos) return 0;
  // The loader refuses invalid UTF-8 anywhere, comments included, which the JSON form drops.
  if (!fuzz::valid_utf8(yaml)) return 0;
  // Raw C0 control characters other than tab/LF/CR are not printable YAML (YAML 1.2 c-printable);
  // yaml-cpp reads them leniently in block scalars, their JSON escapes strictly. Not compared.
  for (unsigned char c : yaml)
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) return 0;
  std::vector<YAML::Node> docs;
  if (!fuzz::accepts([&] { docs = yaml::parse_documents(yaml, "fuzz.yaml"); })) return 0;
  if (docs.empty()) return 0;
  std::string json;
  try {
    if (docs.size() == 1) {
      to_json(docs[0], json, 0);
    } else {
      json = R"({"apiVersion":"v1","kind":"List","items":[)";
      for (size_t i = 0; i < docs.size(); ++i) {
        if (!docs[i].IsMap()) return 0;  // the YAML reader skips empty documents, a List not
        if (i) json += ',';
        to_json(docs[i], json, 0);
      }
      json += "]}";
    }
  } catch (const Unconvertible&) {
    return 0;
  }
  const std::string from_yaml = load(yaml, "fuzz.yaml");
  const std::string from_json = load(json, "fuzz.json");
  if (from_yaml != from_json) {
    fuzz::fail("YAML and JSON load differently",
               "JSON: " + json + "\nfrom YAML: " + from_yaml + "\nfrom JSON: " + from_json);
  }
  return 0;
}
