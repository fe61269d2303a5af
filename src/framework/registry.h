// Plugin registry: name → factory. Each module registers its plugins explicitly
// (plugins::register_default_plugins, policies' register_*), no static initialisers.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "framework/handle.h"
#include "framework/plugin.h"
#include "io/yaml_util.h"

namespace orrery::fw {

// pluginConfig args for one plugin: `args` is undefined when none were given. Factories throw
// InputError (via args.fail) on bad arguments.
struct PluginArgs {
  yaml::Ctx args;
  std::string profile;         // schedulerName of the profile being built
  bool deterministic = false;  // the profile's `deterministic` (orrery extension)
  Handle* handle = nullptr;    // the profile's (handle.h); null when built outside a profile
};

// A factory returns nullptr for a plugin orrery accepts in configurations but does not model
// (e.g. volume plugins): the profile then leaves it out.
using PluginFactory = std::function<std::unique_ptr<Plugin>(const PluginArgs&)>;

class PluginRegistry {
 public:
  void add(const std::string& name, PluginFactory factory);
  bool has(const std::string& name) const { return factories_.count(name) != 0; }
  // Throws InputError listing the known names when `name` is unknown. May return nullptr (see
  // PluginFactory).
  std::unique_ptr<Plugin> create(const std::string& name, const PluginArgs& args) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, PluginFactory> factories_;
};

}  // namespace orrery::fw
