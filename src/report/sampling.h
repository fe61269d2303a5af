// Reducing large data to what a chart can show, deterministically and without hiding what matters:
// empirical CDFs keep their exact tails and percentiles, time series keep each pixel column's
// extremes.
#pragma once

#include <cstddef>
#include <vector>

#include "util/stats.h"

namespace orrery::report {

using orrery::percentile_sorted;  // util/stats.h: numpy's default (linear) percentiles

// One step of an empirical CDF: the fraction f of values that are <= x.
struct CdfPoint {
  double x;
  double f;
};

// The empirical CDF of sorted, finite `values` reduced to about `max_points` steps (plus a few
// dozen tail points). The result is a subset of the exact ECDF's corners, in increasing x, so the
// drawn step curve is never above the true one and meets it at every kept point. Always kept:
// the minimum and maximum, both values around the numpy p50/p90/p99/p99.9, about eight points
// per decade of rank in both tails (so the top 1%, 0.1%, ... keep their shape), and the ends of
// large gaps in x (on a log scale when `log_x`). Deterministic; O(n + max_points log n).
std::vector<CdfPoint> cdf_points(const std::vector<double>& sorted, size_t max_points = 512,
                                 bool log_x = false);

// Indices of the points of a series (x non-decreasing) worth drawing on about `buckets` pixel
// columns: per column the first, last, minimum and maximum y, in order. All indices when the
// series is small. NaN y values are skipped.
std::vector<size_t> decimate(const std::vector<double>& x, const std::vector<double>& y,
                             size_t buckets = 800);

}  // namespace orrery::report
