// Fast incumbents for one phase: the starting solution (the previous call's answer, running pods
// of the new tier back on their nodes, pending ones by best fit) and a local search over moves,
// ejection chains of depth two, swaps and seeded random relocations.
#pragma once

#include "core/rng.h"
#include "policies/optpack/budget.h"
#include "policies/optpack/phase.h"

namespace orrery::optpack {

// Extends `start` (a solution of the previous call, which satisfies the problem's fixings) with
// the tier's pods: running ones on their current node when they fit, then pending and displaced
// ones by best fit, largest first.
Assignment greedy_start(const PhaseProblem& pb, const Assignment& start);

// Improves `a` (which must satisfy the problem) without ever making it worse or infeasible;
// returns the improved assignment. Stops at a local optimum after `kicks` random perturbation
// rounds, or at the deadline.
Assignment local_search(const PhaseProblem& pb, const Assignment& a, Deadline& deadline, Rng& rng,
                        int kicks = 64);

}  // namespace orrery::optpack
