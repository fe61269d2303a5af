#include "policies/federated/matcher.h"

#include <bit>

namespace orrery::federated {

std::string_view pick_name(Pick p) {
  return p == Pick::kRandom ? "rand" : "min";
}

int32_t Matcher::match(uint32_t g, const uint64_t* avail, ConstraintMask task, Pick pick,
                       Rng& rng) {
  const WorkerGroups& wg = *groups_;
  const size_t words = wg.words();
  uint64_t* result = scratch_.data();
  // result <- R AND B[c] for every c in C_T, word by word (O(n * m / 64), eq. 4).
  uint64_t nonzero = 0;
  for (size_t w = 0; w < words; ++w) {
    uint64_t x = avail[w];
    for (ConstraintMask m = task; m && x; m &= m - 1)
      x &= wg.bits(g, static_cast<uint32_t>(std::countr_zero(m)))[w];
    result[w] = x;
    nonzero |= x;
  }
  if (!nonzero) return -1;
  if (pick == Pick::kRandom) {
    const size_t n = popcount(result, words);
    return static_cast<int32_t>(nth_set(result, words, rng.below(n)));
  }
  // Minimum Constraints: the lowest non-empty popcount level that intersects the result.
  for (uint8_t level : wg.levels(g)) {
    const uint64_t* lb = wg.level_bits(g, level);
    for (size_t w = 0; w < words; ++w)
      if (const uint64_t x = result[w] & lb[w])
        return static_cast<int32_t>(w * 64 + static_cast<size_t>(std::countr_zero(x)));
  }
  return -1;  // unreachable: every worker belongs to one level
}

}  // namespace orrery::federated
