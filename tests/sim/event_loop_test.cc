#include "sim/event_loop.h"

#include <gtest/gtest.h>

namespace orrery::sim {
namespace {

struct Recorder : EventTarget {
  std::vector<std::pair<Time, uint64_t>> seen;
  void handle(const Event& e) override { seen.emplace_back(e.time, e.a); }
};

TEST(EventLoop, OrdersByTimeThenInsertion) {
  EventLoop loop;
  Recorder r;
  loop.at(50, &r, 0, 1);
  loop.at(10, &r, 0, 2);
  loop.at(50, &r, 0, 3);
  loop.at(10, &r, 0, 4);
  loop.at(30, &r, 0, 5);
  EXPECT_EQ(loop.run_until(), 5u);
  std::vector<std::pair<Time, uint64_t>> expected{{10, 2}, {10, 4}, {30, 5}, {50, 1}, {50, 3}};
  EXPECT_EQ(r.seen, expected);
  EXPECT_EQ(loop.now(), 50);
}

TEST(EventLoop, ManyEventsStayOrdered) {
  EventLoop loop;
  Recorder r;
  uint64_t x = 12345;
  for (int i = 0; i < 10000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    loop.at(static_cast<Time>(x >> 50), &r, 0, static_cast<uint64_t>(i));
  }
  loop.run_until();
  ASSERT_EQ(r.seen.size(), 10000u);
  for (size_t i = 1; i < r.seen.size(); ++i) {
    ASSERT_LE(r.seen[i - 1].first, r.seen[i].first);
    if (r.seen[i - 1].first == r.seen[i].first) {
      ASSERT_LT(r.seen[i - 1].second, r.seen[i].second);
    }
  }
}

TEST(EventLoop, RunUntilStopsAtEndAndFunctionsWork) {
  EventLoop loop;
  int fired = 0;
  loop.at(5 * kSecond, [&] {
    ++fired;
    loop.after(kSecond, nullptr, 0);  // never reached: beyond end
  });
  EXPECT_EQ(loop.run_until(5 * kSecond + 10), 1u);
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(loop.now(), 5 * kSecond + 10);
  EXPECT_EQ(loop.pending(), 1u);
  EXPECT_THROW(loop.at(0, nullptr, 0), std::logic_error);
}

}  // namespace
}  // namespace orrery::sim
