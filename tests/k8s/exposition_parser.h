// A small strict parser of the Prometheus text exposition format 0.0.4, for tests: every sample
// belongs to a family announced by # HELP and # TYPE before it, names and label names are valid,
// values parse, histogram buckets have `le` labels in increasing order with non-decreasing
// counts ending in +Inf, and _count equals the +Inf bucket. Returns the problems found.
#pragma once

#include <cmath>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace orrery::k8s::testing {

struct Exposition {
  std::map<std::string, std::string> types;             // family → type
  std::map<std::string, double> samples;                 // "name{labels}" → value
  std::vector<std::string> errors;
};

inline Exposition parse_exposition(const std::string& text) {
  Exposition out;
  static const std::regex name_re("[a-zA-Z_:][a-zA-Z0-9_:]*");
  static const std::regex sample_re(R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$)");
  static const std::regex label_re(R"re(([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)")re");
  std::map<std::string, bool> helped;
  // Histogram check state: family+labels-without-le → (last le, last count)
  std::map<std::string, std::pair<double, double>> buckets;
  std::map<std::string, double> inf_count;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  auto err = [&](const std::string& what) { out.errors.push_back("line " + std::to_string(n) + ": " + what + ": " + line); };
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    if (line.rfind("# HELP ", 0) == 0) {
      std::string rest = line.substr(7);
      std::string name = rest.substr(0, rest.find(' '));
      if (!std::regex_match(name, name_re)) err("bad metric name in HELP");
      helped[name] = true;
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream ss(line.substr(7));
      std::string name, type;
      ss >> name >> type;
      if (!helped[name]) err("TYPE before HELP");
      if (type != "counter" && type != "gauge" && type != "histogram" && type != "summary" &&
          type != "untyped")
        err("unknown type");
      if (out.types.count(name)) err("family declared twice");
      out.types[name] = type;
      continue;
    }
    if (line[0] == '#') continue;
    std::smatch m;
    if (!std::regex_match(line, m, sample_re)) {
      err("not a sample line");
      continue;
    }
    const std::string name = m[1];
    const std::string labels = m[3];
    double value = 0;
    const std::string v = m[4];
    if (v == "+Inf") value = INFINITY;
    else if (v == "-Inf") value = -INFINITY;
    else if (v == "NaN") value = NAN;
    else {
      try {
        size_t used = 0;
        value = std::stod(v, &used);
        if (used != v.size()) err("bad value");
      } catch (...) {
        err("bad value");
      }
    }
    // Labels: a comma-separated list of name="value".
    std::string rest = labels, le, others;
    while (!rest.empty()) {
      std::smatch lm;
      if (!std::regex_search(rest, lm, label_re) || lm.position(0) != 0) {
        err("bad labels");
        break;
      }
      if (lm[1] == "le") le = lm[2];
      else others += lm[0].str() + ",";
      rest = rest.substr(lm.length(0));
      if (!rest.empty()) {
        if (rest[0] != ',') {
          err("bad label separator");
          break;
        }
        rest = rest.substr(1);
      }
    }
    std::string family = name;
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      const std::string s = suffix;
      if (!out.types.count(family) && name.size() > s.size() &&
          name.compare(name.size() - s.size(), s.size(), s) == 0)
        family = name.substr(0, name.size() - s.size());
    }
    if (!out.types.count(family)) {
      err("sample without a TYPE line");
      continue;
    }
    const std::string& type = out.types[family];
    if (type == "counter" && value < 0) err("negative counter");
    if (type == "histogram") {
      const std::string key = family + "{" + others + "}";
      if (name == family + "_bucket") {
        if (le.empty()) err("bucket without le");
        const double bound = le == "+Inf" ? INFINITY : std::stod(le);
        auto it = buckets.find(key);
        if (it != buckets.end()) {
          if (!(bound > it->second.first)) err("bucket bounds not increasing");
          if (value < it->second.second) err("bucket counts decreasing");
        }
        buckets[key] = {bound, value};
        if (std::isinf(bound)) inf_count[key] = value;
      } else if (name == family + "_count") {
        if (!inf_count.count(key)) err("_count before the +Inf bucket");
        else if (inf_count[key] != value) err("_count differs from the +Inf bucket");
      } else if (name != family + "_sum") {
        err("unexpected histogram sample");
      }
    }
    out.samples[name + "{" + labels + "}"] = value;
  }
  return out;
}

}  // namespace orrery::k8s::testing
