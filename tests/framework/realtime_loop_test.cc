#include "framework/realtime_loop.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace orrery::fw {
namespace {

// Timer accuracy on a shared, noisy machine: never early, at most this late.
constexpr Time kSlack = 200 * kMs;
// Upper bound for run_for() in tests that stop the loop themselves, so a bug fails instead of
// hangs.
constexpr Time kGiveUp = 5 * kSecond;

struct Fired {
  uint64_t tag;
  Time at;
};

// Records each on_timer(tag) and stops the loop once `expected` timers have fired.
class Recorder : public TimerTarget {
 public:
  Recorder(RealTimeLoop& loop, size_t expected) : loop_(loop), expected_(expected) {}
  void on_timer(uint64_t tag) override {
    fired.push_back({tag, loop_.now_us()});
    if (fired.size() == expected_) loop_.stop();
  }
  std::vector<uint64_t> tags() const {
    std::vector<uint64_t> out;
    for (const Fired& f : fired) out.push_back(f.tag);
    return out;
  }
  std::vector<Fired> fired;

 private:
  RealTimeLoop& loop_;
  size_t expected_;
};

size_t open_fd_count() {
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                                           std::filesystem::directory_iterator{}));
}

struct Pipe {
  Pipe() { EXPECT_EQ(pipe2(fd, O_NONBLOCK | O_CLOEXEC), 0); }
  ~Pipe() {
    close(fd[0]);
    close(fd[1]);
  }
  void write_byte() const { EXPECT_EQ(write(fd[1], "x", 1), 1); }
  ssize_t read_all() const {
    char buf[64];
    return read(fd[0], buf, sizeof buf);
  }
  int fd[2];
};

TEST(RealTimeLoop, TimersFireInDeadlineOrderWithinTolerance) {
  RealTimeLoop loop;
  const Time t0 = loop.now_us();
  // tag -> deadline, set out of order; tags 31..36 share one deadline, set interleaved with others.
  const std::vector<std::pair<uint64_t, Time>> timers = {
      {60, t0 + 60 * kMs}, {31, t0 + 30 * kMs}, {32, t0 + 30 * kMs}, {20, t0 + 20 * kMs},
      {33, t0 + 30 * kMs}, {40, t0 + 40 * kMs}, {34, t0 + 30 * kMs}, {35, t0 + 30 * kMs},
      {10, t0 + 10 * kMs}, {36, t0 + 30 * kMs}};
  Recorder rec(loop, timers.size());
  for (const auto& [tag, t] : timers) loop.at(t, &rec, tag);
  loop.run_for(kGiveUp);

  EXPECT_EQ(rec.tags(), (std::vector<uint64_t>{10, 20, 31, 32, 33, 34, 35, 36, 40, 60}));
  for (const Fired& f : rec.fired) {
    const Time deadline = std::find_if(timers.begin(), timers.end(), [&](const auto& p) {
                            return p.first == f.tag;
                          })->second;
    EXPECT_GE(f.at, deadline) << "timer " << f.tag << " fired early";
    EXPECT_LE(f.at, deadline + kSlack) << "timer " << f.tag << " fired late";
  }
}

TEST(RealTimeLoop, CancelPreventsFiringAndStaleIdsAreHarmless) {
  RealTimeLoop loop;
  Recorder rec(loop, 1);
  const TimerId first = loop.after(10 * kMs, &rec, 1);
  const TimerId second = loop.after(30 * kMs, &rec, 2);
  loop.cancel(first);
  loop.run_for(kGiveUp);
  EXPECT_EQ(rec.tags(), (std::vector<uint64_t>{2}));

  // `second` has fired and `first` was cancelled; the new timer reuses one of their slots, and
  // neither old id nor junk may cancel it.
  Recorder again(loop, 1);
  const TimerId third = loop.after(10 * kMs, &again, 3);
  EXPECT_NE(third, first);
  EXPECT_NE(third, second);
  loop.cancel(second);
  loop.cancel(first);
  loop.cancel(kNoTimer);
  loop.cancel(123456789);
  loop.run_for(kGiveUp);
  EXPECT_EQ(again.tags(), (std::vector<uint64_t>{3}));
}

