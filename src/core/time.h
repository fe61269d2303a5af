// Time in both worlds: integer microseconds. The simulator's clock counts virtual time from 0;
// the real-time loop counts wall time since it started. Helpers convert to and from seconds.
#pragma once

#include <cstdint>
#include <limits>

namespace orrery {

using Time = int64_t;  // microseconds
inline constexpr Time kUs = 1;
inline constexpr Time kMs = 1000;
inline constexpr Time kSecond = 1'000'000;
inline constexpr Time kForever = std::numeric_limits<Time>::max();

inline Time seconds(double s) {
  return static_cast<Time>(s * 1e6 + (s >= 0 ? 0.5 : -0.5));
}
inline double to_seconds(Time t) {
  return static_cast<double>(t) * 1e-6;
}

}  // namespace orrery
