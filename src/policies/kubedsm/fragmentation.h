// Resource fragmentation of the edge (paper §5.2, Algorithms 6 and 8). The paper's formula was lost
// in the text; this is orrery's definition (see README.md, "Fragmentation"):
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
#include <span>

#include "policies/kubedsm/model.h"

namespace orrery::kubedsm {

// Reciprocals of (M_CPU, M_MEM), computed once per model.
struct FragNorm {
  double inv_cpu = 0;
  double inv_mem = 0;
  explicit FragNorm(const Vec2& total)
      : inv_cpu(total.cpu > 0 ? 1.0 / static_cast<double>(total.cpu) : 0.0),
        inv_mem(total.mem > 0 ? 1.0 / static_cast<double>(total.mem) : 0.0) {}
};

// frag of one node with the given free resources. Negative free (an over-committed node) counts
// as none.
inline double node_frag(const Vec2& free, const FragNorm& n) {
  const double c = std::max<double>(0.0, static_cast<double>(free.cpu) * n.inv_cpu);
  const double m = std::max<double>(0.0, static_cast<double>(free.mem) * n.inv_mem);
  const double b = std::min(c, m);
  return b * (2.0 - b) + 2.0 * std::abs(c - m);
}

// frag(CS) for the model's current usage.
double edge_frag(const EdgeModel& m);
double edge_frag(std::span<const Vec2> free, const FragNorm& n);

}  // namespace orrery::kubedsm
