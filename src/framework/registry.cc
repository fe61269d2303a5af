#include "framework/registry.h"

#include "core/error.h"

namespace orrery::fw {

void PluginRegistry::add(const std::string& name, PluginFactory factory) {
  factories_[name] = std::move(factory);
}

std::unique_ptr<Plugin> PluginRegistry::create(const std::string& name,
                                               const PluginArgs& args) const {
  auto it = factories_.find(name);
  if (it == factories_.end()) {
    std::string known;
    for (const auto& [n, f] : factories_) known += (known.empty() ? "" : ", ") + n;
    throw InputError("unknown plugin \"" + name + "\" (known: " + known + ")");
  }
  return it->second(args);
}

std::vector<std::string> PluginRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [n, f] : factories_) out.push_back(n);
  return out;
}

}  // namespace orrery::fw
