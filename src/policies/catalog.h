// Every policy orrery ships, by name, for any world: `orrery sim`, `orrery compare` and the
// reproductions build policies from this one registry (and so will `orrery serve`).
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

namespace orrery::policies {

fw::PolicyRegistry catalog();

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
