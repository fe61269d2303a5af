#include "policies/optpack/budget.h"

#include <algorithm>

namespace orrery::optpack {

Deadline::Deadline(double seconds, bool deterministic)
    : limit_(std::max(0.0, seconds)), deterministic_(deterministic), start_(Clock::now()) {
  expired_ = limit_ <= 0;
}

bool Deadline::spend(int64_t units) {
  if (expired_) return true;
  work_ += units;
  if (deterministic_) {
    expired_ = static_cast<double>(work_) >= limit_ * static_cast<double>(kWorkPerSecond);
  } else if (work_ >= next_check_) {
    next_check_ = work_ + 1024;
    expired_ = wall_seconds() >= limit_;
  }
  return expired_;
}

double Deadline::wall_seconds() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

double Deadline::used() const {
  return deterministic_ ? static_cast<double>(work_) / static_cast<double>(kWorkPerSecond)
                        : wall_seconds();
}

double Deadline::left() const {
  return std::max(0.0, limit_ - used());
}

TimeBudget::TimeBudget(double total_seconds, double alpha, int tiers)
    : share_(std::max(0.0, total_seconds) * std::clamp(alpha, 0.0, 1.0) /
             (2.0 * std::max(1, tiers))) {}

double TimeBudget::next_phase() {
  granted_ = share_ + unused_;
  return granted_;
}

void TimeBudget::used(double seconds) {
  unused_ = std::max(0.0, granted_ - seconds);
}

}  // namespace orrery::optpack
