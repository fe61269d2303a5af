#include "obs/metrics.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <thread>

namespace orrery::obs {
namespace {

TEST(Metrics, CounterWithLabelsRendersHelpTypeAndSamples) {
  Registry r;
  CounterFamily& attempts =
      r.counter("scheduler_schedule_attempts_total", "Attempts by result.", {"result", "profile"});
  attempts.with({"scheduled", "orrery"}).inc();
  attempts.with({"scheduled", "orrery"}).inc(2);
  attempts.with({"unschedulable", "orrery"}).inc();
  EXPECT_EQ(r.exposition(),
            "# HELP scheduler_schedule_attempts_total Attempts by result.\n"
            "# TYPE scheduler_schedule_attempts_total counter\n"
            "scheduler_schedule_attempts_total{result=\"scheduled\",profile=\"orrery\"} 3\n"
            "scheduler_schedule_attempts_total{result=\"unschedulable\",profile=\"orrery\"} 1\n");
}

TEST(Metrics, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  Registry r;
  HistogramFamily& h = r.histogram("latency_seconds", "Latency.", {0.001, 0.01, 0.1});
  for (double v : {0.0005, 0.001, 0.005, 0.05, 3.0}) h.with().observe(v);
  const std::string text = r.exposition();
  // Upper bounds are inclusive (le): 0.001 falls in the first bucket.
  EXPECT_NE(text.find("latency_seconds_bucket{le=\"0.001\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("latency_seconds_bucket{le=\"0.01\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("latency_seconds_bucket{le=\"0.1\"} 4\n"), std::string::npos);
  EXPECT_NE(text.find("latency_seconds_bucket{le=\"+Inf\"} 5\n"), std::string::npos);
  EXPECT_NE(text.find("latency_seconds_sum 3.0565\n"), std::string::npos);
  EXPECT_NE(text.find("latency_seconds_count 5\n"), std::string::npos);
}

TEST(Metrics, LabelValuesAndHelpAreEscaped) {
  Registry r;
  r.gauge("g", "line one\nback\\slash", {"path"}).with({"a\"b\\c\nd"}).set(-1.5);
  EXPECT_EQ(r.exposition(),
            "# HELP g line one\\nback\\\\slash\n# TYPE g gauge\n"
            "g{path=\"a\\\"b\\\\c\\nd\"} -1.5\n");
}

TEST(Metrics, InvalidNamesDuplicatesAndBadUseThrow) {
  Registry r;
  EXPECT_THROW(r.counter("1bad", "x"), std::invalid_argument);
  EXPECT_THROW(r.counter("ok", "x", {"__reserved"}), std::invalid_argument);
  EXPECT_THROW(r.counter("ok", "x", {"le"}), std::invalid_argument);
  r.counter("ok", "x");
  EXPECT_THROW(r.gauge("ok", "x"), std::invalid_argument);
  EXPECT_THROW(r.histogram("h", "x", {1.0, 1.0}), std::invalid_argument);
  EXPECT_THROW(r.counter("c2", "x", {"a"}).with({}), std::invalid_argument);
  EXPECT_THROW(r.counter("c3", "x").with().inc(-1), std::invalid_argument);
}

TEST(Metrics, ConcurrentIncrementsAreAllCounted) {
  Registry r;
  Counter& c = r.counter("c", "x").with();
  HistogramFamily& h = r.histogram("h", "x", exponential_buckets(0.001, 2, 10));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        c.inc();
        h.with().observe(0.002);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.value(), 40000);
  EXPECT_EQ(h.with().count(), 40000u);
}

TEST(Metrics, ExponentialBucketsMatchClientGolang) {
  EXPECT_EQ(exponential_buckets(1, 2, 4), (std::vector<double>{1, 2, 4, 8}));
  EXPECT_THROW(exponential_buckets(0, 2, 4), std::invalid_argument);
}

}  // namespace
}  // namespace orrery::obs
