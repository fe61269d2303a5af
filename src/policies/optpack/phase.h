// One solver call of Algorithm 1: a tier, a phase (maximise placed pods / minimise disruption)
// and the constraints fixed by the earlier calls (lines 8, 10, 17, 19).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policies/optpack/model.h"

namespace orrery::optpack {

enum class Phase : uint8_t { kPlace, kDisrupt };

// What earlier calls fixed, per tier (-1: nothing), over the pods of that tier and every more
// important one, as the paper's metrics are (Σ over p.priority <= pr). The paper writes "= v" after
// an OPTIMAL call and ">= v" / "<= v" after a FEASIBLE one; since an OPTIMAL v is the best
// possible, ">= v" and
// "<= v" say the same there, so one-sided bounds suffice.
struct Fixings {
  std::vector<int> min_placed;      // tier t → placed pods of tiers 0..t >= value
  std::vector<int> max_disruption;  // tier t → disruption of tiers 0..t <= value
  explicit Fixings(int tiers = 0) : min_placed(tiers, -1), max_disruption(tiers, -1) {}
};

struct PhaseProblem {
  const Model* m = nullptr;
  int tier = 0;
  Phase phase = Phase::kPlace;
  Fixings fix;

  // Pods of tiers below `tier` are not part of the model yet.
  bool in_scope(int pod) const { return m->tier[pod] <= tier; }
  // The objective as a cost to minimise: −(placed pods of tiers 0..tier) or their disruption.
  int64_t cost(const Assignment& a) const;
  // Capacity, feasibility, out-of-scope pods unplaced, and every fixing.
  bool satisfies(const Assignment& a, std::string* why = nullptr) const;
};

struct PhaseOutcome {
  Assignment best;
  int64_t cost = 0;
  bool optimal = false;  // proven
  int64_t work = 0;      // search nodes / evaluations / CBC nodes
};

}  // namespace orrery::optpack
