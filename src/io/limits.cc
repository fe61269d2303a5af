#include "io/limits.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace orrery {
namespace {

constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
bool g_allow_large = false;

std::string count_text(double v) {
  char buf[64];
  if (v < 1e15 && v == std::floor(v)) {
    // 10000000 → "10,000,000"
    std::string digits = std::to_string(static_cast<int64_t>(v));
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
      if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
      out += digits[i];
    }
    return out;
  }
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

const InputLimits& input_limits() {
  static const InputLimits defaults;
  static const InputLimits none{kNone, kNone, kNone, kNone};
  return g_allow_large ? none : defaults;
}

void allow_large_inputs(bool allow) {
  g_allow_large = allow;
}

bool large_inputs_allowed() {
  return g_allow_large;
}

std::string over_limit(const std::string& what, double value, int64_t limit,
                       const std::string& unit) {
  return what + ": " + count_text(value) + ", more than the limit of " +
         count_text(static_cast<double>(limit)) + " " + unit +
         "; pass --allow-large to lift it (docs/scenarios.md, Limits)";
}

}  // namespace orrery
