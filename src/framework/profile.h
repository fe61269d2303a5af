// A scheduling profile: the plugins enabled at each extension point, with score weights, and the
// profile's knobs. Built from configuration by build_profile() (framework/config.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "framework/handle.h"
#include "framework/plugin.h"

namespace orrery::fw {

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
  // Given to the profile's plugins; reaches `runtime` (null: built without one, e.g. in tests).
  std::unique_ptr<Handle> handle;

  // Adds a plugin (taking ownership) and enables it at `points` (a mask of ExtensionPoint that
  // must be a subset of what it implements) with the given score weight.
  Plugin* add(std::unique_ptr<Plugin> plugin, uint32_t points, int64_t weight = 1);
  int index_of(const Plugin* p) const;
  Plugin* find(std::string_view name) const;
};

struct Runtime;
// A profile's Handle over `runtime` (may be null).
std::unique_ptr<Handle> make_profile_handle(Runtime* runtime, const Profile* profile);

}  // namespace orrery::fw
