#include "sim/event_loop.h"

#include <stdexcept>
#include <string>

namespace orrery::sim {
namespace {

inline bool earlier(const Event& x, const Event& y) {
  return x.time != y.time ? x.time < y.time : x.seq < y.seq;
}

}  // namespace

class EventLoop::FnTarget : public EventTarget {
 public:
  explicit FnTarget(EventLoop* loop) : loop_(loop) {}
  void handle(const Event& e) override {
    std::function<void()> fn = std::move(loop_->fns_[e.a]);
    loop_->fns_[e.a] = nullptr;
    loop_->free_fns_.push_back(e.a);
    fn();
  }

 private:
  EventLoop* loop_;
};

EventLoop::EventLoop() = default;
EventLoop::~EventLoop() = default;

void EventLoop::push(const Event& e) {
  heap_.push_back(e);
  size_t i = heap_.size() - 1;
  while (i > 0) {
    size_t parent = (i - 1) / 4;
    if (!earlier(heap_[i], heap_[parent])) break;
    std::swap(heap_[i], heap_[parent]);
    i = parent;
  }
}

Event EventLoop::pop() {
  Event top = heap_.front();
  Event last = heap_.back();
  heap_.pop_back();
  const size_t n = heap_.size();
  if (n > 0) {
    size_t i = 0;
    while (true) {
      size_t first = 4 * i + 1;
      if (first >= n) break;
      size_t best = first;
      const size_t end = first + 4 < n ? first + 4 : n;
      for (size_t c = first + 1; c < end; ++c)
        if (earlier(heap_[c], heap_[best])) best = c;
      if (!earlier(heap_[best], last)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = last;
  }
  return top;
}

void EventLoop::at(Time t, EventTarget* target, uint32_t kind, uint64_t a, uint64_t b) {
  if (t < now_) {
    throw std::logic_error("event scheduled in the past: " + std::to_string(t) + " < " +
                           std::to_string(now_));
  }
  push({t, seq_++, target, kind, a, b});
}

void EventLoop::at(Time t, std::function<void()> fn) {
  uint64_t slot;
  if (!free_fns_.empty()) {
    slot = free_fns_.back();
    free_fns_.pop_back();
    fns_[slot] = std::move(fn);
  } else {
    slot = fns_.size();
    fns_.push_back(std::move(fn));
  }
  if (!fn_target_) fn_target_ = std::make_unique<FnTarget>(this);
  at(t, fn_target_.get(), 0, slot, 0);
}

bool EventLoop::step() {
  if (heap_.empty()) return false;
  Event e = pop();
  now_ = e.time;
  ++processed_;
  e.target->handle(e);
  return true;
}

uint64_t EventLoop::run_until(Time end) {
  stopped_ = false;
  const uint64_t before = processed_;
  while (!heap_.empty() && !stopped_) {
    if (heap_.front().time > end) break;
    step();
  }
  if (!stopped_ && end != kForever && now_ < end) now_ = end;
  return processed_ - before;
}

}  // namespace orrery::sim
