// A scheduling profile: the plugins enabled at each extension point, with score weights, and the
// profile's knobs. Built from configuration by build_profile() (framework/config.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "framework/handle.h"
#include "framework/plugin.h"

namespace orrery::fw {

class Scheduler;
struct Profile;

// A profile's framework runner: its one Handle (handle.h), as upstream's frameworkImpl is its
// profile's framework.Handle. The runtime part is given at construction (null: none); the
// what-if part runs on the Scheduler that runs the profile, which attaches itself when it takes
// the profile (Scheduler's constructor).
class FrameworkRunner final : public Handle {
 public:
  FrameworkRunner(Runtime* runtime, Profile* profile) : rt_(runtime), profile_(profile) {}

  Runtime& runtime() const override;
  bool has_runtime() const override { return rt_ != nullptr; }
  Plugin* plugin(std::string_view name) const override;

  // What-if services (scheduling_cycle.cc).
  ClusterState& mutable_state() override;
  bool passes_filters(const CycleContext& cycle, NodeId node,
                      std::vector<std::string>* reasons) override;
  void removed_pod(const CycleContext& cycle, PodId pod, NodeId node) override;
  void added_pod(const CycleContext& cycle, PodId pod, NodeId node) override;
  ClusterBackend& backend() override;

  void attach(Scheduler& scheduler) { scheduler_ = &scheduler; }

 private:
  Scheduler& scheduler() const;  // the attached one; std::logic_error when none

  Runtime* rt_;
  Profile* profile_;
  Scheduler* scheduler_ = nullptr;
  Rejections scratch_;  // passes_filters' rejections (reused: no allocation per call)
};

struct WeightedPlugin {
  Plugin* plugin;
  int64_t weight;
};

struct Profile {
  std::string scheduler_name = "default-scheduler";
  // -1 = the scheduler's global setting (SchedulerOptions); 0 = adaptive (upstream
  // numFeasibleNodesToFind); 1..100 = fixed percentage.
  int percentage_of_nodes_to_score = -1;
  // Ties between top-scored nodes: false = seeded reservoir sampling as upstream, true = the
  // lexicographically smallest node name (reproducible across node orderings).
  bool deterministic_ties = false;

  std::vector<std::unique_ptr<Plugin>> plugins;  // owned; index is Rejection::plugin

  Plugin* queue_sort = nullptr;
  std::vector<Plugin*> pre_enqueue, pre_filter, filter, post_filter, pre_score, reserve, permit,
      mutate, pre_bind, bind, post_bind;
  std::vector<WeightedPlugin> score;
  // The profile's framework runner, the Handle given to its plugins (PluginArgs::handle, and to
  // post_filter); over the runtime build_profile was given (none in tests). Null until a
  // Scheduler takes a profile built without one (unit tests' hand-built profiles), which then
  // creates it without a runtime.
  std::unique_ptr<FrameworkRunner> handle;

  // Adds a plugin (taking ownership) and enables it at `points` (a mask of ExtensionPoint that
  // must be a subset of what it implements) with the given score weight.
  Plugin* add(std::unique_ptr<Plugin> plugin, uint32_t points, int64_t weight = 1);
  int index_of(const Plugin* p) const;
  Plugin* find(std::string_view name) const;
};

}  // namespace orrery::fw
