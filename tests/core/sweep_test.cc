#include "util/sweep.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <latch>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/rng.h"

namespace orrery {
namespace {

using std::chrono::milliseconds;

// The error a task throws, carrying its index.
struct TaskError : std::runtime_error {
  explicit TaskError(size_t i) : std::runtime_error("task " + std::to_string(i)), index(i) {}
  size_t index;
};

// The index of the task whose exception run_sweep(...) rethrew; fails the test if none.
template <class Sweep>
size_t failed_task(Sweep&& sweep) {
  try {
    sweep();
  } catch (const TaskError& e) {
    return e.index;
  }
  ADD_FAILURE() << "no exception";
  return SIZE_MAX;
}

TEST(Sweep, ResultsAreInTaskOrderWhateverFinishesFirst) {
  Rng rng(7);
  std::vector<int> sleep_us(120);
  for (int& us : sleep_us) us = static_cast<int>(rng.next() % 3000);
  std::vector<size_t> completion;
  const std::vector<std::string> out = run_sweep(
      sleep_us.size(), 4,
      [&](size_t i) {
        std::this_thread::sleep_for(std::chrono::microseconds(sleep_us[i]));
        return "result " + std::to_string(i);
      },
      [&](const SweepStep& s, const std::string& r) {
        EXPECT_EQ(r, "result " + std::to_string(s.index));
        completion.push_back(s.index);
      });
  ASSERT_EQ(out.size(), sleep_us.size());
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], "result " + std::to_string(i));
  // The durations made the tasks finish out of order, so the order above is the sweep's doing.
  EXPECT_FALSE(std::is_sorted(completion.begin(), completion.end()));
}

TEST(Sweep, ProgressIsSerialisedAndCountsEveryTaskOnce) {
  std::atomic<int> inside{0};
  std::vector<size_t> done_counts;
  std::set<size_t> indices;
  const std::vector<size_t> out = run_sweep(
      50, 4,
      [](size_t i) {
        std::this_thread::sleep_for(std::chrono::microseconds(100 * (i % 7)));
        return i * i;
      },
      [&](const SweepStep& s, const size_t& r) {
        EXPECT_EQ(inside.fetch_add(1), 0) << "two progress calls at once";
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        EXPECT_EQ(r, s.index * s.index);
        EXPECT_EQ(s.total, 50u);
        done_counts.push_back(s.done);
        indices.insert(s.index);
        inside.fetch_sub(1);
      });
  ASSERT_EQ(done_counts.size(), 50u);
  for (size_t k = 0; k < done_counts.size(); ++k) EXPECT_EQ(done_counts[k], k + 1);
  EXPECT_EQ(indices.size(), 50u);
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], i * i);
}

TEST(Sweep, OneThreadRunsTheTasksInOrderOnTheCallingThread) {
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<size_t> order;
  const std::vector<double> out = run_sweep(20, 1, [&](size_t i) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order.push_back(i);
    return 0.5 * static_cast<double>(i);
  });
  std::vector<double> sequential;
  for (size_t i = 0; i < 20; ++i) {
    EXPECT_EQ(order[i], i);
    sequential.push_back(0.5 * static_cast<double>(i));
  }
  EXPECT_EQ(out, sequential);
}

TEST(Sweep, ZeroTasksCallNothing) {
  bool called = false;
  const std::vector<int> out = run_sweep(
      0, 0,
      [&](size_t) {
        called = true;
        return 1;
      },
      [&](const SweepStep&, const int&) { called = true; });
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(called);
}

TEST(Sweep, ResultsNeedNoDefaultConstructor) {
  struct Value {
    explicit Value(size_t v) : v(v) {}
    size_t v;
  };
  const std::vector<Value> out = run_sweep(5, 3, [](size_t i) { return Value(i + 1); });
  ASSERT_EQ(out.size(), 5u);
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i].v, i + 1);
}

TEST(Sweep, ThreadCount) {
  const int hw = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  EXPECT_EQ(sweep_threads(4, 10), 4);
  EXPECT_EQ(sweep_threads(8, 3), 3);
  EXPECT_EQ(sweep_threads(1, 100), 1);
  EXPECT_EQ(sweep_threads(0, 1000), hw);
  EXPECT_EQ(sweep_threads(-3, 1000), hw);
  EXPECT_EQ(sweep_threads(0, 1), 1);
  EXPECT_EQ(sweep_threads(5, 0), 1);
}

// Sequentially, task 3 throws and tasks 4.. never start.
TEST(Sweep, OneThreadStopsAtTheFirstError) {
  std::vector<size_t> started;
  const size_t failed = failed_task([&] {
    run_sweep(10, 1, [&](size_t i) {
      started.push_back(i);
      if (i == 3) throw TaskError(i);
      return i;
    });
  });
  EXPECT_EQ(failed, 3u);
  EXPECT_EQ(started, (std::vector<size_t>{0, 1, 2, 3}));
}

// Four threads start tasks 0-3 together; task 0 throws while the others still run. No task after
// them is started, and the sweep returns (no deadlock, no std::terminate) with task 0's error.
TEST(Sweep, AnErrorStopsNewTasksFromStarting) {
  std::latch all_started(4);
  std::atomic<int> started{0};
  const size_t failed = failed_task([&] {
    run_sweep(100, 4, [&](size_t i) {
      started.fetch_add(1);
      if (i < 4) all_started.arrive_and_wait();
      if (i == 0) throw TaskError(i);
      if (i < 4) std::this_thread::sleep_for(milliseconds(100));  // task 0's error is recorded
      return i;
    });
  });
  EXPECT_EQ(failed, 0u);
  EXPECT_EQ(started.load(), 4);
}

// Tasks 1 and 2 both throw, task 2 first: the rethrown error is task 1's (the lowest index, as a
// sequential loop would give), not the first in time.
TEST(Sweep, TheLowestIndexErrorIsRethrownWhateverThrowsFirst) {
  std::atomic<bool> task2_threw{false};
  const size_t failed = failed_task([&] {
    run_sweep(8, 4, [&](size_t i) {
      if (i == 2) {
        task2_threw = true;
        task2_threw.notify_all();
        throw TaskError(i);
      }
      if (i == 1) {
        task2_threw.wait(false);
        std::this_thread::sleep_for(milliseconds(20));
        throw TaskError(i);
      }
      return i;
    });
  });
  EXPECT_EQ(failed, 1u);
}

// An exception from the progress callback is the task's error: it is not lost.
TEST(Sweep, AProgressErrorIsRethrown) {
  const size_t failed = failed_task([&] {
    run_sweep(
        6, 2, [](size_t i) { return i; },
        [](const SweepStep& s, const size_t&) {
          if (s.index == 4) throw TaskError(s.index);
        });
  });
  EXPECT_EQ(failed, 4u);
}

// Every thread failing at once neither deadlocks nor loses the error.
TEST(Sweep, EveryTaskFailing) {
  for (int threads : {1, 2, 8}) {
    const size_t failed =
        failed_task([&] { run_sweep(30, threads, [](size_t i) -> int { throw TaskError(i); }); });
    EXPECT_EQ(failed, 0u) << threads << " threads";
  }
}

}  // namespace
}  // namespace orrery
