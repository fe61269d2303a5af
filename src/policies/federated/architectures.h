// The federated architectures by name, as `orrery compare --trace` (and later `orrery serve`)
// accept them next to the framework policies of policies/catalog.h. An architecture is not a
// fw::Component on a ClusterBackend: it has its own actors and stale views and replays a trace on
// a Megha or PigeonC cluster configuration (run.h; apply() there sets a run's options from a
// name). This table is simulator-free (its own small library, orrery_architectures), so the
// catalog can tell names apart without linking the simulator.
//
//   megha, megha-minc, megha-ref, megha-minc-ref          a Megha configuration
//   pigeonc, pigeonc-minc, pigeonc-ref, pigeonc-minc-ref  a PigeonC configuration
//
// "-minc": Minimum Constraints matching (--match minc); "-ref": the published simulator's
// behaviour where it departs from the paper's text (--reference). The plain names are the
// paper's Megha_rand / PigeonC_rand.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "framework/policy.h"

#include "policies/federated/cluster_config.h"
#include "policies/federated/matcher.h"

namespace orrery::federated {

struct Architecture {
  std::string_view name;
  Arch arch;
  Pick pick;
  bool reference;
  std::string_view description;
};

// Every architecture, Megha's first.
std::span<const Architecture> architectures();
// nullptr when `name` is not an architecture.
const Architecture* find_architecture(std::string_view name);

// "Megha (megha_config_*_C.json)" / "PigeonC (pigeon_config_*_C.json)": the configuration an
// architecture needs, for messages.
std::string config_kind(Arch arch);

// The `orrery sim` flags that run it: "--arch megha --match minc --reference".
std::string sim_flags(const Architecture& a);

// The names a run on a trace accepts: the policies of `registry`, then every architecture.
std::vector<std::string> names_with_architectures(const fw::PolicyRegistry& registry);
// "  name  description" lines, one per policy of `registry`, then (with_architectures) a heading
// and one line per architecture: the list for --list-profiles and for unknown-name errors.
std::string name_listing(const fw::PolicyRegistry& registry, bool with_architectures);

}  // namespace orrery::federated
