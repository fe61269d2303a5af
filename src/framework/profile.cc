#include "framework/profile.h"

#include <stdexcept>

namespace orrery::fw {

Runtime& FrameworkRunner::runtime() const {
  if (!rt_) throw std::logic_error("plugin asked for the runtime of a profile built without one");
  return *rt_;
}

Plugin* FrameworkRunner::plugin(std::string_view name) const {
  return profile_->find(name);
}

Plugin* Profile::add(std::unique_ptr<Plugin> plugin, uint32_t points, int64_t weight) {
  if ((points & plugin->extension_points()) != points) {
    throw std::logic_error("plugin " + std::string(plugin->name()) +
                           " enabled at a point it does not implement");
  }
  Plugin* p = find(plugin->name());
  if (!p) {
    p = plugin.get();
    plugins.push_back(std::move(plugin));
  }
  auto enable = [&](ExtensionPoint point, std::vector<Plugin*>& list) {
    if ((points & point) && std::find(list.begin(), list.end(), p) == list.end()) list.push_back(p);
  };
  if (points & kQueueSort) queue_sort = p;
  enable(kPreEnqueue, pre_enqueue);
  enable(kPreFilter, pre_filter);
  enable(kFilter, filter);
  enable(kPostFilter, post_filter);
  enable(kPreScore, pre_score);
  enable(kReserve, reserve);
  enable(kPermit, permit);
  enable(kMutate, mutate);
  enable(kPreBind, pre_bind);
  enable(kBind, bind);
  enable(kPostBind, post_bind);
  if (points & kScore) {
    bool found = false;
    for (auto& wp : score) {
      if (wp.plugin == p) {
        wp.weight = weight;
        found = true;
      }
    }
    if (!found) score.push_back({p, weight});
  }
  return p;
}

int Profile::index_of(const Plugin* p) const {
  for (size_t i = 0; i < plugins.size(); ++i)
    if (plugins[i].get() == p) return static_cast<int>(i);
  return -1;
}

Plugin* Profile::find(std::string_view name) const {
  for (const auto& p : plugins)
    if (p->name() == name) return p.get();
  return nullptr;
}

}  // namespace orrery::fw
