#include "report/format.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace orrery::report {
namespace {

// U+202F NARROW NO-BREAK SPACE: the SI thousands separator, never wrapped by the browser.
constexpr std::string_view kGroupSep = "\u202f";

void strip_trailing_zeros(std::string& s) {
  if (s.find('.') == std::string::npos) return;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  strip_trailing_zeros(s);
  if (s == "-0") s = "0";
  return s;
}

// Digits of an integer-valued double with thousands grouping from 10 000 on.
std::string grouped_integer(double v) {
  const bool neg = v < 0;
  const uint64_t u = static_cast<uint64_t>(std::llround(std::fabs(v)));
  std::string digits = std::to_string(u);
  std::string out = neg && u != 0 ? "-" : "";
  if (u < 10000) return out + digits;
  const size_t first = digits.size() % 3 == 0 ? 3 : digits.size() % 3;
  out += digits.substr(0, first);
  for (size_t i = first; i < digits.size(); i += 3) {
    out += kGroupSep;
    out += digits.substr(i, 3);
  }
  return out;
}

// Rounds to `sig` significant digits (so unit choices see the value as it will be printed).
double round_sig(double v, int sig) {
  if (v == 0 || !std::isfinite(v)) return v;
  const double mag = std::floor(std::log10(std::fabs(v)));
  const double scale = std::pow(10.0, sig - 1 - mag);
  return std::round(v * scale) / scale;
}

std::string nonfinite(double v) {
  if (std::isnan(v)) return "\u2014";  // em dash: missing
  return v > 0 ? "\u221e" : "-\u221e";
}

std::string number_grouped(double v) {
  const double a = std::fabs(v);
  if (a < 1e15 && (v == std::floor(v) || a >= 1000)) return grouped_integer(std::round(v));
  return format_number(v, 4);
}

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        // Control characters other than tab/newline are not allowed in XML 1.0: drop them.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') break;
        out += c;
    }
  }
  return out;
}

std::string format_number(double v, int sig) {
  if (!std::isfinite(v)) return nonfinite(v);
  if (v == 0) return "0";
  const double r = round_sig(v, sig);
  const double a = std::fabs(r);
  if (a < 1e-4 || a >= 1e15) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*e", sig - 1, r);
    std::string s = buf;
    // "1.200e-05" -> "1.2e-05"
    const size_t e = s.find('e');
    std::string mant = s.substr(0, e);
    strip_trailing_zeros(mant);
    return mant + s.substr(e);
  }
  const int mag = static_cast<int>(std::floor(std::log10(a)));
  const int decimals = std::max(0, sig - 1 - mag);
  return fixed(r, decimals);
}

std::string format_value(double v, Format f) {
  if (!std::isfinite(v)) return nonfinite(v);
  switch (f) {
    case Format::kNumber: return number_grouped(v);
    case Format::kPercent: return format_number(v * 100.0, 3) + "%";
    case Format::kSeconds: {
      const double a = std::fabs(round_sig(v, 4));
      if (a == 0) return "0 s";
      if (a >= 1) return number_grouped(round_sig(v, a >= 1000 ? 15 : 4)) + " s";
      if (a >= 1e-3) return format_number(v * 1e3, 4) + " ms";
      if (a >= 1e-6) return format_number(v * 1e6, 4) + " \u00b5s";
      return format_number(v * 1e9, 4) + " ns";
    }
  }
  return format_number(v);
}

std::string format_coord(double v, int decimals) {
  if (!std::isfinite(v)) return "0";
  return fixed(v, decimals);
}

}  // namespace orrery::report
