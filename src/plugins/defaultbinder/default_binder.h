// DefaultBinder (Bind): binds the pod through the backend (the API's pods/binding in a cluster).
#pragma once

#include "framework/plugin.h"

namespace orrery::plugins {

class DefaultBinder : public fw::Plugin {
 public:
  std::string_view name() const override;
  uint32_t extension_points() const override { return fw::kBind; }
  fw::Status bind(const fw::CycleContext& cycle, NodeId node, fw::ClusterBackend& backend) override;
};

}  // namespace orrery::plugins
