#include "util/inference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

namespace orrery {
namespace {

// Student's t quantiles t_{p, df} from published tables (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2,
// scipy.stats.t.ppf to 12 digits).
TEST(StudentT, QuantilesMatchTables) {
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.7062047361747, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.77644510519779, 1e-9);
  EXPECT_NEAR(student_t_quantile(0.975, 19), 2.09302405440831, 1e-9);
  EXPECT_NEAR(student_t_quantile(0.975, 30), 2.04227245630124, 1e-9);
  EXPECT_NEAR(student_t_quantile(0.95, 10), 1.81246112281168, 1e-9);
  EXPECT_NEAR(student_t_quantile(0.995, 5), 4.03214298355523, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.975, 1e7), 1.95996398454005, 1e-6);  // the normal's
  EXPECT_NEAR(student_t_quantile(0.025, 4), -2.77644510519779, 1e-9);
  EXPECT_EQ(student_t_quantile(0.5, 3), 0);
  EXPECT_TRUE(std::isnan(student_t_quantile(1, 3)));
  EXPECT_TRUE(std::isnan(student_t_quantile(0.9, 0)));
}

// Against the closed forms for 1 (Cauchy) and 2 degrees of freedom, over the whole range.
TEST(StudentT, QuantilesMatchClosedFormsForOneAndTwoDegrees) {
  for (double p = 0.001; p < 1; p += 0.0125) {
    EXPECT_NEAR(student_t_quantile(p, 1), std::tan(std::numbers::pi * (p - 0.5)),
                1e-8 * std::max(1.0, std::fabs(std::tan(std::numbers::pi * (p - 0.5)))))
        << p;
    EXPECT_NEAR(student_t_quantile(p, 2), (2 * p - 1) / std::sqrt(2 * p * (1 - p)), 1e-8) << p;
    EXPECT_NEAR(student_t_cdf(student_t_quantile(p, 7.5), 7.5), p, 1e-10) << p;
  }
}

// By hand: {1,2,3,4,5} has mean 3, sd √2.5 = 1.58113883, se = 0.70710678; the 95% half width
// is t_{0.975,4} · se = 2.77644511 · 0.70710678 = 1.96324316.
TEST(MeanCi, StudentIntervalByHand) {
  const MeanCI ci = mean_ci({5, 1, 4, 2, 3});
  EXPECT_EQ(ci.n, 5u);
  EXPECT_DOUBLE_EQ(ci.mean, 3);
  EXPECT_NEAR(ci.sd, 1.58113883008419, 1e-12);
  EXPECT_NEAR(ci.lo, 3 - 1.96324316, 1e-8);
  EXPECT_NEAR(ci.hi, 3 + 1.96324316, 1e-8);
  // NaN values are left out; one value has no interval; none has no mean.
  const MeanCI one = mean_ci({NAN, 7});
  EXPECT_EQ(one.n, 1u);
  EXPECT_EQ(one.mean, 7);
  EXPECT_TRUE(std::isnan(one.lo) && std::isnan(one.hi) && std::isnan(one.sd));
  EXPECT_TRUE(std::isnan(mean_ci({}).mean));
  // Constant values: a zero-width interval.
  const MeanCI flat = mean_ci({2, 2, 2});
  EXPECT_EQ(flat.lo, 2);
  EXPECT_EQ(flat.hi, 2);
}

// Against the binomial distribution summed from Pascal's triangle.
TEST(SignTest, ExactTwoSidedPValueAgainstPascalsTriangle) {
  EXPECT_NEAR(sign_test_p(8, 2), 2.0 * (1 + 10 + 45) / 1024, 1e-15);  // 0.109375
  EXPECT_NEAR(sign_test_p(0, 5), 2.0 / 32, 1e-15);
  EXPECT_EQ(sign_test_p(3, 3), 1.0);
  EXPECT_EQ(sign_test_p(0, 0), 1.0);
  EXPECT_TRUE(std::isnan(paired_comparison({1, 2}, {1, 2}).sign_p));  // no non-zero difference
  std::vector<std::vector<double>> pascal{{1}};
  for (size_t n = 1; n <= 40; ++n) {
    std::vector<double> row(n + 1, 1);
    for (size_t k = 1; k < n; ++k) row[k] = pascal[n - 1][k - 1] + pascal[n - 1][k];
    pascal.push_back(row);
  }
  for (size_t n = 1; n <= 40; ++n) {
    for (size_t plus = 0; plus <= n; ++plus) {
      double tail = 0;
      for (size_t k = 0; k <= std::min(plus, n - plus); ++k) tail += pascal[n][k];
      const double expected = std::min(1.0, 2 * tail / std::pow(2.0, static_cast<double>(n)));
      EXPECT_NEAR(sign_test_p(plus, n - plus), expected, 1e-12) << n << " " << plus;
    }
  }
}

TEST(PairedComparison, DifferencesOfPairsWithBothValues) {
  // b − a = {1, 2, 3, 0, −1} (the NaN pair is left out).
  const PairedComparison c = paired_comparison({1, 1, 1, 1, 1, NAN}, {2, 3, 4, 1, 0, 5});
  EXPECT_EQ(c.diff.n, 5u);
  EXPECT_DOUBLE_EQ(c.diff.mean, 1);
  EXPECT_EQ(c.plus, 3u);
  EXPECT_EQ(c.minus, 1u);
  EXPECT_EQ(c.ties, 1u);
  EXPECT_NEAR(c.sign_p, 2.0 * (1 + 4) / 16, 1e-15);  // 0.625
  // sd of {1,2,3,0,-1} = √2.5, as in the hand-computed interval above.
  EXPECT_NEAR(c.diff.hi - c.diff.mean, 1.96324316, 1e-8);
}

}  // namespace
}  // namespace orrery
