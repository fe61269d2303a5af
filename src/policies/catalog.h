// Every policy orrery ships, by name, for any world: `orrery sim`, `orrery compare` and the
// reproductions build policies from this one registry (and so will `orrery serve`).
//
//   kube-default, kube-binpack   policies/kube
//   random, bef, sef, cf         policies/baselines (Sencillo)
//   kubedsm                      policies/kubedsm
#pragma once

#include "framework/policy.h"

namespace orrery::policies {

fw::PolicyRegistry catalog();

}  // namespace orrery::policies
