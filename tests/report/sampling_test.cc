#include "report/sampling.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/rng.h"
#include "sim/metrics.h"

namespace orrery::report {
namespace {

// The exact ECDF at x: fraction of values <= x.
double ecdf(const std::vector<double>& sorted, double x) {
  return static_cast<double>(std::upper_bound(sorted.begin(), sorted.end(), x) - sorted.begin()) /
         static_cast<double>(sorted.size());
}

// The drawn (step-after) curve at x: f of the last kept point with point.x <= x.
double curve(const std::vector<CdfPoint>& pts, double x) {
  double f = 0;
  for (const CdfPoint& p : pts) {
    if (p.x > x) break;
    f = p.f;
  }
  return f;
}

std::vector<double> lognormal_sample(size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<double> v(n);
  for (double& x : v) x = rng.lognormal(-3, 2.5);  // ~1 ms .. 100 s
  std::sort(v.begin(), v.end());
  return v;
}

TEST(Sampling, PercentileMatchesTheSimulatorsNumpyDefinition) {
  Rng rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> v(1 + rng.below(40));
    for (double& x : v) x = rng.uniform(-5, 5);
    std::sort(v.begin(), v.end());
    for (double p : {0.0, 12.5, 50.0, 90.0, 99.0, 100.0})
      EXPECT_DOUBLE_EQ(percentile_sorted(v, p), sim::percentile_sorted(v, p));
  }
  EXPECT_TRUE(std::isnan(percentile_sorted({}, 50)));
}

TEST(Sampling, SmallInputsGiveTheExactEcdfCorners) {
  // Property: against brute force on small random samples with many duplicates.
  Rng rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> v(1 + rng.below(60));
    for (double& x : v) x = static_cast<double>(rng.below(12)) * 0.5;
    std::sort(v.begin(), v.end());
    std::vector<double> distinct = v;
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    const std::vector<CdfPoint> pts = cdf_points(v, 512, false);
    ASSERT_EQ(pts.size(), distinct.size());
    for (size_t i = 0; i < pts.size(); ++i) {
      EXPECT_EQ(pts[i].x, distinct[i]);
      EXPECT_DOUBLE_EQ(pts[i].f, ecdf(v, distinct[i]));
    }
  }
  EXPECT_TRUE(cdf_points({}, 512).empty());
}

TEST(Sampling, LargeCdfIsBoundedAndKeepsExtremesAndPercentiles) {
  const size_t n = 500000;
  const std::vector<double> v = lognormal_sample(n, 3);
  const size_t max_points = 512;
  const std::vector<CdfPoint> pts = cdf_points(v, max_points, true);
  EXPECT_LE(pts.size(), max_points + 2 * 8 * 6 + 20);
  EXPECT_GE(pts.size(), max_points / 2);
  // Every kept point lies exactly on the ECDF; x strictly increases.
  for (size_t i = 0; i < pts.size(); ++i) {
    EXPECT_DOUBLE_EQ(pts[i].f, ecdf(v, pts[i].x));
    if (i > 0) {
      EXPECT_GT(pts[i].x, pts[i - 1].x);
    }
  }
  EXPECT_EQ(pts.front().x, v.front());
  EXPECT_EQ(pts.back().x, v.back());
  EXPECT_DOUBLE_EQ(pts.back().f, 1.0);
  // Both order statistics around each numpy percentile are kept, so the curve is exact there.
  for (double p : {50.0, 90.0, 99.0, 99.9}) {
    const double rank = p / 100 * static_cast<double>(n - 1);
    for (size_t i : {static_cast<size_t>(std::floor(rank)), static_cast<size_t>(std::ceil(rank))}) {
      const bool kept =
          std::any_of(pts.begin(), pts.end(), [&](const CdfPoint& q) { return q.x == v[i]; });
      EXPECT_TRUE(kept) << "p" << p << " neighbour " << i;
      EXPECT_DOUBLE_EQ(curve(pts, v[i]), ecdf(v, v[i]));
    }
  }
}

