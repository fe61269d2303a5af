#include "plugins/helper/normalize.h"

#include "plugins/helper/fast_div.h"

namespace orrery::plugins {

void default_normalize(int64_t max_priority, bool reverse, int64_t* scores, size_t n) {
  int64_t max_count = 0;
  for (size_t i = 0; i < n; ++i)
    if (scores[i] > max_count) max_count = scores[i];
  if (max_count == 0) {
    if (reverse)
      for (size_t i = 0; i < n; ++i) scores[i] = max_priority;
    return;
  }
  const double inv = 1.0 / static_cast<double>(max_count);
  for (size_t i = 0; i < n; ++i) {
    // Most raw scores are 0 (no taint, no preferred term matched): no division needed.
    const int64_t s = scores[i] == 0 ? 0 : div_floor(max_priority * scores[i], max_count, inv);
    scores[i] = reverse ? max_priority - s : s;
  }
}

}  // namespace orrery::plugins
