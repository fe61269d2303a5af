// The discrete-event engine: virtual time in integer microseconds, events ordered by
// (time, sequence number) so that runs are deterministic. Events are plain records delivered to
// an EventTarget, with no allocation per event; a std::function overload exists for rare events.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/time.h"

namespace orrery::sim {

// Time and its helpers live in core/time.h (shared with the real-time loop); they are named here
// too so simulator code can keep saying sim::Time.
using orrery::kForever;
using orrery::kMs;
using orrery::kSecond;
using orrery::kUs;
using orrery::seconds;
using orrery::Time;
using orrery::to_seconds;

struct Event {
  Time time;
  uint64_t seq;
  class EventTarget* target;
  uint32_t kind;  // meaning private to the target
  uint64_t a;
  uint64_t b;
};

class EventTarget {
 public:
  virtual ~EventTarget() = default;
  virtual void handle(const Event& e) = 0;
};

class EventLoop {
 public:
  EventLoop();
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  Time now() const { return now_; }
  // Schedules an event at absolute time t (>= now).
  void at(Time t, EventTarget* target, uint32_t kind, uint64_t a = 0, uint64_t b = 0);
  void after(Time delay, EventTarget* target, uint32_t kind, uint64_t a = 0, uint64_t b = 0) {
    at(now_ + delay, target, kind, a, b);
  }
  // For infrequent events (setup, periodic reports): allocates.
  void at(Time t, std::function<void()> fn);

  // Runs events with time <= end (all events if end == kForever); returns events processed.
  // Afterwards now() is `end` when one was given (unless stop() was called), else the time of
  // the last event.
  uint64_t run_until(Time end = kForever);
  // Processes one event; false if none is left.
  bool step();
  // Stops run_until after the current event.
  void stop() { stopped_ = true; }

  bool empty() const { return heap_.empty(); }
  size_t pending() const { return heap_.size(); }
  uint64_t processed() const { return processed_; }
  Time next_time() const { return heap_.empty() ? kForever : heap_.front().time; }

 private:
  class FnTarget;
  void push(const Event& e);
  Event pop();

  std::vector<Event> heap_;  // 4-ary min-heap on (time, seq)
  Time now_ = 0;
  uint64_t seq_ = 0;
  uint64_t processed_ = 0;
  bool stopped_ = false;
  std::unique_ptr<FnTarget> fn_target_;
  std::vector<std::function<void()>> fns_;
  std::vector<uint64_t> free_fns_;
};

}  // namespace orrery::sim