TEST(Sampling, DownsampledCurveStaysCloseInTheBodyAndRelativeInTheTails) {
  const size_t n = 200000;
  const std::vector<double> v = lognormal_sample(n, 5);
  const size_t max_points = 400;
  const std::vector<CdfPoint> pts = cdf_points(v, max_points, true);
  const double body_tolerance = 1.0 / static_cast<double>(max_points / 2) + 1.0 / n;
  for (size_t i = 0; i < n; i += 97) {
    const double truth = ecdf(v, v[i]), drawn = curve(pts, v[i]);
    EXPECT_LE(drawn, truth + 1e-12);  // never above the truth
    EXPECT_LE(truth - drawn, body_tolerance) << "at rank " << i;
  }
  // In each tail the drawn mass beyond x is within a factor 10^(1/8) (8 points per decade).
  for (size_t i = n - n / 100; i < n; ++i) {
    const double true_above = static_cast<double>(n) * (1 - ecdf(v, v[i]));
    const double drawn_above = static_cast<double>(n) * (1 - curve(pts, v[i]));
    EXPECT_LE(drawn_above + 1, std::pow(10.0, 1.0 / 8) * (true_above + 1) + 1.0001)
        << "at rank " << i;
  }
  for (size_t i = 0; i < n / 100; ++i) {
    const double true_below = static_cast<double>(n) * ecdf(v, v[i]);
    const double drawn_below = static_cast<double>(n) * curve(pts, v[i]);
    EXPECT_LE(true_below, std::pow(10.0, 1.0 / 8) * (drawn_below + 1) + 1.0001) << "at rank " << i;
  }
}

TEST(Sampling, CdfIsDeterministic) {
  const std::vector<double> v = lognormal_sample(50000, 9);
  const auto a = cdf_points(v, 300, true), b = cdf_points(v, 300, true);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].x, b[i].x);
    EXPECT_EQ(a[i].f, b[i].f);
  }
}

TEST(Sampling, DecimateKeepsEveryColumnsExtremes) {
  const size_t n = 100000, buckets = 100;
  std::vector<double> x(n), y(n);
  Rng rng(13);
  for (size_t i = 0; i < n; ++i) {
    x[i] = static_cast<double>(i);
    y[i] = std::sin(static_cast<double>(i) / 500) + rng.uniform(-0.1, 0.1);
  }
  y[12345] = 50;   // a spike
  y[54321] = -50;  // a dip
  y[777] = std::nan("");
  const std::vector<size_t> idx = decimate(x, y, buckets);
  EXPECT_LE(idx.size(), 4 * (buckets + 1));
  EXPECT_TRUE(std::is_sorted(idx.begin(), idx.end()));
  EXPECT_EQ(std::adjacent_find(idx.begin(), idx.end()), idx.end());
  EXPECT_NE(std::find(idx.begin(), idx.end(), 12345u), idx.end());
  EXPECT_NE(std::find(idx.begin(), idx.end(), 54321u), idx.end());
  EXPECT_EQ(std::find(idx.begin(), idx.end(), 777u), idx.end());
  EXPECT_EQ(idx.front(), 0u);
  EXPECT_EQ(idx.back(), n - 1);
  // Per bucket, min and max of the kept points equal those of all points.
  const double width = static_cast<double>(n - 1) / buckets;
  for (size_t b = 0; b < buckets; b += 7) {
    double lo = 1e9, hi = -1e9, klo = 1e9, khi = -1e9;
    for (size_t i = 0; i < n; ++i)
      if (std::floor(x[i] / width) == static_cast<double>(b) && !std::isnan(y[i])) {
        lo = std::min(lo, y[i]);
        hi = std::max(hi, y[i]);
      }
    for (size_t i : idx)
      if (std::floor(x[i] / width) == static_cast<double>(b)) {
        klo = std::min(klo, y[i]);
        khi = std::max(khi, y[i]);
      }
    EXPECT_EQ(lo, klo);
    EXPECT_EQ(hi, khi);
  }
  // Small series are returned whole (minus NaNs).
  EXPECT_EQ(decimate({0, 1, 2}, {1, std::nan(""), 3}, 100), (std::vector<size_t>{0, 2}));
}

}  // namespace
}  // namespace orrery::report
