#include "policies/kubedsm/fragmentation.h"

namespace orrery::kubedsm {

double edge_frag(std::span<const Vec2> free, const FragNorm& n) {
  double f = 0;
  for (size_t k = 0; k < free.size(); ++k) f += node_frag(free[k], n, k);
  return f;
}

double edge_frag(const EdgeModel& m) {
  return edge_frag(m, FragNorm(m.total_capacity()));
}

double edge_frag(const EdgeModel& m, const FragNorm& n) {
  double f = 0;
  for (size_t k = 0; k < m.node_count(); ++k) f += node_frag(m.free(k), n, k);
  return f;
}

}  // namespace orrery::kubedsm
