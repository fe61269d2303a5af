#include "plugins/helper/normalize.h"

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
  for (size_t i = 0; i < n; ++i) {
    int64_t s = max_priority * scores[i] / max_count;
    scores[i] = reverse ? max_priority - s : s;
  }
}

}  // namespace orrery::plugins
