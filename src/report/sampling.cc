#include "report/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace orrery::report {

std::vector<CdfPoint> cdf_points(const std::vector<double>& v, size_t max_points, bool log_x) {
  const size_t n = v.size();
  if (n == 0) return {};
  std::vector<size_t> idx;
  auto add = [&](size_t i) { idx.push_back(std::min(i, n - 1)); };
  add(0);
  add(n - 1);
  // Both neighbours of each reported percentile's rank (numpy interpolates between them).
  for (double p : {50.0, 90.0, 99.0, 99.9}) {
    const double rank = p / 100.0 * static_cast<double>(n - 1);
    add(static_cast<size_t>(std::floor(rank)));
    add(static_cast<size_t>(std::ceil(rank)));
  }
  // Evenly spaced ranks: the body of the distribution.
  const size_t rank_steps = std::max<size_t>(2, max_points / 2);
  for (size_t k = 0; k <= rank_steps; ++k)
    add(static_cast<size_t>(static_cast<double>(k) / static_cast<double>(rank_steps) *
                            static_cast<double>(n - 1)));
  // Log-spaced ranks from each end: 8 per decade, down to single values.
  for (int j = 0;; ++j) {
    const double tail = static_cast<double>(n) * std::pow(10.0, -j / 8.0);
    if (tail < 1) break;
    const size_t t = static_cast<size_t>(std::ceil(tail));
    add(t - 1);  // lower tail
    add(n - t);  // upper tail
  }
  // Both sides of each x-grid line, so large gaps between values stay visible.
  const bool logx = log_x && v.front() > 0;
  const double x0 = logx ? std::log10(v.front()) : v.front();
  const double x1 = logx ? std::log10(v.back()) : v.back();
  const size_t x_steps = std::max<size_t>(1, max_points / 4);
  if (x1 > x0) {
    for (size_t k = 1; k < x_steps; ++k) {
      const double g = x0 + (x1 - x0) * static_cast<double>(k) / static_cast<double>(x_steps);
      const double edge = logx ? std::pow(10.0, g) : g;
      const size_t i = static_cast<size_t>(std::lower_bound(v.begin(), v.end(), edge) - v.begin());
      add(i);
      if (i > 0) add(i - 1);
    }
  }
  // A corner of the ECDF is the last occurrence of its value.
  for (size_t& i : idx)
    i = static_cast<size_t>(
            std::upper_bound(v.begin() + static_cast<std::ptrdiff_t>(i), v.end(), v[i]) -
            v.begin()) -
        1;
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  std::vector<CdfPoint> out;
  out.reserve(idx.size());
  for (size_t i : idx) out.push_back({v[i], static_cast<double>(i + 1) / static_cast<double>(n)});
  return out;
}

std::vector<size_t> decimate(const std::vector<double>& x, const std::vector<double>& y,
                             size_t buckets) {
  const size_t n = std::min(x.size(), y.size());
  std::vector<size_t> out;
  if (n <= 4 * std::max<size_t>(1, buckets)) {
    for (size_t i = 0; i < n; ++i)
      if (!std::isnan(y[i]) && std::isfinite(x[i])) out.push_back(i);
    return out;
  }
  const double x0 = x.front(), x1 = x.back();
  const double width = x1 > x0 ? (x1 - x0) / static_cast<double>(buckets) : 1;
  size_t i = 0;
  while (i < n) {
    if (std::isnan(y[i]) || !std::isfinite(x[i])) {
      ++i;
      continue;
    }
    const double b = std::floor((x[i] - x0) / width);
    size_t first = i, last = i, lo = i, hi = i;
    for (++i; i < n && std::floor((x[i] - x0) / width) == b; ++i) {
      if (std::isnan(y[i]) || !std::isfinite(x[i])) continue;
      last = i;
      if (y[i] < y[lo]) lo = i;
      if (y[i] > y[hi]) hi = i;
    }
    size_t pick[4] = {first, lo, hi, last};
    std::sort(pick, pick + 4);
    for (size_t k = 0; k < 4; ++k)
      if (out.empty() || out.back() != pick[k]) out.push_back(pick[k]);
  }
  return out;
}

}  // namespace orrery::report
