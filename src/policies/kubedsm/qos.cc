#include "policies/kubedsm/qos.h"

#include <fmt/format.h>

#include "core/error.h"

namespace orrery::kubedsm {

void QosParams::validate() const {
  if (!(beta >= 0 && beta < alpha && alpha < gamma))
    throw InputError(fmt::format(
        "kubedsm: QoS parameters must satisfy 0 <= beta < alpha << gamma (eq. 5); got alpha={}, "
        "beta={}, gamma={}",
        alpha, beta, gamma));
}

ServiceCounts count_pods(const EdgeModel& m) {
  ServiceCounts c;
  c.total.assign(m.services.size(), 0);
  c.edge.assign(m.services.size(), 0);
  for (const ModelPod& p : m.pods) {
    ++c.total[p.service];
    if (p.node != kCloud) ++c.edge[p.service];
  }
  return c;
}

double total_qos(const QosParams& p, const EdgeModel& m, const ServiceCounts& c) {
  double q = 0;
  for (size_t s = 0; s < m.services.size(); ++s)
    q += service_qos(p, m.services[s].qos_target, c.edge[s], c.total[s]);
  return q;
}

int migrations(int32_t before, int32_t after) {
  if (before == after) return 0;
  // Σ_k |u_k − u'_k| is 2 between edge nodes, 1 otherwise; |Σu − Σu'| is 0 or 1 respectively.
  const int changes = (before != kCloud) + (after != kCloud);
  const int tier_change = (before == kCloud) != (after == kCloud) ? 1 : 0;
  return (changes + tier_change) / 2;
}

}  // namespace orrery::kubedsm
