#include "util/paired_stats.h"

#include "util/inference.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace orrery {

double t_quantile_975(size_t df) {
  return df == 0 ? std::nan("") : student_t_quantile(0.975, static_cast<double>(df));
}

MeanCi mean_ci95(const std::vector<double>& values) {
  MeanCi r;
  r.n = values.size();
  if (values.empty()) {
    r.mean = r.half = std::nan("");
    return r;
  }
  double s = 0;
  for (double v : values) s += v;
  r.mean = s / static_cast<double>(r.n);
  if (r.n < 2) {
    r.half = std::nan("");
    return r;
  }
  double ss = 0;
  for (double v : values) ss += (v - r.mean) * (v - r.mean);
  const double sd = std::sqrt(ss / static_cast<double>(r.n - 1));
  r.half = t_quantile_975(r.n - 1) * sd / std::sqrt(static_cast<double>(r.n));
  return r;
}

WelchTest welch_test(const std::vector<double>& a, const std::vector<double>& b) {
  // Mean and variance of the mean of one sample.
  auto moments = [](const std::vector<double>& v) {
    double sum = 0, ss = 0;
    for (double x : v) sum += x;
    const double mean = v.empty() ? std::nan("") : sum / static_cast<double>(v.size());
    for (double x : v) ss += (x - mean) * (x - mean);
    const double n = static_cast<double>(v.size());
    return std::pair{mean, v.size() < 2 ? 0.0 : ss / (n - 1) / n};
  };
  const auto [ma, va] = moments(a);
  const auto [mb, vb] = moments(b);
  WelchTest r;
  r.diff.n = a.size() + b.size();
  r.diff.mean = ma - mb;
  r.diff.half = r.df = std::nan("");
  if (a.size() < 2 || b.size() < 2 || va + vb <= 0) return r;
  r.df =
      (va + vb) * (va + vb) /
      (va * va / static_cast<double>(a.size() - 1) + vb * vb / static_cast<double>(b.size() - 1));
  r.diff.half = student_t_quantile(0.975, r.df) * std::sqrt(va + vb);
  r.p = 2 * (1 - student_t_cdf(std::abs(r.diff.mean) / std::sqrt(va + vb), r.df));
  return r;
}

double paired_t_p(const PairedTest& t) {
  if (t.n < 2 || !std::isfinite(t.diff.half)) return 1.0;
  if (t.diff.half <= 0) return t.diff.mean == 0 ? 1.0 : 0.0;
  const double se = t.diff.half / t_quantile_975(t.n - 1);
  return 2 * (1 - student_t_cdf(std::abs(t.diff.mean) / se, static_cast<double>(t.n - 1)));
}

std::vector<double> holm_adjust(const std::vector<double>& p) {
  std::vector<size_t> order(p.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return p[x] < p[y]; });
  std::vector<double> out(p.size());
  double running = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    running = std::max(running, std::min(1.0, static_cast<double>(p.size() - k) * p[order[k]]));
    out[order[k]] = running;
  }
  return out;
}

double sign_test_p(size_t wins, size_t losses) {
  const size_t n = wins + losses;
  if (n == 0) return 1.0;
  const size_t k = std::min(wins, losses);
  // P[X <= k] for X ~ Binomial(n, 1/2), summed in log space so large n stays finite.
  double cdf = 0;
  for (size_t i = 0; i <= k; ++i)
    cdf += std::exp(
        std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(i) + 1) -
        std::lgamma(static_cast<double>(n - i) + 1) - static_cast<double>(n) * std::log(2.0));
  return std::min(1.0, 2 * cdf);
}

PairedTest paired_test(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size())
    throw std::invalid_argument("paired_test: the two samples have different sizes");
  PairedTest t;
  t.n = a.size();
  std::vector<double> d;
  d.reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const double x = a[i] - b[i];
    d.push_back(x);
    if (std::abs(x) <= 1e-12)
      ++t.ties;
    else if (x > 0)
      ++t.wins;
    else
      ++t.losses;
  }
  t.diff = mean_ci95(d);
  t.sign_p = sign_test_p(t.wins, t.losses);
  return t;
}

}  // namespace orrery
