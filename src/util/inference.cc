#include "util/inference.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace orrery {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Continued fraction of the regularized incomplete beta function (modified Lentz's method).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300, kEps = 1e-15;
  const double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 1000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < kEps) break;
  }
  return h;
}

// I_x(a, b).
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  // The continued fraction converges fast for x < (a + 1) / (a + b + 2); use symmetry otherwise.
  if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(a, b, x) / a;
  return 1 - front * beta_continued_fraction(b, a, 1 - x) / b;
}

}  // namespace

double student_t_cdf(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return kNaN;
  const double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
  return t >= 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) return kNaN;
  if (p == 0.5) return 0;
  if (p < 0.5) return -student_t_quantile(1 - p, df);
  // Bisection on [0, hi]: the CDF is increasing; widen hi until it brackets p.
  double lo = 0, hi = 1;
  while (student_t_cdf(hi, df) < p && hi < 1e12) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * std::max(1.0, hi); ++i) {
    const double mid = (lo + hi) / 2;
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

MeanCI mean_ci(const std::vector<double>& values, double level) {
  std::vector<double> v;
  for (double x : values)
    if (!std::isnan(x)) v.push_back(x);
  MeanCI out{v.size(), kNaN, kNaN, kNaN, kNaN};
  if (v.empty()) return out;
  // Summed in sorted order, so the result does not depend on the order of the seeds.
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  out.mean = sum / static_cast<double>(v.size());
  if (v.size() < 2) return out;
  double ss = 0;
  for (double x : v) ss += (x - out.mean) * (x - out.mean);
  const double n = static_cast<double>(v.size());
  out.sd = std::sqrt(ss / (n - 1));
  const double half = student_t_quantile((1 + level) / 2, n - 1) * out.sd / std::sqrt(n);
  out.lo = out.mean - half;
  out.hi = out.mean + half;
  return out;
}

PairedComparison paired_comparison(const std::vector<double>& a, const std::vector<double>& b,
                                   double level) {
  PairedComparison out;
  std::vector<double> diffs;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) continue;
    const double d = b[i] - a[i];
    diffs.push_back(d);
    if (d > 0) {
      ++out.plus;
    } else if (d < 0) {
      ++out.minus;
    } else {
      ++out.ties;
    }
  }
  out.diff = mean_ci(diffs, level);
  out.sign_p = out.plus + out.minus == 0 ? kNaN : sign_test_p(out.plus, out.minus);
  return out;
}

}  // namespace orrery
