#include "plugins/helper/normalize.h"

#include "plugins/helper/fast_div.h"

namespace orrery::plugins {

void default_normalize(int64_t max_priority, bool reverse, int64_t* scores, size_t n) {
  int64_t max_count = 0;
  for (size_t i = 0; i < n; ++i)
    if (scores[i] > max_count) max_count = scores[i];
  default_normalize_with_max(max_priority, reverse, max_count, scores, n);
}

void default_normalize_with_max(int64_t max_priority, bool reverse, int64_t max_count,
                                int64_t* scores, size_t n) {
  if (max_count == 0) {
    if (reverse)
      for (size_t i = 0; i < n; ++i) scores[i] = max_priority;
    return;
  }
  const double inv = 1.0 / static_cast<double>(max_count);
  auto normalized = [&](int64_t raw) {
    const int64_t s = raw == 0 ? 0 : div_floor(max_priority * raw, max_count, inv);
    return reverse ? max_priority - s : s;
  };
  // Raw scores are small counts or weight sums: a table of every value when that is cheaper.
  constexpr int64_t kTable = 256;
  if (max_count < kTable && static_cast<size_t>(max_count) < n) {
    int64_t table[kTable];
    for (int64_t v = 0; v <= max_count; ++v) table[v] = normalized(v);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t raw = static_cast<uint64_t>(scores[i]);
      scores[i] = raw <= static_cast<uint64_t>(max_count) ? table[raw] : normalized(scores[i]);
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) scores[i] = normalized(scores[i]);
}

}  // namespace orrery::plugins
