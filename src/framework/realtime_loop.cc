#include "framework/realtime_loop.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <system_error>

namespace orrery::fw {
namespace {

// The std heap functions keep the greatest element first; ordering by "later" makes a min-heap.
constexpr auto kLater = [](const auto& a, const auto& b) {
  return a.t != b.t ? a.t > b.t : a.seq > b.seq;
};

}  // namespace

RealTimeLoop::RealTimeLoop() : start_(std::chrono::steady_clock::now()) {
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) throw std::system_error(errno, std::generic_category(), "RealTimeLoop eventfd");
}

RealTimeLoop::~RealTimeLoop() {
  close(wake_fd_);
}

Time RealTimeLoop::now_us() const {
  using std::chrono::microseconds;
  return std::chrono::duration_cast<microseconds>(std::chrono::steady_clock::now() - start_)
      .count();
}

TimerId RealTimeLoop::at(Time t, TimerTarget* target, uint64_t tag) {
  return arm(t, target, tag, nullptr);
}

TimerId RealTimeLoop::at(Time t, std::function<void()> fn) {
  return arm(t, nullptr, 0, std::move(fn));
}

// A TimerId is (slot generation << 32) | (slot index + 1), so it is never kNoTimer.
TimerId RealTimeLoop::arm(Time t, TimerTarget* target, uint64_t tag, std::function<void()> fn) {
  if (free_slots_.empty()) {
    free_slots_.push_back(static_cast<uint32_t>(slots_.size()));
    slots_.emplace_back();
  }
  const uint32_t index = free_slots_.back();
  free_slots_.pop_back();
  Slot& s = slots_[index];
  s.target = target;
  s.tag = tag;
  s.fn = std::move(fn);
  s.armed = true;
  heap_.push_back({t, next_seq_++, index, s.gen});
  std::push_heap(heap_.begin(), heap_.end(), kLater);
  return (TimerId{s.gen} << 32) | (index + 1);
}

void RealTimeLoop::free_slot(uint32_t index) {
  Slot& s = slots_[index];
  s.target = nullptr;
  s.fn = nullptr;
  s.armed = false;
  ++s.gen;  // invalidates the id and the heap entry
  free_slots_.push_back(index);
}

void RealTimeLoop::cancel(TimerId id) {
  const uint64_t index = (id & 0xffff'ffff) - 1;  // kNoTimer wraps to a huge index
  if (index >= slots_.size()) return;
  const Slot& s = slots_[index];
  if (!s.armed || s.gen != id >> 32) return;
  free_slot(static_cast<uint32_t>(index));
  // The heap entry stays until popped; rebuild the heap when cancelled entries dominate it.
  if (++cancelled_in_heap_ > 64 && cancelled_in_heap_ * 2 > heap_.size()) {
    std::erase_if(heap_, [this](const Entry& e) { return !live(e); });
    std::make_heap(heap_.begin(), heap_.end(), kLater);
    cancelled_in_heap_ = 0;
  }
}

void RealTimeLoop::pop_entry() {
  std::pop_heap(heap_.begin(), heap_.end(), kLater);
  heap_.pop_back();
}

void RealTimeLoop::drop_cancelled_top() {
  while (!heap_.empty() && !live(heap_.front())) {
    pop_entry();
    cancelled_in_heap_ -= 1;
  }
}

WatchId RealTimeLoop::watch_fd(int fd, short events, std::function<void(short revents)> fn) {
  const WatchId id = next_watch_++;
  watches_.emplace(id,
                   Watch{fd, events, std::make_shared<std::function<void(short)>>(std::move(fn))});
  return id;
}

void RealTimeLoop::unwatch(WatchId id) {
  watches_.erase(id);
}

void RealTimeLoop::run() {
  run_until(kForever);
}

void RealTimeLoop::run_for(Time duration) {
  const Time now = now_us();
  run_until(duration >= kForever - now ? kForever : now + duration);
}

void RealTimeLoop::stop() {
  stopping_ = true;
}

void RealTimeLoop::run_until(Time end) {
  while (!stopping_) {
    drop_cancelled_top();
    const Time now = now_us();
    if (now >= end) break;
    const Time wake_at = std::min(end, heap_.empty() ? kForever : heap_.front().t);
    if (has_posted()) {
      poll_once(0);
    } else {
      poll_once(wake_at == kForever ? -1 : std::max<Time>(0, wake_at - now));
    }
    if (!stopping_) fire_due_timers();
  }
  stopping_ = false;
}

void RealTimeLoop::poll_once(Time timeout_us) {
  pollfds_.clear();
  poll_ids_.clear();
  pollfds_.push_back({wake_fd_, POLLIN, 0});
  for (const auto& [id, w] : watches_) {
    pollfds_.push_back({w.fd, w.events, 0});
    poll_ids_.push_back(id);
  }
  const timespec ts{static_cast<time_t>(timeout_us / kSecond),
                    static_cast<long>(timeout_us % kSecond * 1000)};
  if (ppoll(pollfds_.data(), pollfds_.size(), timeout_us < 0 ? nullptr : &ts, nullptr) < 0) {
    if (errno == EINTR) return;
    throw std::system_error(errno, std::generic_category(), "RealTimeLoop poll");
  }
  if (pollfds_[0].revents != 0) {
    uint64_t count;
    [[maybe_unused]] const ssize_t n = read(wake_fd_, &count, sizeof count);  // resets the eventfd
  }
  run_posted();
  for (size_t i = 1; i < pollfds_.size() && !stopping_; ++i) {
    if (pollfds_[i].revents == 0) continue;
    const auto it = watches_.find(poll_ids_[i - 1]);
    if (it == watches_.end()) continue;  // unwatched by an earlier callback
    const auto fn = it->second.fn;       // survives an unwatch from inside the callback
    (*fn)(pollfds_[i].revents);
  }
}

void RealTimeLoop::fire_due_timers() {
  const Time now = now_us();
  const uint64_t batch_end = next_seq_;  // timers set by these callbacks wait for the next round
  while (!stopping_) {
    drop_cancelled_top();
    if (heap_.empty()) return;
    const Entry e = heap_.front();
    if (e.t > now || e.seq >= batch_end) return;
    pop_entry();
    Slot& s = slots_[e.slot];
    TimerTarget* const target = s.target;
    const uint64_t tag = s.tag;
    const std::function<void()> fn = std::move(s.fn);
    free_slot(e.slot);  // fired: cancel(id) is now a no-op, and the slot can be reused
    if (target != nullptr) {
      target->on_timer(tag);
    } else {
      fn();
    }
  }
}

bool RealTimeLoop::has_posted() {
  std::lock_guard lock(post_mu_);
  return !posted_.empty();
}

// Runs the callbacks queued so far, one at a time; those they post wait for the next round.
void RealTimeLoop::run_posted() {
  size_t batch;
  {
    std::lock_guard lock(post_mu_);
    batch = posted_.size();
  }
  for (; batch > 0 && !stopping_; batch -= 1) {
    std::function<void()> fn;
    {
      std::lock_guard lock(post_mu_);
      fn = std::move(posted_.front());
      posted_.pop_front();
    }
    fn();
  }
}

void RealTimeLoop::post(std::function<void()> fn) {
  {
    std::lock_guard lock(post_mu_);
    posted_.push_back(std::move(fn));
  }
  wake();
}

void RealTimeLoop::wake() {
  const uint64_t one = 1;
  // Fails only when the counter is saturated, and then the loop is awake anyway.
  [[maybe_unused]] const ssize_t n = write(wake_fd_, &one, sizeof one);
}

}  // namespace orrery::fw
