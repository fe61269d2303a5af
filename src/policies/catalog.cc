#include "policies/catalog.h"

#include "core/error.h"
#include "plugins/register.h"
#include "policies/baselines/policies.h"
#include "policies/baselines/sencillo.h"
#include "policies/carico/plugin.h"
#include "policies/carico/policy.h"
#include "policies/federated/architectures.h"
#include "policies/kubcg/policy.h"
#include "policies/kube/policies.h"
#include "policies/kubedsm/policy.h"
#include "policies/optpack/packer.h"
#include "policies/optpack/policy.h"

namespace orrery::policies {

namespace {

// A plugin that only runs inside its policy: naming it in another profile is an error that says
// which policy to run.
void policy_only(fw::PluginRegistry& registry, const std::string& plugin,
                 const std::string& policy) {
  registry.add(plugin, [plugin, policy](const fw::PluginArgs& a) -> std::unique_ptr<fw::Plugin> {
    throw InputError("profile " + a.profile + ": plugin " + plugin + " runs only in the " + policy +
                     " policy, which provides what it needs (orrery serve --policy " + policy +
                     "; in a scenario, scheduler.policy: " + policy + ")");
  });
}

}  // namespace

void register_catalog_plugins(fw::PluginRegistry& registry) {
  baselines::register_sencillo_plugins(registry);
  kubcg::register_plugins(registry);
  policy_only(registry, carico::kPluginName, "carico");
  policy_only(registry, optpack::kPluginName, "kube-optpack");
}

fw::PluginRegistry plugin_catalog() {
  fw::PluginRegistry r;
  plugins::register_default_plugins(r);
  register_catalog_plugins(r);
  return r;
}

fw::PolicyRegistry catalog() {
  fw::PolicyRegistry r;
  kube::register_policies(r, register_catalog_plugins);
  kubedsm::register_policies(r);
  optpack::register_policies(r);
  baselines::register_policies(r);
  kubcg::register_policies(r);
  carico::register_policies(r);
  return r;
}

std::optional<Kind> kind_of(const std::string& name) {
  if (catalog().has(name)) return Kind::kPolicy;
  if (federated::find_architecture(name)) return Kind::kArchitecture;
  return std::nullopt;
}

std::vector<std::string> all_names() {
  return federated::names_with_architectures(catalog());
}

std::string name_list(bool with_architectures) {
  return federated::name_listing(catalog(), with_architectures);
}

}  // namespace orrery::policies
