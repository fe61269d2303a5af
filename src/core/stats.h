// Small statistics shared by the simulator's metrics and the report library.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/time.h"

namespace orrery {

// Percentile p in [0, 100] of sorted values, interpolating linearly between the closest ranks
// (numpy.percentile's default). NaN for an empty input.
double percentile_sorted(const std::vector<double>& sorted, double p);

// Count, mean and percentiles of a sample (all 0 for an empty one).
struct Stats {
  size_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
};
Stats summarize(std::vector<double> values);

// Formats a double for CSV with up to 9 significant digits (printf's %.9g), deterministic across
// platforms.
std::string fmt_double(double v);
void append_double(std::string& out, double v);
// Formats a time exactly as decimal seconds: 1500000 µs → "1.5", -250 µs → "-0.00025".
std::string fmt_seconds(Time t);
void append_seconds(std::string& out, Time t);

}  // namespace orrery
