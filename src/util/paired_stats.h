// Confidence intervals over seeds and paired comparisons of two schedulers run on the same seeds,
// for the reproductions' reports (`orrery repro kubedsm`, `orrery repro federated`).
#pragma once

#include <cstddef>
#include <vector>

namespace orrery {

// The 97.5 % quantile of Student's t with `df` degrees of freedom (two-sided 95 %), i.e.
// student_t_quantile(0.975, df) of util/inference.h. NaN for df = 0.
double t_quantile_975(size_t df);

// Mean and half-width of its 95 % confidence interval (Student t, sample standard deviation).
// half is NaN with fewer than two values; mean is NaN for none.
struct MeanCi {
  size_t n = 0;
  double mean = 0;
  double half = 0;
};
MeanCi mean_ci95(const std::vector<double>& values);

// Paired comparison of a[i] against b[i] (same seed i): the mean difference a − b with its 95 %
// confidence interval, and the exact two-sided sign test on the signs of the differences (ties,
// |a − b| <= 1e-12, are dropped): p = min(1, 2 · P[Binomial(wins + losses, 1/2) <= min(wins,
// losses)]). Throws std::invalid_argument when the sizes differ.
struct PairedTest {
  size_t n = 0, wins = 0, losses = 0, ties = 0;
  MeanCi diff;
  double sign_p = 1;
};
PairedTest paired_test(const std::vector<double>& a, const std::vector<double>& b);

// Unpaired comparison of two independent samples (Welch): the difference of their means a − b and
// the half-width of its 95 % confidence interval with Welch–Satterthwaite degrees of freedom
// (diff.n = a.size() + b.size()), and the two-sided p of the t test. diff.half and df are NaN and
// p is 1 when either sample has fewer than two values or neither has any spread.
struct WelchTest {
  MeanCi diff;
  double df = 0;
  double p = 1;
};
WelchTest welch_test(const std::vector<double>& a, const std::vector<double>& b);

// The two-sided p of a paired t test on `t`'s differences: 1 when they are all 0, 0 when they
// are all the same non-zero value.
double paired_t_p(const PairedTest& t);

// Holm's step-down adjustment (family-wise error) of a family of p-values, in the given order.
std::vector<double> holm_adjust(const std::vector<double>& p);

// The exact two-sided sign-test p-value for `wins` and `losses` (ties excluded).
double sign_test_p(size_t wins, size_t losses);

}  // namespace orrery
