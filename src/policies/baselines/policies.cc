#include "policies/baselines/policies.h"

#include "policies/kube/policies.h"

namespace orrery::baselines {

void register_policies(fw::PolicyRegistry& registry) {
  struct Entry {
    const char* name;
    Sencillo kind;
    const char* description;
  };
  const Entry entries[] = {
      {"random", Sencillo::kRandom, "Sencillo Random: any feasible node, uniformly"},
      {"bef", Sencillo::kBiggestEdgeFirst,
       "Sencillo Biggest Edge node First: the feasible edge node with most free resources"},
      {"sef", Sencillo::kSmallestEdgeFirst,
       "Sencillo Smallest Edge node First: the feasible edge node with least free resources"},
      {"cf", Sencillo::kCloudFirst, "Sencillo Cloud First: a cloud node while one fits"},
  };
  for (const Entry& e : entries) {
    const Sencillo kind = e.kind;
    registry.add(e.name, e.description,
                 kube::framework_policy([](fw::PluginRegistry& r) { register_sencillo_plugins(r); },
                                        [kind]() { return sencillo_config(kind); }));
  }
}

}  // namespace orrery::baselines
