#include "report/axis.h"

#include <gtest/gtest.h>

#include <cmath>

namespace orrery::report {
namespace {

std::vector<std::string> labels(const Scale& s) {
  std::vector<std::string> out;
  for (const Tick& t : s.ticks())
    if (!t.label.empty()) out.push_back(t.label);
  return out;
}

TEST(Axis, NiceStepsAreOneTwoTwoAndAHalfOrFiveTimesAPowerOfTen) {
  EXPECT_DOUBLE_EQ(nice_step(10, 5), 2);
  EXPECT_DOUBLE_EQ(nice_step(1, 5), 0.2);
  EXPECT_DOUBLE_EQ(nice_step(100, 4), 25);
  EXPECT_DOUBLE_EQ(nice_step(7, 6), 2);
  EXPECT_DOUBLE_EQ(nice_step(0.003, 3), 0.001);
  EXPECT_DOUBLE_EQ(nice_step(0, 5), 1);  // degenerate input stays usable
}

TEST(Axis, LinearDomainExtendsToWholeTicks) {
  Scale s(Axis{"x"}, 0.3, 9.7, 100, 600, 5);
  EXPECT_DOUBLE_EQ(s.lo(), 0);
  EXPECT_DOUBLE_EQ(s.hi(), 10);
  EXPECT_EQ(labels(s), (std::vector<std::string>{"0", "2", "4", "6", "8", "10"}));
  EXPECT_DOUBLE_EQ(s(0), 100);
  EXPECT_DOUBLE_EQ(s(10), 600);
  EXPECT_DOUBLE_EQ(s(5), 350);
}

TEST(Axis, FixedLimitsAndZeroAreRespected) {
  Axis a{"util", Format::kPercent};
  a.min = 0;
  a.max = 1;
  Scale s(a, 0.2, 0.7, 0, 1, 5);
  EXPECT_DOUBLE_EQ(s.lo(), 0);
  EXPECT_DOUBLE_EQ(s.hi(), 1);
  EXPECT_EQ(labels(s), (std::vector<std::string>{"0%", "20%", "40%", "60%", "80%", "100%"}));
  Axis z{"count"};
  z.include_zero = true;
  Scale sz(z, 40, 90, 0, 1, 5);
  EXPECT_DOUBLE_EQ(sz.lo(), 0);
  EXPECT_GE(sz.hi(), 90);
}

TEST(Axis, TightAxesKeepTheDataRangeWithTicksInside) {
  Axis a{"time", Format::kSeconds};
  a.tight = true;
  Scale s(a, 3, 1079, 0, 1, 5);
  EXPECT_DOUBLE_EQ(s.lo(), 3);
  EXPECT_DOUBLE_EQ(s.hi(), 1079);
  EXPECT_EQ(labels(s), (std::vector<std::string>{"250 s", "500 s", "750 s", "1000 s"}));
}

TEST(Axis, TickLabelsShareDecimalsAndShortenLargeNumbers) {
  Scale s(Axis{"v"}, 0, 1, 0, 1, 4);  // step 0.25
  EXPECT_EQ(labels(s), (std::vector<std::string>{"0", "0.25", "0.5", "0.75", "1"}));
  Scale big(Axis{"events"}, 0, 50000, 0, 1, 5);
  EXPECT_EQ(labels(big), (std::vector<std::string>{"0", "10k", "20k", "30k", "40k", "50k"}));
  Axis secs{"time", Format::kSeconds};
  Scale t(secs, 0, 0.5, 0, 1, 5);
  EXPECT_EQ(labels(t).back(), "500 ms");
}

TEST(Axis, ConstantDataStillGetsAUsableRange) {
  Scale s(Axis{"v"}, 3, 3, 0, 1, 5);
  EXPECT_LT(s.lo(), 3);
  EXPECT_GT(s.hi(), 3);
  Scale none(Axis{"v"}, std::nan(""), std::nan(""), 0, 1, 5);
  EXPECT_LT(none.lo(), none.hi());
}

TEST(Axis, LogAxisHasDecadeTicksWithUnits) {
  Axis a{"delay", Format::kSeconds, true};
  Scale s(a, 0.0013, 42, 0, 500);
  EXPECT_DOUBLE_EQ(s.lo(), 0.001);
  EXPECT_DOUBLE_EQ(s.hi(), 100);
  EXPECT_EQ(labels(s),
            (std::vector<std::string>{"1 ms", "10 ms", "100 ms", "1 s", "10 s", "100 s"}));
  EXPECT_NEAR(s(0.001), 0, 1e-9);
  EXPECT_NEAR(s(100), 500, 1e-9);
  EXPECT_NEAR(s(0.1), 200, 1e-9);  // two of five decades
  EXPECT_NEAR(s(0), 0, 1e-9);      // non-positive values sit at the minimum
  EXPECT_NEAR(s(-3), 0, 1e-9);
  // Minor ticks (2..9 x 10^k) are present as unlabelled gridlines.
  EXPECT_GT(s.ticks().size(), labels(s).size() + 30);
}

TEST(Axis, SingleDecadeLogAxisLabelsTwoAndFive) {
  Scale s(Axis{"x", Format::kNumber, true}, 1.5, 8, 0, 1);
  EXPECT_EQ(labels(s), (std::vector<std::string>{"1", "2", "5", "10"}));
}

TEST(Axis, ManyDecadesThinOutLabels) {
  Scale s(Axis{"x", Format::kNumber, true}, 1e-6, 1e12, 0, 1);
  EXPECT_LE(labels(s).size(), 10u);
  EXPECT_GE(labels(s).size(), 6u);
  EXPECT_EQ(labels(s).front(), "1e-06");
}

}  // namespace
}  // namespace orrery::report
