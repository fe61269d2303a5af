#include "policies/kubedsm/match.h"

#include <algorithm>
#include <limits>

namespace orrery::kubedsm {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

const MatchResult& Matcher::match(std::span<const Vec2> free, std::span<const Vec2> pods,
                                  const FragNorm& norm) {
  result_.target.assign(pods.size(), kCloud);
  result_.matched = 0;
  free_.assign(free.begin(), free.end());

  // Chunks whose count-vector space fits kMaxStates; one chunk unless the batch has many shapes.
  size_t first = 0;
  while (first < pods.size()) {
    size_t last = first;
    group_vec_.clear();
    group_count_.clear();
    size_t states = 1;
    while (last < pods.size()) {
      size_t g = 0;
      while (g < group_vec_.size() && !(group_vec_[g] == pods[last])) ++g;
      // Adding a pod to group g multiplies the state count by (c_g + 2) / (c_g + 1).
      const size_t c = g < group_vec_.size() ? group_count_[g] : 0;
      const size_t next = states / (c + 1) * (c + 2);
      if (next > kMaxStates && last > first) break;
      states = next;
      if (g == group_vec_.size()) {
        group_vec_.push_back(pods[last]);
        group_count_.push_back(0);
      }
      ++group_count_[g];
      ++last;
    }
    match_exact(pods, first, last, norm);
    first = last;
  }
  result_.frag = edge_frag(free_, norm);
  return result_;
}

void Matcher::enumerate_curs(size_t g, Vec2 room, uint32_t idx, const FragNorm& norm, double base) {
  if (g == group_vec_.size()) {
    cur_idx_.push_back(idx);
    cur_delta_.push_back(node_frag(room, norm, cur_node_) - base);
    cur_digits_.insert(cur_digits_.end(), digits_scratch_.begin(), digits_scratch_.end());
    return;
  }
  for (uint32_t k = 0;; ++k) {
    digits_scratch_[g] = static_cast<uint16_t>(k);
    enumerate_curs(g + 1, room, idx + k * stride_[g], norm, base);
    if (k == group_count_[g] || !group_vec_[g].fits_in(room)) break;
    room -= group_vec_[g];
  }
  digits_scratch_[g] = 0;
}

void Matcher::match_exact(std::span<const Vec2> pods, size_t first, size_t last,
                          const FragNorm& norm) {
  const size_t states = index_chunk(pods, first, last);
  enumerate_node_curs(norm);
  run_dp(states, norm);
  const size_t best = best_state(states);
  assign_targets(best, states, first, last);
}

size_t Matcher::index_chunk(std::span<const Vec2> pods, size_t first, size_t last) {
  const size_t groups = group_vec_.size();
  pod_group_.resize(last - first);
  for (size_t p = first; p < last; ++p) {
    size_t g = 0;
    while (!(group_vec_[g] == pods[p])) ++g;
    pod_group_[p - first] = static_cast<uint32_t>(g);
  }
  stride_.resize(groups + 1);
  stride_[0] = 1;
  for (size_t g = 0; g < groups; ++g) stride_[g + 1] = stride_[g] * (group_count_[g] + 1);
  return stride_[groups];
}

void Matcher::enumerate_node_curs(const FragNorm& norm) {
  const size_t groups = group_vec_.size();
  const size_t nodes = free_.size();
  // Feasible cur vectors per node, with their fragmentation change frag(E_i ∪ cur) − frag(E_i).
  cur_begin_.assign(1, 0);
  cur_idx_.clear();
  cur_delta_.clear();
  cur_digits_.clear();
  digits_scratch_.assign(groups, 0);
  for (size_t n = 0; n < nodes; ++n) {
    const double base = node_frag(free_[n], norm, n);
    cur_node_ = n;
    // The first entry is the empty cur (always allowed, even on an over-committed node).
    enumerate_curs(0, free_[n], 0, norm, base);
    cur_begin_.push_back(static_cast<uint32_t>(cur_idx_.size()));
  }
}

void Matcher::run_dp(size_t states, const FragNorm& norm) {
  const size_t groups = group_vec_.size();
  const size_t nodes = free_.size();
  // dp over nodes (eq. 15): dp_next[v + cur] = min(dp_prev[v] + Δfrag(cur)).
  dp_prev_.assign(states, kInf);
  dp_next_.resize(states);
  par_.assign(nodes * states, -1);
  dp_prev_[0] = edge_frag(free_, norm);  // eq. 13
  box_digits_.resize(groups);
  for (size_t n = 0; n < nodes; ++n) {
    std::fill(dp_next_.begin(), dp_next_.end(), kInf);
    int32_t* par = par_.data() + n * states;
    for (uint32_t e = cur_begin_[n]; e < cur_begin_[n + 1]; ++e) {
      const uint16_t* cur = cur_digits_.data() + static_cast<size_t>(e) * groups;
      const uint32_t off = cur_idx_[e];
      const double delta = cur_delta_[e];
      // v ranges over the box [0, c − cur] (so that v + cur is a state).
      std::fill(box_digits_.begin(), box_digits_.end(), 0);
      size_t v = 0;
      while (true) {
        const double from = dp_prev_[v];
        if (from != kInf) {
          const double val = from + delta;
          if (val < dp_next_[v + off]) {
            dp_next_[v + off] = val;
            par[v + off] = static_cast<int32_t>(e);
          }
        }
        size_t g = 0;
        for (; g < groups; ++g) {
          if (box_digits_[g] < group_count_[g] - cur[g]) {
            ++box_digits_[g];
            v += stride_[g];
            break;
          }
          v -= box_digits_[g] * stride_[g];
          box_digits_[g] = 0;
        }
        if (g == groups) break;
      }
    }
    std::swap(dp_prev_, dp_next_);
  }
}

size_t Matcher::best_state(size_t states) {
  const size_t groups = group_vec_.size();
  // The largest reachable subset, then the least fragmentation (Alg. 8 lines 18–26).
  size_t best = 0;
  uint32_t best_count = 0;
  std::fill(box_digits_.begin(), box_digits_.end(), 0);
  uint32_t count = 0;
  for (size_t v = 0; v < states; ++v) {
    if (dp_prev_[v] != kInf &&
        (count > best_count || (count == best_count && dp_prev_[v] < dp_prev_[best]))) {
      best = v;
      best_count = count;
    }
    for (size_t g = 0; g < groups; ++g) {
      if (box_digits_[g] < group_count_[g]) {
        ++box_digits_[g];
        ++count;
        break;
      }
      count -= box_digits_[g];
      box_digits_[g] = 0;
    }
  }
  return best;
}

void Matcher::assign_targets(size_t best, size_t states, size_t first, size_t last) {
  const size_t groups = group_vec_.size();
  const size_t nodes = free_.size();
  // Trace par back to (0, ∅) (lines 27–36) and hand the targets to the pods of each group in order.
  group_targets_.resize(groups);
  for (auto& t : group_targets_) t.clear();
  size_t t = best;
  for (size_t n = nodes; n-- > 0;) {
    const int32_t e = par_[n * states + t];
    const uint16_t* cur = cur_digits_.data() + static_cast<size_t>(e) * groups;
    for (size_t g = 0; g < groups; ++g) {
      for (uint16_t k = 0; k < cur[g]; ++k) group_targets_[g].push_back(static_cast<int32_t>(n));
      free_[n] -= group_vec_[g] * cur[g];
    }
    t -= cur_idx_[e];
  }
  for (auto& tg : group_targets_) std::sort(tg.begin(), tg.end());
  std::vector<uint32_t>& next = box_digits_;  // reuse: next unassigned target per group
  std::fill(next.begin(), next.end(), 0);
  for (size_t p = first; p < last; ++p) {
    const uint32_t g = pod_group_[p - first];
    if (next[g] < group_targets_[g].size()) {
      result_.target[p] = group_targets_[g][next[g]++];
      ++result_.matched;
    }
  }
}

}  // namespace orrery::kubedsm
