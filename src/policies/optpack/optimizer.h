// Algorithm 1: tier by tier, most important first, (1) maximise the placed pods of the tiers so
// far and fix the count, (2) minimise the disruption of their running pods and fix it; each call
// gets get_timeout() (budget.h) and is solved by the portfolio: greedy start → local search →
// branch-and-bound → CBC, keeping the best solution and any proof.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "policies/optpack/model.h"

namespace orrery::optpack {

// OPTIMAL: proven. FEASIBLE: improved on the call's start but not proven. TIMEOUT: the deadline
// ended the call without a proof and without improving on its start (the start — the previous
// call's answer extended greedily — is kept).
enum class SolveStatus : uint8_t { kOptimal, kFeasible, kTimeout };
std::string_view to_string(SolveStatus s);

struct PhaseReport {
  SolveStatus status = SolveStatus::kTimeout;
  int value = 0;       // the phase's metric: placed pods / disruption of tiers 0..t
  double seconds = 0;  // wall-clock time of the call
  double budget = 0;   // what get_timeout() granted (seconds, or notional in deterministic mode)
  std::string solver;  // which part of the portfolio gave the answer or the proof
};

struct TierReport {
  int32_t priority = 0;
  int pods = 0;  // pods of this tier in the model
  int placed_before = 0, placed_after = 0;
  int disruption = 0;  // of this tier's running pods (0 stay, 1 move, 2 evict)
  PhaseReport placement, disruption_phase;
};

struct OptimizeOptions {
  double timeout_s = 1.0;
  double alpha = 0.8;
  bool deterministic = false;  // work units instead of wall time (budget.h)
  uint64_t seed = 0;
  bool use_bnb = true;
  bool use_cbc = true;
  bool use_local_search = true;
};

struct OptimizeResult {
  Assignment assignment;
  std::vector<TierReport> tiers;
  double seconds = 0;
  // Every placement phase proven optimal.
  bool placement_proven() const;
  // Placed counts per tier, lexicographically larger than the current placement's.
  bool improves_on_current() const;
};

OptimizeResult optimize(const Model& m, const OptimizeOptions& options);

}  // namespace orrery::optpack