TEST(RealTimeLoop, ManyCancelledTimersKeepTheRestInOrder) {
  RealTimeLoop loop;
  constexpr uint64_t kTimers = 300;
  Recorder rec(loop, kTimers / 3);
  std::vector<TimerId> ids;
  const Time t0 = loop.now_us() + 10 * kMs;
  for (uint64_t i = 0; i < kTimers; ++i) ids.push_back(loop.at(t0 + (i % 7) * kMs, &rec, i));
  std::vector<uint64_t> expected;
  for (uint64_t i = 0; i < kTimers; ++i) {
    if (i % 3 != 0) loop.cancel(ids[i]);  // 200 cancels: enough to compact the heap
    if (i % 3 == 0) expected.push_back(i);
  }
  std::stable_sort(expected.begin(), expected.end(),
                   [](uint64_t a, uint64_t b) { return a % 7 < b % 7; });
  loop.run_for(kGiveUp);
  EXPECT_EQ(rec.tags(), expected);
  for (const Fired& f : rec.fired) {
    const Time deadline = t0 + static_cast<Time>(f.tag % 7) * kMs;
    EXPECT_GE(f.at, deadline) << "timer " << f.tag << " fired early";
    EXPECT_LE(f.at, deadline + kSlack) << "timer " << f.tag << " fired late";
  }
}

TEST(RealTimeLoop, TimerSetInsideCallbackFiresAfterItReturns) {
  RealTimeLoop loop;
  bool inside = false;
  bool past_fired = false;
  Time later_deadline = 0;
  Time later_fired = -1;
  loop.after(5 * kMs, [&] {
    inside = true;
    loop.at(0, [&] {  // in the past: as soon as possible, but not from inside at()
      EXPECT_FALSE(inside);
      past_fired = true;
    });
    later_deadline = loop.now_us() + 20 * kMs;
    loop.at(later_deadline, [&] {
      later_fired = loop.now_us();
      loop.stop();
    });
    EXPECT_FALSE(past_fired);
    inside = false;
  });
  loop.run_for(kGiveUp);
  EXPECT_TRUE(past_fired);
  EXPECT_GE(later_fired, later_deadline);
  EXPECT_LE(later_fired, later_deadline + kSlack);
}

