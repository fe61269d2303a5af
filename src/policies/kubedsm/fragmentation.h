// Resource fragmentation of the edge (paper §5.2, Algorithms 6 and 8). The paper's formula was lost
// in the text. Two definitions are available (`fragmentation:` in the scheduler args):
//
// MineDraft's (the authors' metric code, `calc_node_fragmentation`; the default), per node k with
// capacity C_k and used resources U_k:
//
//   frag(E_k) = 1 − (U_k,cpu / C_k,cpu) · (U_k,mem / C_k,mem),   frag(CS) = Σ_k frag(E_k)
//
// (each share clamped to [0, 1]); minimising it maximises Σ_k of the product of the node's used
// shares, which is what ecmus's matcher (FitInEdge) maximises. And orrery's ("orrery", README.md
// "Fragmentation"):
//
//   c_k = free_cpu(E_k) / M_CPU,  m_k = free_mem(E_k) / M_MEM   (free space normalised as in eq.
//   11) b_k = min(c_k, m_k)                                         (balanced, usable free space)
//   frag(E_k) = b_k·(2 − b_k) + 2·|c_k − m_k|
//   frag(CS)  = Σ_k frag(E_k)
//
// Why this shape (each property is tested in fragmentation_test.cc):
//  - additive over nodes, which the match DP needs (eq. 14 adds frag(E_i ∪ cur) − frag(E_i));
//  - 0 exactly when every node is full, and never negative;
//  - the balanced part g(b) = b(2 − b) is strictly concave and increasing on [0, 1], so free space
//    consolidated on one node scores lower than the same space split across nodes
//    (g(x) + g(y) − g(x + y) = 2xy > 0), and moving free space onto the node that already has
//    more of it lowers frag;
//  - free cpu without free memory (or the reverse) is stranded: it costs 2 per unit, at least the
//    slope of g anywhere, so stranded space always costs at least as much as usable space, and
//    putting stranded cpu and stranded memory together on one node lowers frag.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>

#include "policies/kubedsm/model.h"

namespace orrery::kubedsm {

enum class FragFormula : uint8_t {
  kMineDraft,  // 1 − product of the node's used shares (the authors' metric)
  kOrrery,     // orrery's concave free-space measure above
};

// What the formulas need: reciprocals of (M_CPU, M_MEM), computed once per model (orrery's), and
// the capacity of every edge node, by node index (MineDraft's).
struct FragNorm {
  double inv_cpu = 0;
  double inv_mem = 0;
  FragFormula formula = FragFormula::kOrrery;
  std::span<const Vec2> capacity;  // per edge node (kMineDraft); must outlive the FragNorm
  explicit FragNorm(const Vec2& total)
      : inv_cpu(total.cpu > 0 ? 1.0 / static_cast<double>(total.cpu) : 0.0),
        inv_mem(total.mem > 0 ? 1.0 / static_cast<double>(total.mem) : 0.0) {}
  FragNorm(const Vec2& total, FragFormula f, std::span<const Vec2> node_capacity)
      : FragNorm(total) {
    formula = f;
    capacity = node_capacity;
  }
};

// MineDraft's frag of a node of capacity `cap` with `free` resources left.
inline double minedraft_node_frag(const Vec2& free, const Vec2& cap) {
  auto used_share = [](int64_t f, int64_t c) {
    if (c <= 0) return 0.0;
    return std::clamp(static_cast<double>(c - f) / static_cast<double>(c), 0.0, 1.0);
  };
  return 1.0 - used_share(free.cpu, cap.cpu) * used_share(free.mem, cap.mem);
}

// frag of edge node `k` with the given free resources. Negative free (an over-committed node)
// counts as none. Orrery's formula does not depend on k.
inline double node_frag(const Vec2& free, const FragNorm& n, size_t k = 0) {
  if (n.formula == FragFormula::kMineDraft && k < n.capacity.size())
    return minedraft_node_frag(free, n.capacity[k]);
  const double c = std::max<double>(0.0, static_cast<double>(free.cpu) * n.inv_cpu);
  const double m = std::max<double>(0.0, static_cast<double>(free.mem) * n.inv_mem);
  const double b = std::min(c, m);
  return b * (2.0 - b) + 2.0 * std::abs(c - m);
}

// frag(CS) for the model's current usage (orrery's formula; or the given one).
double edge_frag(const EdgeModel& m);
double edge_frag(const EdgeModel& m, const FragNorm& n);
double edge_frag(std::span<const Vec2> free, const FragNorm& n);

}  // namespace orrery::kubedsm
