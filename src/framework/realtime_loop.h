// fw::RealTimeLoop: the wall-clock implementation of fw::Clock, in the style of ns-3's real-time
// SimulatorImpl. One thread runs everything. Each iteration of run() waits in poll(2) until an fd
// is ready, a callback is posted or the next timer is due (std::chrono::steady_clock; now_us()
// counts microseconds since construction), then calls, one at a time: the posted callbacks, the
// callbacks of ready fds, and the due timers.
//
// Guarantees:
// - A timer never fires before its deadline. Timers fire in (deadline, order set) order, so timers
//   due at the same time fire in the order they were set.
// - at() never calls back: a timer set in the past fires after the current callback returns.
//   Timers set while timers are firing wait for the next iteration (after a poll), so a timer that
//   re-arms itself "now" cannot starve I/O.
// - cancel() is lazy: the slot's generation changes and its heap entry is skipped when popped (the
//   heap is compacted when cancelled entries dominate it). Cancelling a fired, cancelled or unknown
//   id does nothing. Slots are reused, so the TimerTarget overload does not allocate per timer in
//   steady state (the std::function overload may, for the function itself).
// - Callbacks may set and cancel timers, watch and unwatch fds (their own included) and call
//   stop(). After unwatch() returns, that watch's callback is never called again.
// - post() is the only thread-safe member: it queues a callback and wakes the loop via an eventfd,
//   e.g. another thread stops the loop with loop.post([&] { loop.stop(); }). It must not race with
//   the destructor.
// - stop() makes run()/run_for() return after the current callback; timers, watches and posted
//   callbacks not yet run stay for a later run(). A stop() before run() makes it return at once.
// - The destructor drops pending timers and posted callbacks without calling them and closes the
//   eventfd. Watched fds belong to the caller and are not closed. The loop starts no thread.
// - An exception thrown by a callback propagates out of run(); the loop stays usable. run() must
//   not be called from inside a callback.
#pragma once

#include <poll.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "framework/clock.h"

namespace orrery::fw {

using WatchId = uint64_t;

class RealTimeLoop final : public Clock {
 public:
  RealTimeLoop();  // throws std::system_error if the eventfd cannot be created
  ~RealTimeLoop() override;
  RealTimeLoop(const RealTimeLoop&) = delete;
  RealTimeLoop& operator=(const RealTimeLoop&) = delete;

  Time now_us() const override;
  TimerId at(Time t, TimerTarget* target, uint64_t tag) override;
  TimerId at(Time t, std::function<void()> fn) override;
  void cancel(TimerId id) override;
  using Clock::after;

  // Calls fn(revents) whenever poll(2) reports fd ready for `events` (POLLIN, POLLOUT); POLLERR,
  // POLLHUP and POLLNVAL are reported too, and keep firing until the callback unwatches the fd.
  WatchId watch_fd(int fd, short events, std::function<void(short revents)> fn);
  void unwatch(WatchId id);  // unknown or already removed ids are ignored

  void run();                   // until stop()
  void run_for(Time duration);  // until stop() or now_us() >= start + duration
  void stop();
  void post(std::function<void()> fn);  // thread-safe

 private:
  struct Slot {
    TimerTarget* target = nullptr;
    uint64_t tag = 0;
    std::function<void()> fn;
    uint32_t gen = 1;
    bool armed = false;
  };
  struct Entry {
    Time t;
    uint64_t seq;
    uint32_t slot;
    uint32_t gen;
  };
  struct Watch {
    int fd;
    short events;
    std::shared_ptr<std::function<void(short)>> fn;  // kept alive while it runs
  };

  TimerId arm(Time t, TimerTarget* target, uint64_t tag, std::function<void()> fn);
  void free_slot(uint32_t index);
  bool live(const Entry& e) const { return slots_[e.slot].armed && slots_[e.slot].gen == e.gen; }
  void pop_entry();
  void drop_cancelled_top();
  void run_until(Time end);
  void poll_once(Time timeout_us);
  void fire_due_timers();
  bool has_posted();
  void run_posted();
  void wake();

  std::chrono::steady_clock::time_point start_;
  int wake_fd_ = -1;
  bool stopping_ = false;

  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  std::vector<Entry> heap_;  // min-heap on (t, seq), may hold cancelled entries
  size_t cancelled_in_heap_ = 0;
  uint64_t next_seq_ = 0;

  std::map<WatchId, Watch> watches_;
  WatchId next_watch_ = 1;
  std::vector<pollfd> pollfds_;    // rebuilt each iteration; [0] is wake_fd_
  std::vector<WatchId> poll_ids_;  // watch id of pollfds_[i + 1]

  std::mutex post_mu_;
  std::deque<std::function<void()>> posted_;  // guarded by post_mu_
};

}  // namespace orrery::fw
