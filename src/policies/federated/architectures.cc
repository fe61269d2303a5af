#include "policies/federated/architectures.h"

#include <array>

namespace orrery::federated {

namespace {

constexpr std::array<Architecture, 8> kArchitectures = {{
    {"megha", Arch::kMegha, Pick::kRandom, false,
     "Megha: global managers on stale views, local managers validate (Random matching)"},
    {"megha-minc", Arch::kMegha, Pick::kMinConstraints, false,
     "Megha with Minimum Constraints matching"},
    {"megha-ref", Arch::kMegha, Pick::kRandom, true,
     "Megha as the published simulator: rejected tasks wait in the queue"},
    {"megha-minc-ref", Arch::kMegha, Pick::kMinConstraints, true,
     "megha-ref with Minimum Constraints matching"},
    {"pigeonc", Arch::kPigeonC, Pick::kRandom, false,
     "PigeonC: distributors pick masters by constraint-set counts, fair queues (Random)"},
    {"pigeonc-minc", Arch::kPigeonC, Pick::kMinConstraints, false,
     "PigeonC with Minimum Constraints matching"},
    {"pigeonc-ref", Arch::kPigeonC, Pick::kRandom, true,
     "PigeonC as the published simulator: its CS_i counting"},
    {"pigeonc-minc-ref", Arch::kPigeonC, Pick::kMinConstraints, true,
     "pigeonc-ref with Minimum Constraints matching"},
}};

}  // namespace

std::span<const Architecture> architectures() {
  return kArchitectures;
}

const Architecture* find_architecture(std::string_view name) {
  for (const Architecture& a : kArchitectures)
    if (a.name == name) return &a;
  return nullptr;
}

std::string config_kind(Arch arch) {
  return arch == Arch::kMegha ? "Megha (megha_config_*_C.json)"
                              : "PigeonC (pigeon_config_*_C.json)";
}

std::string sim_flags(const Architecture& a) {
  return std::string(a.arch == Arch::kMegha ? "--arch megha" : "--arch pigeonc") +
         (a.pick == Pick::kMinConstraints ? " --match minc" : "") +
         (a.reference ? " --reference" : "");
}

std::vector<std::string> names_with_architectures(const fw::PolicyRegistry& registry) {
  std::vector<std::string> out = registry.names();
  for (const Architecture& a : architectures()) out.emplace_back(a.name);
  return out;
}

std::string name_listing(const fw::PolicyRegistry& registry, bool with_architectures) {
  std::string out;
  for (const std::string& n : registry.names())
    out += "  " + n + "  " + registry.description(n) + "\n";
  if (!with_architectures) return out;
  out += "federated architectures (need --trace and --cluster-config):\n";
  for (const Architecture& a : architectures())
    out += "  " + std::string(a.name) + "  " + std::string(a.description) + "\n";
  return out;
}

}  // namespace orrery::federated
