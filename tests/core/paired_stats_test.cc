#include "util/paired_stats.h"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

namespace orrery {
namespace {

TEST(PairedStats, TQuantileMatchesTables) {
  EXPECT_NEAR(t_quantile_975(1), 12.706, 1e-3);
  EXPECT_NEAR(t_quantile_975(9), 2.262, 1e-3);
  EXPECT_NEAR(t_quantile_975(19), 2.093, 1e-3);
  // t(40) = 2.021, t(60) = 2.000, t(120) = 1.980 (printed tables); the exact t(9) = 2.2621572.
  EXPECT_NEAR(t_quantile_975(9), 2.2621571628, 1e-8);
  EXPECT_NEAR(t_quantile_975(40), 2.021, 1e-3);
  EXPECT_NEAR(t_quantile_975(60), 2.000, 1e-3);
  EXPECT_NEAR(t_quantile_975(120), 1.980, 1e-3);
  EXPECT_TRUE(std::isnan(t_quantile_975(0)));
}

TEST(PairedStats, MeanCiByHand) {
  // 1, 2, 3, 4, 5: mean 3, sd sqrt(2.5), half = t(0.975, 4) * sqrt(2.5) / sqrt(5), t = 2.7764451.
  const MeanCi c = mean_ci95({1, 2, 3, 4, 5});
  EXPECT_EQ(c.n, 5u);
  EXPECT_DOUBLE_EQ(c.mean, 3.0);
  EXPECT_NEAR(c.half, 2.7764451052 * std::sqrt(2.5) / std::sqrt(5.0), 1e-9);
  EXPECT_TRUE(std::isnan(mean_ci95({7}).half));
  EXPECT_DOUBLE_EQ(mean_ci95({7}).mean, 7.0);
  EXPECT_TRUE(std::isnan(mean_ci95({}).mean));
}

TEST(PairedStats, SignTestExactValues) {
  EXPECT_DOUBLE_EQ(sign_test_p(0, 0), 1.0);
  // 10 wins of 10: 2 / 2^10.
  EXPECT_NEAR(sign_test_p(10, 0), 2.0 / 1024, 1e-12);
  EXPECT_NEAR(sign_test_p(0, 10), 2.0 / 1024, 1e-12);
  // 8 of 10: 2 * (1 + 10 + 45) / 1024 = 0.109375.
  EXPECT_NEAR(sign_test_p(8, 2), 0.109375, 1e-12);
  EXPECT_DOUBLE_EQ(sign_test_p(5, 5), 1.0);
  // Large n stays finite: 20 of 20.
  EXPECT_NEAR(sign_test_p(20, 0), 2.0 / 1048576, 1e-15);
}

TEST(PairedStats, PairedTestCountsAndDifference) {
  const PairedTest t = paired_test({0.8, 0.7, 0.9, 0.6}, {0.7, 0.7, 0.5, 0.65});
  EXPECT_EQ(t.n, 4u);
  EXPECT_EQ(t.wins, 2u);
  EXPECT_EQ(t.losses, 1u);
  EXPECT_EQ(t.ties, 1u);
  EXPECT_NEAR(t.diff.mean, (0.1 + 0 + 0.4 - 0.05) / 4, 1e-12);
  EXPECT_NEAR(t.sign_p, 1.0, 1e-12);  // 2 * P[X <= 1 | n = 3] = 2 * 4/8
  EXPECT_THROW(paired_test({1}, {1, 2}), std::invalid_argument);
}

TEST(PairedStats, WelchDifferenceByHand) {
  // Equal sizes and variances (1 each): se² = 1/3 + 1/3, Welch df = (2/3)² / (2 · (1/3)² / 2) = 4,
  // t(0.975, 4) = 2.776445 (tables), half = 2.776445 · √(2/3) = 2.266951; t = 3 / √(2/3) = 3.674,
  // between the tables' 0.99 (3.747) and 0.975 (2.776) quantiles of t(4): 0.02 < p < 0.05.
  const WelchTest w = welch_test({1, 2, 3}, {4, 5, 6});
  EXPECT_EQ(w.diff.n, 6u);
  EXPECT_DOUBLE_EQ(w.diff.mean, -3.0);
  EXPECT_NEAR(w.df, 4.0, 1e-12);
  EXPECT_NEAR(w.diff.half, 2.266951, 1e-5);
  EXPECT_GT(w.p, 0.02);
  EXPECT_LT(w.p, 0.05);
  // Unequal spreads: the degrees of freedom lie between the smaller sample's n − 1 and the pooled
  // na + nb − 2, so the half-width lies between the two t quantiles times the standard error.
  const std::vector<double> a = {1, 2, 3, 4, 5}, b = {2, 4, 9};
  const double se = std::sqrt(2.5 / 5 + 13.0 / 3);
  const WelchTest u = welch_test(a, b);
  EXPECT_DOUBLE_EQ(u.diff.mean, 3.0 - 5.0);
  EXPECT_GT(u.df, 2.0);
  EXPECT_LT(u.df, 6.0);
  EXPECT_GT(u.diff.half, t_quantile_975(6) * se);
  EXPECT_LT(u.diff.half, t_quantile_975(2) * se);
  EXPECT_GT(u.p, 0.05);  // |t| = 2 / 2.2 < 1
  // Too few values, or no spread at all: no interval, p 1.
  EXPECT_TRUE(std::isnan(welch_test({1}, {2, 3}).diff.half));
  EXPECT_TRUE(std::isnan(welch_test({1, 1}, {2, 2}).diff.half));
  EXPECT_DOUBLE_EQ(welch_test({1, 1}, {2, 2}).diff.mean, -1.0);
  EXPECT_DOUBLE_EQ(welch_test({1, 1}, {2, 2}).p, 1.0);
}

TEST(PairedStats, PairedTPAndHolmByHand) {
  // Differences 1, 2, 3: mean 2, sd 1, t = 2 / (1 / √3) = 3.464 with 2 df, two-sided p =
  // 0.0742 (t(2) has P(|T| > t) = 1 − t / √(t² + 2) = 1 − 3.464 / 3.742 = 0.0742).
  EXPECT_NEAR(paired_t_p(paired_test({2, 4, 6}, {1, 2, 3})), 0.0742, 1e-4);
  EXPECT_DOUBLE_EQ(paired_t_p(paired_test({1, 2}, {1, 2})), 1.0);  // all ties
  EXPECT_DOUBLE_EQ(paired_t_p(paired_test({2, 3}, {1, 2})), 0.0);  // the same difference
  // Holm: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04, made
  // monotone (0.04 → 0.06), back in the given order.
  const std::vector<double> h = holm_adjust({0.01, 0.04, 0.03, 0.005});
  ASSERT_EQ(h.size(), 4u);
  EXPECT_NEAR(h[0], 0.03, 1e-12);
  EXPECT_NEAR(h[1], 0.06, 1e-12);
  EXPECT_NEAR(h[2], 0.06, 1e-12);
  EXPECT_NEAR(h[3], 0.02, 1e-12);
  EXPECT_DOUBLE_EQ(holm_adjust({0.6, 0.7})[1], 1.0);  // capped at 1
}

}  // namespace
}  // namespace orrery
