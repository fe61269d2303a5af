// The same phase model as an integer program, solved by CBC (COIN-OR, Debian coinor-libcbc-dev):
// the independent certifier of the portfolio.
//
//   x_pj ∈ {0,1} for pods p in scope and nodes j feasible for p
//   Σ_j x_pj <= 1                                  (3)
//   Σ_p req_pd · x_pj <= cap_jd  for every j, d    (1), (2) and every other requested resource
//   Σ_{p∈t} Σ_j x_pj >= min_placed[t]              (lines 8/10)
//   Σ_{p∈t running} (Σ_j x_pj + x_p,where) >= 2·R_t − max_disruption[t]   (lines 17/19)
//   phase 1: max Σ_{p∈tier} Σ_j x_pj; phase 2: max Σ_{p∈tier running} (Σ_j x_pj + x_p,where)
// (the paper's metric; disruption = 2·R − metric).
#pragma once

#include "policies/optpack/budget.h"
#include "policies/optpack/phase.h"

namespace orrery::optpack {

// `incumbent` (satisfying the problem) seeds CBC's best solution. In deterministic mode CBC is
// limited by nodes (deadline.limit() · kCbcNodesPerSecond), otherwise by wall-clock seconds.
PhaseOutcome solve_with_cbc(const PhaseProblem& pb, const Assignment& incumbent,
                            Deadline& deadline);

inline constexpr int kCbcNodesPerSecond = 2000;

// CBC's root (LP, cuts) does not look at the clock: on a 32-node, 256-pod call (8192 variables)
// it overran a 0.1 s limit by seconds. The portfolio therefore gives CBC only calls with at most
// this many (pod, node) variables; larger ones are left to the branch-and-bound.
inline constexpr size_t kCbcMaxVariables = 2500;

// The number of x_pj variables the call's program has.
size_t cbc_variables(const PhaseProblem& pb);

}  // namespace orrery::optpack
