// The time budget of Algorithm 1 (the paper's get_timeout) and the limit of one solver call.
//
// get_timeout() = α·T_total / K + unused (K tiers), split in half between a tier's two phases:
// each phase may use α·T_total/(2K) plus whatever the earlier phases left unused. The remaining
// (1 − α)·T_total is never handed to a solver; it is the slack for building the plan.
//
// Deterministic mode measures "time" in work units instead of seconds (search nodes, local-search
// evaluations, CBC nodes), kWorkPerSecond units standing for one second, so the same seed and
// budget give the same answer on any machine and under any load.
#pragma once

#include <chrono>
#include <cstdint>

namespace orrery::optpack {

inline constexpr int64_t kWorkPerSecond = 2'000'000;

// The limit of one solver call: wall-clock seconds, or work units in deterministic mode.
class Deadline {
 public:
  Deadline(double seconds, bool deterministic);
  // Counts `units` of work; true once the limit is reached (checked on the clock every 1024 units).
  bool spend(int64_t units = 1);
  bool expired() const { return expired_; }
  // Seconds (wall) or work / kWorkPerSecond (deterministic) used so far.
  double used() const;
  double wall_seconds() const;
  double limit() const { return limit_; }
  // Seconds left (wall or notional); >= 0.
  double left() const;
  bool deterministic() const { return deterministic_; }
  int64_t work() const { return work_; }

 private:
  using Clock = std::chrono::steady_clock;
  double limit_;
  bool deterministic_;
  int64_t work_ = 0;
  int64_t next_check_ = 0;
  bool expired_ = false;
  Clock::time_point start_;
};

// get_timeout() over the tiers and phases of one optimisation.
class TimeBudget {
 public:
  TimeBudget(double total_seconds, double alpha, int tiers);
  // The limit of the next phase: α·T/(2K) plus the unused remainder of earlier phases.
  double next_phase();
  // Records what the phase that got next_phase() actually used.
  void used(double seconds);

 private:
  double share_;
  double unused_ = 0;
  double granted_ = 0;
};

}  // namespace orrery::optpack
