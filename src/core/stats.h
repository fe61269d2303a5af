// Small statistics shared by the simulator's metrics and the report library.
#pragma once

#include <vector>

namespace orrery {

// Percentile p in [0, 100] of sorted values, interpolating linearly between the closest ranks
// (numpy.percentile's default). NaN for an empty input.
double percentile_sorted(const std::vector<double>& sorted, double p);

}  // namespace orrery
