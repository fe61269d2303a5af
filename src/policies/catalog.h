// Every policy orrery ships, by name, for any world: `orrery sim`, `orrery compare`, `orrery serve`
// (kube-default unless --policy names another) and the reproductions build policies from this one
// registry. Beside it, every plugin a KubeSchedulerConfiguration may name in any command
// (plugin_catalog(): the framework policies' profiles, `serve --config`, the extender).
//
//   kube-default, kube-binpack   policies/kube
//   random, bef, sef, cf         policies/baselines (Sencillo)
//   kubedsm                      policies/kubedsm
//
// Next to the policies are the federated architectures (megha, pigeonc and their variants,
// policies/federated/architectures.h). They are not fw::Components on a ClusterBackend but have
// their own actors and replay a trace on a cluster configuration; kind_of() tells a caller which
// of the two a name is, and policies/federated/trace_runner.h runs either on one trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "framework/policy.h"
#include "framework/registry.h"

namespace orrery::policies {

fw::PolicyRegistry catalog();

// The kube-default plugins (plugins/register.h), Sencillo's scores (Random, BEF, SEF, CF) and
// KubCG (configured by its pluginConfig args: policies/kubcg/policy.h). CaricoCapacity and
// PriorityOptimalPacking are known but need their policies' services: a profile naming them
// elsewhere is refused with a message naming the policy.
fw::PluginRegistry plugin_catalog();
// The same, without the kube-default plugins (which framework policies always register).
void register_catalog_plugins(fw::PluginRegistry& registry);

enum class Kind : uint8_t {
  kPolicy,        // in catalog(): runs in sim::Simulation (and any fw::Runtime)
  kArchitecture,  // federated/architectures.h: needs a trace and a cluster configuration
};

// What `name` is; nullopt when orrery ships nothing by that name.
std::optional<Kind> kind_of(const std::string& name);

// "  name  description" lines, one per policy, then (with_architectures) a heading and one line
// per architecture: the list for --list-profiles and for unknown-name errors.
std::string name_list(bool with_architectures);
// Every name kind_of() knows (policies, then architectures), for did-you-mean suggestions.
std::vector<std::string> all_names();

}  // namespace orrery::policies
