// SchedulingGates (pkg/scheduler/framework/plugins/schedulinggates): a pod with
// spec.schedulingGates stays out of the scheduling queue (PreEnqueue) until every gate is
// removed by an update. Its status message is upstream's: "waiting for scheduling gates: [a b]".
#pragma once

#include "framework/plugin.h"

namespace orrery::plugins {

class SchedulingGates : public fw::Plugin {
 public:
  std::string_view name() const override;
  uint32_t extension_points() const override { return fw::kPreEnqueue; }
  fw::Status pre_enqueue(const ClusterState& state, PodId pod) override;
};

}  // namespace orrery::plugins
