// Machine constraints of a data centre as bit vectors (paper §4.1). The workers are split into
// equal-sized groups — Megha's partitions (one per GM inside each LM's cluster) or PigeonC's
// clusters (one per Master). For group j and constraint k, B_k^j holds one bit per worker of the
// group: set when the worker satisfies machine constraint k. Also kept per group: each worker's
// constraint set (a mask) and, for Minimum Constraints (§4.3.2), the workers grouped by how many
// machine constraints they satisfy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "policies/federated/bits.h"

namespace orrery::federated {

class WorkerGroups {
 public:
  WorkerGroups() = default;
  // All groups have `group_size` workers; `constraints` <= kMaxConstraints.
  WorkerGroups(uint32_t groups, uint32_t group_size, uint32_t constraints);

  uint32_t groups() const { return groups_; }
  uint32_t group_size() const { return size_; }
  uint32_t constraints() const { return k_; }
  size_t words() const { return words_; }  // 64-bit words per group bit vector
  size_t workers() const { return static_cast<size_t>(groups_) * size_; }

  // Builder: worker i of group g satisfies constraint k. Call finalize() after the last set().
  void set(uint32_t g, uint32_t k, uint32_t i);
  void finalize();

  // B_k of group g (words() words).
  const uint64_t* bits(uint32_t g, uint32_t k) const {
    return bits_.data() + (static_cast<size_t>(g) * k_ + k) * words_;
  }
  // A vector with the group_size() valid bits set (the same for every group).
  const uint64_t* full() const { return full_.data(); }

  // Machine-constraint set of worker i of group g, and of a worker by global index
  // (g * group_size() + i).
  ConstraintMask worker_mask(uint32_t g, uint32_t i) const {
    return masks_[static_cast<size_t>(g) * size_ + i];
  }
  ConstraintMask worker_mask(size_t global) const { return masks_[global]; }
  uint32_t constraint_count(size_t global) const { return counts_[global]; }

  // Minimum Constraints support: the distinct constraint counts present in group g in ascending
  // order, and the bit vector of the group's workers with exactly `level` machine constraints.
  std::span<const uint8_t> levels(uint32_t g) const {
    return {level_list_.data() + static_cast<size_t>(g) * (k_ + 1), level_count_[g]};
  }
  const uint64_t* level_bits(uint32_t g, uint32_t level) const {
    return level_bits_.data() + (static_cast<size_t>(g) * (k_ + 1) + level) * words_;
  }

  // Workers of group g satisfying every constraint in `task`, ignoring availability.
  size_t count_satisfying(uint32_t g, ConstraintMask task) const;
  // The distinct worker constraint sets of the whole data centre, ascending.
  std::vector<ConstraintMask> distinct_masks() const;

  // `copies` copies of these groups one after another (used to build 20,000- and
  // 100,000-worker data centres from the published 10,000-worker configurations).
  WorkerGroups replicated(uint32_t copies) const;

 private:
  uint32_t groups_ = 0, size_ = 0, k_ = 0;
  size_t words_ = 0;
  std::vector<uint64_t> bits_;         // [group][constraint][word]
  std::vector<uint64_t> full_;         // [word]
  std::vector<ConstraintMask> masks_;  // [global worker]
  std::vector<uint8_t> counts_;        // [global worker] popcount of its mask
  std::vector<uint64_t> level_bits_;   // [group][level 0..K][word]
  std::vector<uint8_t> level_list_;    // [group][up to K+1 levels]
  std::vector<uint8_t> level_count_;   // [group]
};

}  // namespace orrery::federated
