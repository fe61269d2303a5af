// The simulator's fw::Clock: timers are events on the EventLoop, in virtual time. Each timer is
// exactly one loop event (a cancelled one is skipped when it comes up), so a policy written
// against fw::Clock schedules the same events as one written against the loop directly.
#pragma once

#include <functional>
#include <vector>

#include "framework/clock.h"
#include "sim/event_loop.h"

namespace orrery::sim {

class SimClock : public fw::Clock, public EventTarget {
 public:
  explicit SimClock(EventLoop& loop) : loop_(loop) {}
  Time now_us() const override { return loop_.now(); }
  fw::TimerId at(Time t, fw::TimerTarget* target, uint64_t tag) override;
  fw::TimerId at(Time t, std::function<void()> fn) override;
  void cancel(fw::TimerId id) override;
  void handle(const Event& e) override;

 private:
  struct Slot {
    fw::TimerTarget* target = nullptr;
    uint64_t tag = 0;
    std::function<void()> fn;
    uint32_t gen = 0;
    bool armed = false;
  };
  fw::TimerId arm(Time t, fw::TimerTarget* target, uint64_t tag, std::function<void()> fn);

  EventLoop& loop_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;
};

}  // namespace orrery::sim
