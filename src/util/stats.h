// Small statistics shared by the simulator's metrics and the report library.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "core/time.h"

namespace orrery {

// The value of a statistic that does not exist (of an empty set).
inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// Percentile p in [0, 100] of sorted values, interpolating linearly between the closest ranks
// (numpy.percentile's default). NaN for an empty input.
double percentile_sorted(const std::vector<double>& sorted, double p);

// Count, mean and percentiles of a sample. The statistics of an empty sample are NaN (written as
// null in JSON, number_or_null in io/json.h, and "—" in tables): an empty set has no median.
struct Stats {
  size_t count = 0;
  double mean = kNoValue, p50 = kNoValue, p90 = kNoValue, p99 = kNoValue, max = kNoValue;
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
