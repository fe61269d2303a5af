// Constraint matching (paper §4.3, Algorithm 1). For one group (partition or cluster):
//   result <- R (availability vector); for each c in C_T: result <- result AND B[c]
// The set bits of `result` are the suitable workers; one is chosen by
//   Random (§4.3.1): uniformly at random, or
//   Minimum Constraints (§4.3.2): the suitable worker with the fewest machine constraints
//   (argmin popcount of its constraint set); ties go to the lowest worker index, as in the
//   reference simulator.
// Usable outside the simulator: it needs only a WorkerGroups and an availability vector.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/rng.h"
#include "policies/federated/worker_groups.h"

namespace orrery::federated {

enum class Pick : uint8_t { kRandom, kMinConstraints };

std::string_view pick_name(Pick p);  // "rand" / "min" (the paper's Megha_rand / Megha_min)

class Matcher {
 public:
  explicit Matcher(const WorkerGroups& groups)
      : groups_(&groups), scratch_(groups.words() ? groups.words() : 1) {}

  // Algorithm 1 on group g with availability vector `avail` (groups.words() words). Returns the
  // chosen worker's index within the group, or -1 when no available worker satisfies `task`.
  // Random draws exactly one number from `rng` per successful match; Minimum Constraints none.
  int32_t match(uint32_t g, const uint64_t* avail, ConstraintMask task, Pick pick, Rng& rng);

  // The suitable-worker vector of the last match() call (for tests and diagnostics).
  const uint64_t* last_result() const { return scratch_.data(); }

 private:
  const WorkerGroups* groups_;
  std::vector<uint64_t> scratch_;
};

}  // namespace orrery::federated
