#include "sim/trace.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace orrery::sim {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_trace(text, "t.tr");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Trace, ParsesJobs) {
  Trace t = parse_trace("0.5 2 1.5 1 2\n\n# comment\n3 1 4 4\n", "t.tr");
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.jobs[0].arrival, 500000);
  EXPECT_EQ(t.jobs[0].num_tasks, 2u);
  EXPECT_EQ(t.jobs[0].longest_task, 2 * kSecond);
  EXPECT_DOUBLE_EQ(t.jobs[0].mean_task_duration_s, 1.5);
  EXPECT_EQ(t.tasks_of(t.jobs[1]).size(), 1u);
  EXPECT_EQ(t.tasks_of(t.jobs[1])[0], 4 * kSecond);
  EXPECT_EQ(t.jobs[1].line, 4);
  EXPECT_EQ(t.task_count(), 3u);
}

TEST(Trace, MalformedLinesNameFileAndLine) {
  EXPECT_EQ(error_of("1 2 1 1\n"), "t.tr:1: expected 2 task durations, got 1");
  EXPECT_EQ(error_of("1 1 1 1\n2 1 1 x\n"),
            "t.tr:2: expected a task duration in seconds, got \"x\"");
  EXPECT_EQ(error_of("1 1 1 -3\n"), "t.tr:1: expected a task duration in seconds, got negative -3");
  EXPECT_EQ(error_of("1 zero 1 1\n"), "t.tr:1: expected a positive task count, got \"zero\"");
  EXPECT_EQ(error_of("1 2 1 1 1 1\n"), "t.tr:1: expected 2 task durations, got 3");
  EXPECT_EQ(error_of(""), "t.tr: trace has no jobs");
}

// Issue 11: arrival times beyond 64-bit microseconds used to overflow (undefined behaviour, a
// crash on some paths); task counts beyond the limit fail before their durations are stored.
TEST(Trace, AbsurdTimesAndCountsAreErrors) {
  auto error_of = [](const std::string& text) {
    try {
      parse_trace(text, "t.tr");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error_of("0 1 1 1\n1e308 1 1 1\n"),
            "t.tr:2: expected an arrival time in seconds of at most 4e12 (about 126,000 years), "
            "got 1e308");
  EXPECT_EQ(error_of("9223372036854775808 1 1 1\n"),
            "t.tr:1: expected an arrival time in seconds of at most 4e12 (about 126,000 years), "
            "got 9223372036854775808");
  EXPECT_EQ(error_of("0 1 1 1e300\n"),
            "t.tr:1: expected a task duration in seconds of at most 4e12 (about 126,000 years), "
            "got 1e300");
  EXPECT_EQ(error_of("0 4294967295 1 1\n"),
            "t.tr:1: tasks in the trace up to this job: 4,294,967,295, more than the limit of "
            "10,000,000 tasks; pass --allow-large to lift it (docs/scenarios.md, Limits)");
  EXPECT_EQ(error_of("4e12 1 1 1\n"), "");
}

TEST(Trace, ReadsSharedSyntheticTrace) {
  Trace t = read_trace(std::string(ORRERY_DATA_DIR) + "/megha/syn_250.0.tr");
  EXPECT_EQ(t.jobs.size(), 2000u);
  EXPECT_EQ(t.task_count(), 2000u * 250u);
  EXPECT_EQ(t.jobs[1].arrival - t.jobs[0].arrival, kSecond);
  EXPECT_EQ(t.jobs[0].longest_task, kSecond);
}

}  // namespace
}  // namespace orrery::sim
