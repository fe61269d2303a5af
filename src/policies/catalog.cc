#include "policies/catalog.h"

#include "policies/baselines/policies.h"
#include "policies/kube/policies.h"
#include "policies/kubedsm/policy.h"

namespace orrery::policies {

fw::PolicyRegistry catalog() {
  fw::PolicyRegistry r;
  kube::register_policies(r);
  kubedsm::register_policies(r);
  baselines::register_policies(r);
  return r;
}

}  // namespace orrery::policies
