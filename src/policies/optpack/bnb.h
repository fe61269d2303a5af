// The exact branch-and-bound for one phase of Algorithm 1: a depth-first search over the pods of
// the tier's scope (most important tier first, larger pods first), each pod going to its current
// node first, then the other feasible nodes, then nowhere. Prunes with
//  - the fixings of the earlier calls (placed counts that can no longer be reached, disruption
//    already above its bound);
//  - phase 1: the resource relaxation (the k smallest remaining pods of the tier must fit in the
//    summed free capacity, per dimension) and the bin-by-bin cardinality bound (Σ over nodes of
//    how many of the smallest remaining pods fit in that node alone);
//  - phase 2: every running pod whose current node can no longer take it costs at least 1;
// and breaks symmetry between identical pods (consecutive in the order, node indices
// non-decreasing) and identical empty nodes (only the first is tried).
#pragma once

#include "policies/optpack/budget.h"
#include "policies/optpack/phase.h"

namespace orrery::optpack {

// Searches for a solution better than `incumbent` (which must satisfy the problem). `optimal`
// is set when the search space was exhausted.
PhaseOutcome branch_and_bound(const PhaseProblem& pb, const Assignment& incumbent,
                              Deadline& deadline);

}  // namespace orrery::optpack
