#include "policies/carico/telemetry_source.h"

#include <algorithm>
#include <cmath>

namespace orrery::carico {

Eigen::VectorXd combine(const RawSample& s) {
  Eigen::VectorXd v(kDims);
  const double util = std::clamp(s.cpu_util, 0.0, 1.0);
  v(0) = s.cpu_pressure ? (util + std::clamp(*s.cpu_pressure, 0.0, 1.0)) / 2 : util;
  v(1) = std::clamp(s.mem_util, 0.0, 1.0);
  return v;
}

bool plausible(const RawSample& s, std::string* why) {
  auto ok = [&](double v, const char* name) {
    if (std::isfinite(v) && v >= -1e-6 && v <= 1 + 1e-6) return true;
    if (why) *why = std::string(name) + " is " + std::to_string(v) + ", expected a number in [0,1]";
    return false;
  };
  return ok(s.cpu_util, "cpu_util") && ok(s.mem_util, "mem_util") &&
         (!s.cpu_pressure || ok(*s.cpu_pressure, "cpu_pressure"));
}

}  // namespace orrery::carico