TEST(RealTimeLoop, TimerRearmingItselfNowDoesNotStarveIo) {
  RealTimeLoop loop;
  Pipe p;
  int rounds = 0;
  int rounds_before_io = -1;
  std::function<void()> spin = [&] {
    if (++rounds == 1) p.write_byte();
    if (rounds == 100'000) loop.stop();  // without the guarantee: give up instead of hanging
    loop.at(0, spin);
  };
  loop.at(0, spin);
  loop.watch_fd(p.fd[0], POLLIN, [&](short) {
    rounds_before_io = rounds;
    loop.stop();
  });
  loop.run_for(kGiveUp);
  EXPECT_GE(rounds_before_io, 0) << "the fd callback never ran";
  EXPECT_LE(rounds_before_io, 2) << "I/O waited for the timer to stop re-arming";
}

TEST(RealTimeLoop, FdWatchFiresOnReadinessAndUnwatchStopsIt) {
  RealTimeLoop loop;
  Pipe p;
  std::vector<Time> ready_at;
  short revents = 0;
  const WatchId watch = loop.watch_fd(p.fd[0], POLLIN, [&](short r) {
    revents = r;
    ready_at.push_back(loop.now_us());
    EXPECT_EQ(p.read_all(), 1);
  });
  const Time write_at = loop.now_us() + 20 * kMs;
  loop.at(write_at, [&] { p.write_byte(); });
  loop.after(60 * kMs, [&] { loop.unwatch(watch); });
  loop.after(80 * kMs, [&] { p.write_byte(); });  // nobody watches any more
  loop.after(150 * kMs, [&] { loop.stop(); });
  loop.run_for(kGiveUp);

  ASSERT_EQ(ready_at.size(), 1u);
  EXPECT_TRUE(revents & POLLIN);
  EXPECT_GE(ready_at[0], write_at);
  EXPECT_LE(ready_at[0], write_at + kSlack);
  EXPECT_EQ(p.read_all(), 1) << "the second byte is still unread";
  loop.unwatch(watch);  // again: a no-op
}

TEST(RealTimeLoop, WatchCallbackMayUnwatchItself) {
  RealTimeLoop loop;
  Pipe p;
  p.write_byte();  // readable from the start, and stays readable: nothing reads it
  int calls = 0;
  WatchId self = 0;
  self = loop.watch_fd(p.fd[0], POLLIN, [&](short) {
    ++calls;
    loop.unwatch(self);
    loop.after(0, [] {});  // callbacks may also add timers and watches
  });
  loop.run_for(50 * kMs);
  EXPECT_EQ(calls, 1);
}

TEST(RealTimeLoop, PostFromAnotherThreadWakesAndStopsRun) {
  RealTimeLoop loop;
  bool far_timer_fired = false;
  loop.after(30 * kSecond, [&] { far_timer_fired = true; });  // run() sleeps towards this
  std::thread::id posted_on;
  const auto start = std::chrono::steady_clock::now();
  std::thread other([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    loop.post([&] {
      posted_on = std::this_thread::get_id();
      loop.stop();
    });
  });
  loop.run();
  const auto waited = std::chrono::steady_clock::now() - start;
  other.join();
  EXPECT_EQ(posted_on, std::this_thread::get_id()) << "posted callbacks run on the loop thread";
  EXPECT_FALSE(far_timer_fired);
  EXPECT_GE(waited, std::chrono::milliseconds(50));
  EXPECT_LE(waited, std::chrono::milliseconds(50 + kSlack / kMs));
}

TEST(RealTimeLoop, PostedCallbacksLeftByStopRunInTheNextRun) {
  RealTimeLoop loop;
  std::vector<int> order;
  loop.post([&] {
    order.push_back(1);
    loop.stop();
  });
  loop.post([&] {
    order.push_back(2);
    loop.stop();
  });
  loop.run();
  EXPECT_EQ(order, (std::vector<int>{1}));
  const Time start = loop.now_us();
  loop.run_for(kGiveUp);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_LE(loop.now_us(), start + kSlack) << "the second callback waited for nothing";
}

TEST(RealTimeLoop, StopFromCallbackKeepsPendingTimersForTheNextRun) {
  RealTimeLoop loop;
  std::vector<int> order;
  loop.after(5 * kMs, [&] {
    order.push_back(1);
    loop.stop();
  });
  loop.after(30 * kMs, [&] {
    order.push_back(2);
    loop.stop();
  });
  loop.run();
  EXPECT_EQ(order, (std::vector<int>{1}));
  loop.run_for(kGiveUp);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
}

TEST(RealTimeLoop, DestroyingDropsPendingTimersAndClosesItsFd) {
  const size_t fds_before = open_fd_count();
  bool fired = false;
  {
    RealTimeLoop loop;
    Recorder rec(loop, 1);
    EXPECT_EQ(open_fd_count(), fds_before + 1) << "the loop owns one eventfd";
    loop.after(200 * kMs, &rec, 1);
    loop.after(200 * kMs, [&] { fired = true; });
    loop.run_for(20 * kMs);  // sleeps in poll, then returns with both timers pending
    loop.at(0, [&] { fired = true; });
    loop.post([&] { fired = true; });
    EXPECT_TRUE(rec.fired.empty());
  }
  EXPECT_FALSE(fired);
  EXPECT_EQ(open_fd_count(), fds_before);
}

TEST(RealTimeLoop, FunctionOverloadFires) {
  RealTimeLoop loop;
  std::vector<std::pair<int, Time>> fired;
  const Time t0 = loop.now_us();
  loop.after(20 * kMs, [&] {
    fired.push_back({2, loop.now_us()});
    loop.stop();
  });
  loop.at(t0 + 10 * kMs, [&] { fired.push_back({1, loop.now_us()}); });
  loop.run_for(kGiveUp);
  ASSERT_EQ(fired.size(), 2u);
  EXPECT_EQ(fired[0].first, 1);
  EXPECT_EQ(fired[1].first, 2);
  EXPECT_GE(fired[0].second, t0 + 10 * kMs);
  EXPECT_LE(fired[0].second, t0 + 10 * kMs + kSlack);
  EXPECT_GE(fired[1].second, t0 + 20 * kMs);
  EXPECT_LE(fired[1].second, t0 + 20 * kMs + kSlack);
}

}  // namespace
}  // namespace orrery::fw
