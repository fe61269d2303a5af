#include "io/json_items.h"

namespace orrery::json {

namespace {

// Deeper nesting than any Kubernetes object has; the limit keeps the recursion's stack bounded.
constexpr int kMaxDepth = 512;

class Scanner {
 public:
  explicit Scanner(std::string_view text) : s_(text) {}

  std::optional<TopLevelList> top_level() {
    skip_blank();
    if (at_end() || s_[i_] != '{') return std::nullopt;
    TopLevelList out;
    bool shape_ok = true;
    object([&](std::string_view key, bool /*plain*/) {
      if (key == "kind") {
        if (out.kind) shape_ok = false;
        std::string_view kind;
        if (peek() != '"') {
          value(1);
        } else if (string(&kind)) {
          out.kind = std::string(kind);
        }
      } else if (key == "items") {
        if (out.items) shape_ok = false;
        if (peek() == '[') {
          out.items.emplace();
          array(1, &*out.items);
        } else {
          value(1);
        }
      } else {
        value(1);
      }
    });
    skip_blank();
    if (!at_end()) shape_ok = false;
    if (!shape_ok) return std::nullopt;
    return out;
  }

  std::optional<std::vector<Member>> members() {
    skip_blank();
    if (at_end() || s_[i_] != '{') return std::nullopt;
    std::vector<Member> out;
    object([&](std::string_view key, bool plain) {
      Member& m = out.emplace_back();
      m.key = key;
      m.plain = plain;
      m.value = {i_, i_, line_};
      value(1);
      m.value.end = i_;
    });
    end_of_text();
    return out;
  }

  std::optional<std::vector<Span>> elements() {
    skip_blank();
    if (at_end() || s_[i_] != '[') return std::nullopt;
    std::vector<Span> out;
    array(0, &out);
    end_of_text();
    return out;
  }

 private:
  void end_of_text() {
    skip_blank();
    if (!at_end()) fail("unexpected text after the value");
  }

  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[i_]; }

  [[noreturn]] void fail(const std::string& what) const { throw SyntaxError(line_, what); }

  void expect(char c, const char* what = nullptr) {
    if (peek() != c) {
      if (at_end()) fail(what ? std::string(what) + " (end of input)" : "unexpected end of input");
      fail(what ? what : std::string("expected '") + c + "'");
    }
    ++i_;
  }

  void skip_blank() {
    while (!at_end()) {
      char c = s_[i_];
      if (c == '\n') {
        ++line_;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        break;
      }
      ++i_;
    }
  }

  void value(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    switch (peek()) {
      case '{': object([&](std::string_view, bool) { value(depth + 1); }); break;
      case '[': array(depth, nullptr); break;
      case '"': string(nullptr); break;
      case '\0':
        if (at_end()) fail("unexpected end of input (expected a value)");
        [[fallthrough]];
      default: scalar();
    }
  }

  // An object, from its '{': for each member, reads the key and the ':' and calls
  // on_member(key, plain) with the scanner at the member's value, which on_member must consume.
  // The key is a view of the text (empty when not `plain`, i.e. when it has escapes).
  template <class OnMember>
  void object(OnMember&& on_member) {
    ++i_;
    skip_blank();
    if (peek() == '}') {
      ++i_;
      return;
    }
    while (true) {
      skip_blank();
      std::string_view key;
      const bool plain = string(&key);
      skip_blank();
      expect(':', "expected ':' after an object key");
      skip_blank();
      on_member(key, plain);
      skip_blank();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      expect('}', "expected ',' or '}' after an object member");
      return;
    }
  }

  // With `elements`, records each element's byte range and first line.
  void array(int depth, std::vector<Span>* elements) {
    ++i_;
    skip_blank();
    if (peek() == ']') {
      ++i_;
      return;
    }
    while (true) {
      skip_blank();
      Span span{i_, i_, line_};
      value(depth + 1);
      if (elements) {
        span.end = i_;
        elements->push_back(span);
      }
      skip_blank();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      expect(']', "expected ',' or ']' after an array element");
      return;
    }
  }

  // A string; returns whether it had no escapes, and then, with `out`, views its text.
  bool string(std::string_view* out) {
    if (peek() != '"')
      fail(at_end() ? "unexpected end of input (expected a string)"
                    : "expected a string in double quotes");
    const int start_line = line_;
    const size_t start = ++i_;
    bool plain = true;
    while (true) {
      if (at_end()) throw SyntaxError(start_line, "unterminated string");
      unsigned char c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') break;
      if (c == '\n') throw SyntaxError(start_line, "unterminated string");
      if (c < 0x20) fail("control character in a string (escape it)");
      if (c == '\\') {
        plain = false;
        ++i_;
        char e = peek();
        if (e == 'u') {
          for (int k = 1; k <= 4; ++k) {
            char h = i_ + k < s_.size() ? s_[i_ + k] : '\0';
            bool hex = (h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F');
            if (!hex) fail("expected four hex digits after \\u");
          }
          i_ += 4;
        } else if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' &&
                   e != 'r' && e != 't') {
          fail("invalid escape in a string");
        }
      }
      ++i_;
    }
    if (out && plain) *out = s_.substr(start, i_ - start);
    ++i_;
    return plain;
  }

  // A number (RFC 8259 grammar) or true, false, null.
  void scalar() {
    for (std::string_view word : {"true", "false", "null"}) {
      if (s_.substr(i_, word.size()) == word) {
        i_ += word.size();
        return check_delimiter();
      }
    }
    auto digit = [&] { return peek() >= '0' && peek() <= '9'; };
    auto digits = [&] {
      if (!digit()) fail("malformed number");
      while (digit()) ++i_;
    };
    if (peek() == '-') ++i_;
    if (peek() == '0') {
      ++i_;
    } else if (digit()) {
      digits();
    } else {
      fail(std::string("unexpected character '") + peek() + "' (expected a value)");
    }
    if (peek() == '.') {
      ++i_;
      digits();
    }
    if (peek() == 'e' || peek() == 'E') {
      ++i_;
      if (peek() == '+' || peek() == '-') ++i_;
      digits();
    }
    check_delimiter();
  }

  // A scalar must end at a blank, a separator or a closing bracket ("truex", "12ab" are errors).
  void check_delimiter() const {
    char c = peek();
    if (at_end() || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ']' ||
        c == '}') {
      return;
    }
    fail(std::string("unexpected character '") + c + "' after a value");
  }

  std::string_view s_;
  size_t i_ = 0;
  int line_ = 1;
};

}  // namespace

bool starts_like_json_object(std::string_view text) {
  auto next = [&](size_t i) {
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
      ++i;
    return i;
  };
  size_t i = next(0);
  if (i >= text.size() || text[i] != '{') return false;
  i = next(i + 1);
  return i < text.size() && (text[i] == '"' || text[i] == '}');
}

std::optional<TopLevelList> scan_top_level_list(std::string_view text) {
  return Scanner(text).top_level();
}

std::optional<std::vector<Member>> object_members(std::string_view text) {
  return Scanner(text).members();
}

std::optional<std::vector<Span>> array_elements(std::string_view text) {
  return Scanner(text).elements();
}

}  // namespace orrery::json
