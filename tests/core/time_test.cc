// Conversions of doubles to microseconds saturate instead of overflowing (core/time.h); a
// distribution's time draws go through them (util/distribution.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/time.h"
#include "util/distribution.h"

namespace orrery {
namespace {

TEST(Time, SecondsRoundsToWholeMicroseconds) {
  EXPECT_EQ(seconds(1.5), 1'500'000);
  EXPECT_EQ(seconds(0.0000014), 1);
  EXPECT_EQ(seconds(-0.0000016), -2);
  EXPECT_EQ(seconds(0), 0);
}

TEST(Time, SecondsBeyondInt64SaturateAtTheCap) {
  EXPECT_EQ(seconds(1e308), kTimeCap);
  EXPECT_EQ(seconds(9223372036854775808.0), kTimeCap);
  EXPECT_EQ(seconds(std::numeric_limits<double>::infinity()), kTimeCap);
  EXPECT_EQ(seconds(-1e308), -kTimeCap);
  EXPECT_EQ(seconds(std::nan("")), 0);
  // Just below the cap converts exactly; two capped times add without overflow.
  EXPECT_EQ(saturating_time(4611686018427387904.0 - 1024.0), kTimeCap + 1 - 1024);
  EXPECT_EQ(saturating_time(4611686018427387904.0), kTimeCap);
  EXPECT_EQ(kTimeCap + kTimeCap, std::numeric_limits<Time>::max() - 1);
  // The largest trace time (sim/trace.cc, 4e12 s) is below the cap.
  EXPECT_EQ(seconds(4e12), Time{4'000'000'000'000'000'000});
}

TEST(Time, HugeDistributionDrawsSaturate) {
  Rng rng(7);
  const Dist wild = Dist::lognormal(3.6e9, 200);  // median 1 h, e^(200 z)
  bool capped = false;
  for (int i = 0; i < 200; ++i) {
    const Time t = wild.sample_time(rng);
    EXPECT_GE(t, 0);
    EXPECT_LE(t, kTimeCap);
    capped = capped || t == kTimeCap;
  }
  EXPECT_TRUE(capped) << "sigma 200 draws beyond the cap about half the time";
  EXPECT_EQ(Dist::constant(1e300).sample_time(rng), kTimeCap);
}

}  // namespace
}  // namespace orrery
