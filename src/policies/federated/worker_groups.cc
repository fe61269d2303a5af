#include "policies/federated/worker_groups.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace orrery::federated {

WorkerGroups::WorkerGroups(uint32_t groups, uint32_t group_size, uint32_t constraints)
    : groups_(groups), size_(group_size), k_(constraints), words_(words_for(group_size)) {
  if (constraints > kMaxConstraints) throw std::invalid_argument("too many constraints");
  bits_.assign(static_cast<size_t>(groups) * k_ * words_, 0);
  full_.assign(words_, 0);
  for (uint32_t i = 0; i < size_; ++i) set_bit(full_.data(), i);
}

void WorkerGroups::set(uint32_t g, uint32_t k, uint32_t i) {
  set_bit(bits_.data() + (static_cast<size_t>(g) * k_ + k) * words_, i);
}

void WorkerGroups::finalize() {
  masks_.assign(workers(), 0);
  counts_.assign(workers(), 0);
  level_bits_.assign(static_cast<size_t>(groups_) * (k_ + 1) * words_, 0);
  level_list_.assign(static_cast<size_t>(groups_) * (k_ + 1), 0);
  level_count_.assign(groups_, 0);
  for (uint32_t g = 0; g < groups_; ++g) {
    for (uint32_t k = 0; k < k_; ++k) {
      const uint64_t* b = bits(g, k);
      for_each_set(b, words_, [&](size_t i) {
        masks_[static_cast<size_t>(g) * size_ + i] |= ConstraintMask{1} << k;
      });
    }
    bool present[kMaxConstraints + 1] = {};
    for (uint32_t i = 0; i < size_; ++i) {
      const size_t w = static_cast<size_t>(g) * size_ + i;
      const auto c = static_cast<uint8_t>(std::popcount(masks_[w]));
      counts_[w] = c;
      present[c] = true;
      set_bit(level_bits_.data() + (static_cast<size_t>(g) * (k_ + 1) + c) * words_, i);
    }
    for (uint32_t c = 0; c <= k_; ++c)
      if (present[c])
        level_list_[static_cast<size_t>(g) * (k_ + 1) + level_count_[g]++] =
            static_cast<uint8_t>(c);
  }
}

size_t WorkerGroups::count_satisfying(uint32_t g, ConstraintMask task) const {
  size_t n = 0;
  const ConstraintMask* m = masks_.data() + static_cast<size_t>(g) * size_;
  for (uint32_t i = 0; i < size_; ++i) n += (m[i] & task) == task;
  return n;
}

std::vector<ConstraintMask> WorkerGroups::distinct_masks() const {
  std::vector<ConstraintMask> out(masks_);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

WorkerGroups WorkerGroups::replicated(uint32_t copies) const {
  WorkerGroups out(groups_ * copies, size_, k_);
  const size_t per = bits_.size();
  for (uint32_t c = 0; c < copies; ++c)
    std::copy(bits_.begin(), bits_.end(), out.bits_.begin() + static_cast<ptrdiff_t>(c * per));
  out.finalize();
  return out;
}

}  // namespace orrery::federated
