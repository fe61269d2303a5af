// The clock of a runtime: the current time and timers. The simulator's event loop implements it
// in virtual time (sim::SimClock); fw::RealTimeLoop implements it in wall time, single-threaded,
// driven by timers and I/O readiness. Scheduling code only ever asks this interface, never the
// wall clock, so the same code is deterministic in the simulator.
//
// Timers are delivered to a TimerTarget with a caller-chosen tag (no allocation per timer); a
// std::function overload exists for rare timers. Timers due at the same time fire in the order
// they were set. cancel() of a timer that already fired (or of kNoTimer) does nothing.
#pragma once

#include <cstdint>
#include <functional>

#include "core/time.h"

namespace orrery::fw {

using TimerId = uint64_t;
inline constexpr TimerId kNoTimer = 0;

class TimerTarget {
 public:
  virtual ~TimerTarget() = default;
  virtual void on_timer(uint64_t tag) = 0;
};

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Time now_us() const = 0;
  // Fires target->on_timer(tag) at absolute time t (a time in the past means "as soon as
  // possible", after the current callback returns).
  virtual TimerId at(Time t, TimerTarget* target, uint64_t tag) = 0;
  virtual TimerId at(Time t, std::function<void()> fn) = 0;
  virtual void cancel(TimerId id) = 0;

  TimerId after(Time delay, TimerTarget* target, uint64_t tag) {
    return at(now_us() + delay, target, tag);
  }
  TimerId after(Time delay, std::function<void()> fn) { return at(now_us() + delay, std::move(fn)); }
};

}  // namespace orrery::fw
