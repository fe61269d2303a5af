// Small-sample inference for comparing policies over seeds (`orrery compare --seeds`): exact
// Student-t quantiles and confidence intervals of a mean at any level, paired differences, and
// the exact two-sided sign test (util/paired_stats.h, whose 95 % intervals use the same
// quantiles). Values that are NaN (a statistic of an empty set in some run) are left out; a pair
// is used only when both values exist.
#pragma once

#include <cstddef>
#include <vector>

#include "util/paired_stats.h"

namespace orrery {

// The p-quantile of Student's t distribution with `df` > 0 degrees of freedom (p in (0, 1)),
// from the regularized incomplete beta function, to about 1e-10.
double student_t_quantile(double p, double df);
// P(T <= t) for Student's t with `df` degrees of freedom.
double student_t_cdf(double t, double df);

// Mean and its two-sided confidence interval mean ± t_{(1+level)/2, n-1} · sd / √n. sd is the
// sample standard deviation (n − 1). With fewer than two values, sd, lo and hi are NaN; with
// none, mean is NaN too.
struct MeanCI {
  size_t n = 0;
  double mean, sd, lo, hi;
};
MeanCI mean_ci(const std::vector<double>& values, double level = 0.95);

// The exact two-sided sign test is util/paired_stats.h's sign_test_p(plus, minus):
// p = min(1, 2 · P(X <= min(plus, minus))) for X ~ Binomial(plus + minus, 1/2).

// Paired comparison of b against a (same seeds, same order): the differences b_i − a_i with
// their mean and CI, and how many were positive, negative or zero, with the sign test's p (NaN
// when no difference is non-zero).
struct PairedComparison {
  MeanCI diff;
  size_t plus = 0, minus = 0, ties = 0;
  double sign_p;
};
PairedComparison paired_comparison(const std::vector<double>& a, const std::vector<double>& b,
                                   double level = 0.95);

}  // namespace orrery
