// What a plugin may reach besides its scheduling cycle, given to its factory (PluginArgs::handle)
// like upstream's framework.Handle: the runtime it runs in (cluster, clock and timers, the world's
// services such as NodeTelemetry, the shared reservations) and the other plugins of its profile.
#pragma once

#include <string_view>

namespace orrery::fw {

class Plugin;
struct Runtime;

class Handle {
 public:
  virtual ~Handle() = default;
  // Throws std::logic_error when the profile was built without a runtime (plugins built alone,
  // e.g. in unit tests); has_runtime() tells.
  virtual Runtime& runtime() const = 0;
  virtual bool has_runtime() const = 0;
  // Another plugin of the same profile by name, or nullptr. Plugins are created one by one, so
  // look others up when first needed, not in the factory.
  virtual Plugin* plugin(std::string_view name) const = 0;
};

}  // namespace orrery::fw
