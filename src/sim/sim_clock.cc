#include "sim/sim_clock.h"

#include <algorithm>

namespace orrery::sim {

fw::TimerId SimClock::arm(Time t, fw::TimerTarget* target, uint64_t tag, std::function<void()> fn) {
  uint32_t i;
  if (!free_.empty()) {
    i = free_.back();
    free_.pop_back();
  } else {
    i = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[i];
  s.target = target;
  s.tag = tag;
  s.fn = std::move(fn);
  s.armed = true;
  loop_.at(std::max(t, loop_.now()), this, 0, i, s.gen);
  return (static_cast<uint64_t>(s.gen) << 32 | i) + 1;
}

fw::TimerId SimClock::at(Time t, fw::TimerTarget* target, uint64_t tag) {
  return arm(t, target, tag, nullptr);
}

fw::TimerId SimClock::at(Time t, std::function<void()> fn) {
  return arm(t, nullptr, 0, std::move(fn));
}

void SimClock::cancel(fw::TimerId id) {
  if (id == fw::kNoTimer) return;
  const uint64_t v = id - 1;
  const uint32_t i = static_cast<uint32_t>(v);
  if (i >= slots_.size()) return;
  Slot& s = slots_[i];
  if (!s.armed || s.gen != static_cast<uint32_t>(v >> 32)) return;
  // The loop event stays and is skipped when it comes up; the slot is freed then.
  s.armed = false;
  s.fn = nullptr;
}

void SimClock::handle(const Event& e) {
  const uint32_t i = static_cast<uint32_t>(e.a);
  Slot& s = slots_[i];
  if (s.gen != static_cast<uint32_t>(e.b)) return;
  const bool armed = s.armed;
  fw::TimerTarget* target = s.target;
  const uint64_t tag = s.tag;
  std::function<void()> fn = std::move(s.fn);
  s.armed = false;
  s.fn = nullptr;
  ++s.gen;
  free_.push_back(i);
  if (!armed) return;
  if (target) {
    target->on_timer(tag);
  } else if (fn) {
    fn();
  }
}

}  // namespace orrery::sim
