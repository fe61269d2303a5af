#include "plugins/defaultbinder/default_binder.h"

#include "plugins/helper/names.h"

namespace orrery::plugins {

std::string_view DefaultBinder::name() const {
  return names::kDefaultBinder;
}

fw::Status DefaultBinder::bind(const fw::CycleContext& cycle, NodeId node,
                               fw::ClusterBackend& backend) {
  backend.bind(cycle.pod_id, node);
  return fw::Status::ok();
}

}  // namespace orrery::plugins
