#include "policies/federated/worker_scenario.h"

#include <utility>

namespace orrery::federated {

namespace {

std::string constraint_ids(ConstraintMask mask) {
  std::string ids;
  for_each_constraint(mask,
                      [&](uint32_t k) { ids += (ids.empty() ? "" : ",") + std::to_string(k); });
  return ids;
}

}  // namespace

sim::Scenario worker_scenario(const std::string& trace_file, const ClusterConfig& c) {
  sim::Scenario s = sim::trace_scenario(trace_file, static_cast<int>(c.workers()));
  const sim::NodeGroup all = std::move(s.node_groups.front());
  s.node_groups.clear();
  s.node_groups.reserve(c.workers());
  for (size_t w = 0; w < c.workers(); ++w) {
    sim::NodeGroup g = all;
    g.name = all.name + "-" + std::to_string(w);
    g.count = 1;
    const ConstraintMask mask = c.groups.worker_mask(w);
    if (mask != 0) g.tmpl.annotations.set("orrery.io/constraints", constraint_ids(mask));
    g.where = c.source + ": worker " + std::to_string(w);
    s.node_groups.push_back(std::move(g));
  }
  return s;
}

}  // namespace orrery::federated
