#include "sim/sim_clock.h"

#include <gtest/gtest.h>

#include <vector>

namespace orrery::sim {
namespace {

struct Log : fw::TimerTarget {
  std::vector<std::pair<Time, uint64_t>> fired;
  EventLoop* loop = nullptr;
  void on_timer(uint64_t tag) override { fired.push_back({loop->now(), tag}); }
};

TEST(SimClock, TimersFireAtTheirVirtualTimeInOrderAndCancelWorks) {
  EventLoop loop;
  SimClock clock(loop);
  Log log;
  log.loop = &loop;
  clock.at(3 * kSecond, &log, 3);
  const fw::TimerId gone = clock.at(2 * kSecond, &log, 2);
  clock.at(1 * kSecond, &log, 1);
  clock.at(3 * kSecond, &log, 4);  // same time as tag 3: after it
  clock.cancel(gone);
  clock.cancel(gone);          // twice: harmless
  clock.cancel(fw::kNoTimer);  // harmless
  loop.run_until();
  EXPECT_EQ(log.fired, (std::vector<std::pair<Time, uint64_t>>{
                           {1 * kSecond, 1}, {3 * kSecond, 3}, {3 * kSecond, 4}}));
}

TEST(SimClock, APastTimeFiresNowAndSlotsAreReusedWithoutConfusingIds) {
  EventLoop loop;
  SimClock clock(loop);
  loop.run_until(10 * kSecond);
  Log log;
  log.loop = &loop;
  const fw::TimerId first = clock.at(kSecond, &log, 1);  // in the past
  loop.run_until();
  ASSERT_EQ(log.fired.size(), 1u);
  EXPECT_EQ(log.fired[0].first, 10 * kSecond);
  const fw::TimerId second = clock.after(kSecond, &log, 2);  // reuses the slot
  EXPECT_NE(first, second);
  clock.cancel(first);  // a stale id must not cancel the new timer
  int fn_calls = 0;
  clock.after(2 * kSecond, [&] { ++fn_calls; });
  loop.run_until();
  EXPECT_EQ(log.fired.size(), 2u);
  EXPECT_EQ(fn_calls, 1);
}

}  // namespace
}  // namespace orrery::sim
