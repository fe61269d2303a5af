#include "policies/catalog.h"

#include "policies/baselines/policies.h"
#include "policies/carico/policy.h"
#include "policies/federated/architectures.h"
#include "policies/kube/policies.h"
#include "policies/kubcg/policy.h"
#include "policies/kubedsm/policy.h"
#include "policies/optpack/policy.h"

namespace orrery::policies {

fw::PolicyRegistry catalog() {
  fw::PolicyRegistry r;
  kube::register_policies(r);
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
  std::vector<std::string> out = catalog().names();
  for (const federated::Architecture& a : federated::architectures()) out.emplace_back(a.name);
  return out;
}

std::string name_list(bool with_architectures) {
  const fw::PolicyRegistry reg = catalog();
  std::string out;
  for (const std::string& n : reg.names()) out += "  " + n + "  " + reg.description(n) + "\n";
  if (!with_architectures) return out;
  out += "federated architectures (need --trace and --cluster-config):\n";
  for (const federated::Architecture& a : federated::architectures())
    out += "  " + std::string(a.name) + "  " + std::string(a.description) + "\n";
  return out;
}

}  // namespace orrery::policies
