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

// Conversions from double saturate at ±kTimeCap (2^62 − 1 µs, about 146,000 years; NaN → 0): a
// double beyond int64's range converted directly is undefined behaviour, and the sum of two
// capped times still fits.
inline constexpr Time kTimeCap = (Time{1} << 62) - 1;
inline Time saturating_time(double us) {
  if (!(us == us)) return 0;
  constexpr double kCap = static_cast<double>(Time{1} << 62);  // exact; kTimeCap is not
  if (us >= kCap) return kTimeCap;
  if (us <= -kCap) return -kTimeCap;
  return static_cast<Time>(us);
}
inline Time seconds(double s) {
  return saturating_time(s * 1e6 + (s >= 0 ? 0.5 : -0.5));
}
inline double to_seconds(Time t) {
  return static_cast<double>(t) * 1e-6;
}

}  // namespace orrery
