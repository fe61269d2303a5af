#include "sim/metrics.h"

#include <gtest/gtest.h>

namespace orrery::sim {
namespace {

TEST(Metrics, PercentilesMatchNumpyLinear) {
  // numpy.percentile([1, 2, 3, 4], [50, 90, 99]) == [2.5, 3.7, 3.97]
  std::vector<double> v{1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 50), 2.5);
  EXPECT_NEAR(percentile_sorted(v, 90), 3.7, 1e-12);
  EXPECT_NEAR(percentile_sorted(v, 99), 3.97, 1e-12);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 100), 4);
  EXPECT_DOUBLE_EQ(percentile_sorted({7}, 99), 7);
}

TEST(Metrics, JobDelayIsJrtMinusLongestTask) {
  std::vector<JobRecord> jobs{{1, 0, kSecond, kSecond + 1500, 2, false},
                              {2, kSecond, 2 * kSecond, 4 * kSecond, 1, true}};
  EXPECT_NEAR(jobs[0].delay_s(), 0.0015, 1e-12);
  EXPECT_NEAR(jobs[1].delay_s(), 1.0, 1e-12);
  Json s = jobs_summary(jobs);
  EXPECT_EQ(s["count"], 2);
  EXPECT_NEAR(s["delay_mean_s"].get<double>(), (0.0015 + 1.0) / 2, 1e-12);
  EXPECT_EQ(jobs_csv(jobs),
            "job,arrival_s,tasks,ideal_s,jrt_s,delay_s,short\n"
            "1,0,2,1,1.0015,0.0015,0\n2,1,1,2,3,1,1\n");
}

}  // namespace
}  // namespace orrery::sim
