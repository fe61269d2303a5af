// Score normalisation shared by plugins (pkg/scheduler/framework/plugins/helper).
#pragma once

#include <cstddef>
#include <cstdint>

namespace orrery::plugins {

// helper.DefaultNormalizeScore: scales scores to [0, max_priority] by the maximum; with `reverse`
// the result is max_priority - scaled (so a higher raw count gives a lower score). All-zero raw
// scores stay 0, or become max_priority when reversed.
void default_normalize(int64_t max_priority, bool reverse, int64_t* scores, size_t n);
// The same when the caller already knows the maximum raw score (all raw scores are >= 0).
void default_normalize_with_max(int64_t max_priority, bool reverse, int64_t max_count,
                                int64_t* scores, size_t n);

}  // namespace orrery::plugins
