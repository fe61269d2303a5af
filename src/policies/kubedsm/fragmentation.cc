#include "policies/kubedsm/fragmentation.h"

namespace orrery::kubedsm {

double edge_frag(std::span<const Vec2> free, const FragNorm& n) {
  double f = 0;
  for (const Vec2& v : free) f += node_frag(v, n);
  return f;
}

double edge_frag(const EdgeModel& m) {
  const FragNorm n(m.total_capacity());
  double f = 0;
  for (size_t k = 0; k < m.node_count(); ++k) f += node_frag(m.free(k), n);
  return f;
}

}  // namespace orrery::kubedsm
