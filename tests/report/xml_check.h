// A tiny XML well-formedness checker for tests: balanced, properly nested tags, quoted
// attributes without raw '<', only the five predefined or numeric entities, no stray '<' or '&'.
// Enough to prove the SVG/HTML we emit parses as XML (and so as SVG in any browser).
#pragma once

#include <cctype>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace orrery::report::testing {

struct XmlResult {
  bool ok = true;
  std::string error;
  std::map<std::string, int> elements;  // tag name -> count
};

inline XmlResult check_xml(std::string_view s) {
  XmlResult r;
  std::vector<std::string> stack;
  size_t i = 0;
  auto fail = [&](const std::string& what) {
    if (r.ok) {
      r.ok = false;
      r.error =
          what + " at offset " + std::to_string(i) + ": ..." + std::string(s.substr(i, 60)) + "...";
    }
  };
  auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' ||
           c == '.';
  };
  auto entity = [&]() {  // at '&'
    const size_t semi = s.find(';', i);
    if (semi == std::string_view::npos || semi - i > 10) return fail("bad entity"), false;
    const std::string_view e = s.substr(i + 1, semi - i - 1);
    bool good = e == "amp" || e == "lt" || e == "gt" || e == "quot" || e == "apos";
    if (!good && e.size() > 1 && e[0] == '#') {
      good = true;
      const bool hex = e[1] == 'x';
      for (size_t k = hex ? 2 : 1; k < e.size(); ++k)
        good = good && (hex ? std::isxdigit(static_cast<unsigned char>(e[k]))
                            : std::isdigit(static_cast<unsigned char>(e[k])));
    }
    if (!good) return fail("unknown entity &" + std::string(e) + ";"), false;
    i = semi + 1;
    return true;
  };
  if (s.substr(0, 9) == "<!DOCTYPE") i = s.find('>') + 1;
  bool root_seen = false;
  while (i < s.size() && r.ok) {
    const char c = s[i];
    if (c == '<') {
      if (s.substr(i, 4) == "<!--") {
        const size_t end = s.find("-->", i);
        if (end == std::string_view::npos) return fail("unterminated comment"), r;
        i = end + 3;
        continue;
      }
      const bool closing = i + 1 < s.size() && s[i + 1] == '/';
      size_t j = i + (closing ? 2 : 1);
      const size_t name_start = j;
      while (j < s.size() && name_char(s[j])) ++j;
      const std::string name(s.substr(name_start, j - name_start));
      if (name.empty()) return fail("'<' not starting a tag"), r;
      if (closing) {
        while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j]))) ++j;
        if (j >= s.size() || s[j] != '>') return fail("bad closing tag"), r;
        if (stack.empty() || stack.back() != name)
          return fail("</" + name + "> does not match <" +
                      (stack.empty() ? std::string("nothing") : stack.back()) + ">"),
                 r;
        stack.pop_back();
        i = j + 1;
        continue;
      }
      if (stack.empty() && root_seen) return fail("second root element"), r;
      root_seen = true;
      ++r.elements[name];
      // attributes
      std::map<std::string, int> seen;
      i = j;
      for (;;) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        if (i >= s.size()) return fail("unterminated tag"), r;
        if (s[i] == '>') {
          stack.push_back(name);
          ++i;
          break;
        }
        if (s.substr(i, 2) == "/>") {
          i += 2;
          break;
        }
        const size_t a0 = i;
        while (i < s.size() && name_char(s[i])) ++i;
        const std::string attr(s.substr(a0, i - a0));
        if (attr.empty()) return fail("bad attribute name"), r;
        if (seen[attr]++) return fail("duplicate attribute " + attr), r;
        if (i >= s.size() || s[i] != '=') return fail("attribute without value"), r;
        ++i;
        if (i >= s.size() || (s[i] != '"' && s[i] != '\'')) return fail("unquoted attribute"), r;
        const char q = s[i++];
        while (i < s.size() && s[i] != q) {
          if (s[i] == '<') return fail("'<' in attribute"), r;
          if (s[i] == '&') {
            if (!entity()) return r;
          } else {
            ++i;
          }
        }
        if (i >= s.size()) return fail("unterminated attribute"), r;
        ++i;
      }
      continue;
    }
    if (c == '&') {
      if (!entity()) return r;
      continue;
    }
    if (stack.empty() && !std::isspace(static_cast<unsigned char>(c)))
      return fail("text outside the root element"), r;
    ++i;
  }
  if (r.ok && !stack.empty()) fail("unclosed <" + stack.back() + ">");
  if (r.ok && !root_seen) fail("no root element");
  return r;
}

// Number of non-overlapping occurrences of `needle`.
inline int count_of(std::string_view hay, std::string_view needle) {
  int n = 0;
  for (size_t p = hay.find(needle); p != std::string_view::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

}  // namespace orrery::report::testing
