#include "core/quantity.h"

#include <cctype>
#include <limits>

#include "core/error.h"

namespace orrery {
namespace {

using i128 = __int128;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Suffix → (power of ten, power of two). Returns false if the suffix is not valid.
bool interpret_suffix(std::string_view s, int* pow10, int* pow2) {
  *pow10 = 0;
  *pow2 = 0;
  if (s.empty()) return true;
  if (s.size() == 1) {
    switch (s[0]) {
      case 'n': *pow10 = -9; return true;
      case 'u': *pow10 = -6; return true;
      case 'm': *pow10 = -3; return true;
      case 'k': *pow10 = 3; return true;
      case 'M': *pow10 = 6; return true;
      case 'G': *pow10 = 9; return true;
      case 'T': *pow10 = 12; return true;
      case 'P': *pow10 = 15; return true;
      case 'E': *pow10 = 18; return true;
      default: return false;
    }
  }
  if (s.size() == 2 && s[1] == 'i') {
    switch (s[0]) {
      case 'K': *pow2 = 10; return true;
      case 'M': *pow2 = 20; return true;
      case 'G': *pow2 = 30; return true;
      case 'T': *pow2 = 40; return true;
      case 'P': *pow2 = 50; return true;
      case 'E': *pow2 = 60; return true;
      default: return false;
    }
  }
  if (s[0] == 'e' || s[0] == 'E') {
    std::string_view e = s.substr(1);
    bool neg = false;
    if (!e.empty() && (e[0] == '+' || e[0] == '-')) {
      neg = e[0] == '-';
      e.remove_prefix(1);
    }
    if (e.empty() || e.size() > 4) return false;
    int v = 0;
    for (char c : e) {
      if (!is_digit(c)) return false;
      v = v * 10 + (c - '0');
    }
    *pow10 = neg ? -v : v;
    return true;
  }
  return false;
}

}  // namespace

std::optional<int64_t> parse_quantity(std::string_view text, int scale, std::string* error) {
  auto fail = [&](const char* what) -> std::optional<int64_t> {
    if (error) *error = what;
    return std::nullopt;
  };
  std::string_view s = text;
  if (s.empty()) return fail("empty quantity");
  bool negative = false;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  // Significant digits (leading zeros dropped), and the decimal exponent they are scaled by.
  constexpr int kMaxDigits = 19;
  i128 mantissa = 0;
  int kept = 0;
  int exp10 = 0;
  bool sticky = false;  // a non-zero digit beyond kMaxDigits was dropped
  int digits_seen = 0;
  size_t pos = 0;
  auto take_digit = [&](char c, bool fractional) {
    ++digits_seen;
    if (kept == 0 && c == '0') {
      if (fractional) --exp10;
      return;
    }
    if (kept < kMaxDigits) {
      mantissa = mantissa * 10 + (c - '0');
      ++kept;
      if (fractional) --exp10;
    } else {
      if (c != '0') sticky = true;
      if (!fractional) ++exp10;
    }
  };
  while (pos < s.size() && is_digit(s[pos])) take_digit(s[pos++], false);
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    while (pos < s.size() && is_digit(s[pos])) take_digit(s[pos++], true);
  }
  if (digits_seen == 0) return fail("expected a number such as 100m, 1.5, 512Mi or 1e3");
  int pow10 = 0, pow2 = 0;
  if (!interpret_suffix(s.substr(pos), &pow10, &pow2)) {
    return fail("unknown suffix (expected one of n u m k M G T P E Ki Mi Gi Ti Pi Ei or e<exp>)");
  }
  if (mantissa == 0) return int64_t{0};
  if (negative) return fail("negative quantity");

  const int e = exp10 + pow10 + scale;
  const i128 limit = std::numeric_limits<int64_t>::max();
  i128 num = mantissa << pow2;  // mantissa < 10^19 < 2^64, pow2 <= 60: fits in 128 bits
  if (e >= 0) {
    if (sticky) return fail("quantity too large");
    for (int i = 0; i < e; ++i) {
      num *= 10;
      if (num > limit) return fail("quantity too large");
    }
    if (num > limit) return fail("quantity too large");
    return static_cast<int64_t>(num);
  }
  // Divide by 10^-e, rounding up.
  const int k = -e;
  if (k > 38) return int64_t{1};  // num < 2^124 < 10^38: a positive fraction below one
  i128 den = 1;
  for (int i = 0; i < k; ++i) den *= 10;
  i128 q = num / den;
  if (num % den != 0 || sticky) ++q;
  if (q > limit) return fail("quantity too large");
  return static_cast<int64_t>(q);
}

int64_t parse_milli_quantity(std::string_view text, const std::string& where) {
  std::string err;
  auto v = parse_quantity(text, 3, &err);
  if (!v) throw InputError(where + ": invalid quantity \"" + std::string(text) + "\": " + err);
  return *v;
}

int64_t parse_unit_quantity(std::string_view text, const std::string& where) {
  std::string err;
  auto v = parse_quantity(text, 0, &err);
  if (!v) throw InputError(where + ": invalid quantity \"" + std::string(text) + "\": " + err);
  return *v;
}

std::string format_milli(int64_t milli) {
  if (milli % 1000 == 0) return std::to_string(milli / 1000);
  return std::to_string(milli) + "m";
}

std::string format_bytes(int64_t bytes) {
  static const char* kSuffix[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  if (bytes == 0) return "0";
  int i = -1;
  int64_t v = bytes;
  while (i < 5 && v % 1024 == 0) {
    v /= 1024;
    ++i;
  }
  return i < 0 ? std::to_string(bytes) : std::to_string(v) + kSuffix[i];
}

}  // namespace orrery
