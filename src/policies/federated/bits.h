// Word-level helpers for bit vectors stored as arrays of 64-bit words. Bit i of a vector is bit
// (i % 64) of word (i / 64); the paper's bit strings ("0b…", leftmost = worker 0) map worker i to
// bit i in this layout.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

namespace orrery::federated {

// A task's placement constraints or a worker's machine constraints: bit k set = constraint id k.
using ConstraintMask = uint64_t;
inline constexpr uint32_t kMaxConstraints = 64;

inline constexpr size_t words_for(size_t bits) {
  return (bits + 63) / 64;
}

inline bool test_bit(const uint64_t* v, size_t i) {
  return (v[i >> 6] >> (i & 63)) & 1;
}
inline void set_bit(uint64_t* v, size_t i) {
  v[i >> 6] |= uint64_t{1} << (i & 63);
}
inline void clear_bit(uint64_t* v, size_t i) {
  v[i >> 6] &= ~(uint64_t{1} << (i & 63));
}

inline size_t popcount(const uint64_t* v, size_t words) {
  size_t n = 0;
  for (size_t w = 0; w < words; ++w) n += static_cast<size_t>(std::popcount(v[w]));
  return n;
}

inline bool any(const uint64_t* v, size_t words) {
  uint64_t acc = 0;
  for (size_t w = 0; w < words; ++w) acc |= v[w];
  return acc != 0;
}

// Index of the lowest set bit, or -1 when the vector is all zero.
inline int64_t first_set(const uint64_t* v, size_t words) {
  for (size_t w = 0; w < words; ++w)
    if (v[w]) return static_cast<int64_t>(w * 64 + static_cast<size_t>(std::countr_zero(v[w])));
  return -1;
}

// Index of the k-th set bit (0-based); requires k < popcount(v).
inline size_t nth_set(const uint64_t* v, size_t words, size_t k) {
  for (size_t w = 0; w < words; ++w) {
    uint64_t x = v[w];
    const size_t c = static_cast<size_t>(std::popcount(x));
    if (k >= c) {
      k -= c;
      continue;
    }
    // Narrow by halves: at most six popcounts instead of k bit clears.
    size_t base = 0;
    for (unsigned width = 32; width >= 1; width >>= 1) {
      const uint64_t low = x & ((uint64_t{1} << width) - 1);
      const size_t lc = static_cast<size_t>(std::popcount(low));
      if (k >= lc) {
        k -= lc;
        x >>= width;
        base += width;
      } else {
        x = low;
      }
    }
    return w * 64 + base;
  }
  return words * 64;  // unreachable when k < popcount
}

// Calls fn(i) for every set bit i in ascending order.
template <class Fn>
inline void for_each_set(const uint64_t* v, size_t words, Fn&& fn) {
  for (size_t w = 0; w < words; ++w) {
    uint64_t x = v[w];
    while (x) {
      fn(w * 64 + static_cast<size_t>(std::countr_zero(x)));
      x &= x - 1;
    }
  }
}

// Constraint ids of a mask in ascending order, via fn(id).
template <class Fn>
inline void for_each_constraint(ConstraintMask m, Fn&& fn) {
  while (m) {
    fn(static_cast<uint32_t>(std::countr_zero(m)));
    m &= m - 1;
  }
}

}  // namespace orrery::federated
