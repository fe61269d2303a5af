// The plugins' one handle on the framework, like upstream's framework.Handle (which frameworkImpl,
// the per-profile framework runner, implements). A plugin gets it from its factory
// (PluginArgs::handle) and may keep it; PostFilter plugins are handed the same object at each
// call. Through it a plugin reaches
//  - what it runs in: the runtime (cluster, clock and timers, the world's services such as
//    NodeTelemetry, the shared reservations) and the other plugins of its profile;
//  - preemption's what-if services (upstream's PluginsRunner part of the Handle:
//    RunFilterPluginsWithNominatedPods, RunPreFilterExtensionRemovePod/AddPod): the live state
//    and the backend of the Scheduler running the profile, and the profile's filters on one node.
// Each profile has one, its FrameworkRunner (profile.h). The Scheduler that runs the profile sets
// it up for the what-if services, so they work even for a profile built without a runtime (unit
// tests, the extender's snapshot schedulers), whose has_runtime() is false.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "framework/cycle.h"

namespace orrery::fw {

class ClusterBackend;
class Plugin;
struct Runtime;

class Handle {
 public:
  virtual ~Handle() = default;

  // ---- what the plugin runs in ----
  // Throws std::logic_error when the profile was built without a runtime (plugins built alone,
  // e.g. in unit tests); has_runtime() tells.
  virtual Runtime& runtime() const = 0;
  virtual bool has_runtime() const = 0;
  // Another plugin of the same profile by name, or nullptr. Plugins are created one by one, so
  // look others up when first needed, not in the factory.
  virtual Plugin* plugin(std::string_view name) const = 0;

  // ---- what-if services (PostFilter, e.g. preemption) ----
  // mutable_state, passes_filters and backend are those of the Scheduler running the profile
  // (std::logic_error when none does).
  // The live state, for temporarily removing/re-adding pods; it must be restored before
  // post_filter returns.
  virtual ClusterState& mutable_state() = 0;
  // Runs the profile's filters for the cycle's pod on one node against the current state, with
  // the pods nominated to that node (of at least the pod's priority) assumed there, as upstream's
  // RunFilterPluginsWithNominatedPods. PreFilter state must have been told about pods removed/added
  // since pre_filter (removed_pod/added_pod). On failure, `reasons` (if given) receives the first
  // failing filter's reason strings.
  virtual bool passes_filters(const CycleContext& cycle, NodeId node,
                              std::vector<std::string>* reasons = nullptr) = 0;
  // The profile's PreFilterExtensions (upstream RunPreFilterExtensionRemovePod/AddPod): `pod` was
  // removed from / added to `node` in the state since pre_filter.
  virtual void removed_pod(const CycleContext& cycle, PodId pod, NodeId node) = 0;
  virtual void added_pod(const CycleContext& cycle, PodId pod, NodeId node) = 0;
  virtual ClusterBackend& backend() = 0;
};

}  // namespace orrery::fw
