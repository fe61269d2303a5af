#include "util/distribution.h"

#include <charconv>
#include <cmath>

#include "core/error.h"
#include "util/stats.h"

namespace orrery {

double Dist::mean() const {
  switch (kind) {
    case Kind::kConstant: return a;
    case Kind::kUniform: return (a + b) / 2;
    case Kind::kNormal: return a;  // ignoring the truncation at 0
    case Kind::kLognormal: return a * std::exp(b * b / 2);
    case Kind::kExponential: return a;
  }
  return a;
}

double Dist::sample(Rng& rng) const {
  double v = a;
  switch (kind) {
    case Kind::kConstant: break;
    case Kind::kUniform: v = rng.uniform(a, b); break;
    case Kind::kNormal: v = rng.normal(a, b); break;
    case Kind::kLognormal: v = a * std::exp(b * rng.normal()); break;
    case Kind::kExponential: v = a > 0 ? rng.exponential(1.0 / a) : 0; break;
  }
  return v < 0 ? 0 : v;
}

std::string Dist::to_string() const {
  switch (kind) {
    case Kind::kConstant: return fmt_double(a);
    case Kind::kUniform: return "uniform(" + fmt_double(a) + ", " + fmt_double(b) + ")";
    case Kind::kNormal: return "normal(" + fmt_double(a) + ", " + fmt_double(b) + ")";
    case Kind::kLognormal: return "lognormal(median " + fmt_double(a) + ", " + fmt_double(b) + ")";
    case Kind::kExponential: return "exponential(mean " + fmt_double(a) + ")";
  }
  return "";
}

Time parse_duration_text(const std::string& text, const std::string& where) {
  size_t i = 0;
  while (i < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' || text[i] == '-' ||
          text[i] == '+' || text[i] == 'e' || text[i] == 'E')) {
    ++i;
  }
  std::string num = text.substr(0, i), unit = text.substr(i);
  char* end = nullptr;
  double v = std::strtod(num.c_str(), &end);
  double scale = 0;
  if (unit.empty() || unit == "s") {
    scale = 1e6;
  } else if (unit == "ms") {
    scale = 1e3;
  } else if (unit == "us" || unit == "µs") {
    scale = 1;
  } else if (unit == "m" || unit == "min") {
    scale = 60e6;
  } else if (unit == "h") {
    scale = 3600e6;
  }
  if (num.empty() || end != num.c_str() + num.size() || scale == 0 || !std::isfinite(v)) {
    throw InputError(where + ": expected a duration such as 90s, 500ms, 2m or a number of " +
                     "seconds, got \"" + text + "\"");
  }
  if (v < 0) throw InputError(where + ": expected a non-negative duration, got \"" + text + "\"");
  const double us = v * scale;
  if (us > 9.0e18) throw InputError(where + ": duration \"" + text + "\" is too large");
  return static_cast<Time>(std::llround(us));
}

}  // namespace orrery
