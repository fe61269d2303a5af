// Exact integer division by a divisor whose reciprocal is known: one double multiply and one
// integer correction instead of a 64-bit integer division (which costs 40-90 cycles on the
// machines we run on). Scores divide by per-node allocatable figures thousands of times per pod.
#pragma once

#include <cstdint>

namespace orrery::plugins {

// floor(a / b) for a >= 0, b > 0, given inv_b == 1.0 / b. Exact whenever the quotient is small
// enough for the double estimate to be within 1 of it (quotients here are at most a few hundred).
inline int64_t div_floor(int64_t a, int64_t b, double inv_b) {
  int64_t q = static_cast<int64_t>(static_cast<double>(a) * inv_b);
  const int64_t r = a - q * b;
  if (r < 0) {
    --q;
  } else if (r >= b) {
    ++q;
  }
  return q;
}

// Go's math.Round for s >= 0 (halves away from zero) without a libm call: the fraction s - trunc(s)
// is computed exactly.
inline int64_t round_half_up(double s) {
  int64_t t = static_cast<int64_t>(s);
  if (s - static_cast<double>(t) >= 0.5) ++t;
  return t;
}

}  // namespace orrery::plugins
