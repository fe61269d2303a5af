#include "plugins/schedulinggates/scheduling_gates.h"

#include "plugins/helper/names.h"

namespace orrery::plugins {

std::string_view SchedulingGates::name() const {
  return names::kSchedulingGates;
}

fw::Status SchedulingGates::pre_enqueue(const ClusterState& state, PodId pod) {
  const std::vector<std::string>& gates = state.pod(pod).scheduling_gates;
  if (gates.empty()) return fw::Status::ok();
  std::string list;
  for (const std::string& g : gates) list += (list.empty() ? "" : " ") + g;
  return fw::Status::unschedulable(names::kSchedulingGates,
                                   "waiting for scheduling gates: [" + list + "]",
                                   /*unresolvable=*/true);
}

}  // namespace orrery::plugins
