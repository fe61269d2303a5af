// Upstream default plugins orrery accepts in configurations but does not model, because the
// objects they look at are not part of orrery's cluster model. For the pods and nodes orrery reads
// each of them is a no-op upstream too (PreFilter/PreScore Skip):
//   DynamicResources    ResourceClaims (not read)
// Their registry factories return nullptr, so profiles leave them out; naming one explicitly in a
// configuration gives a warning.
#pragma once

#include <string>
#include <vector>

namespace orrery::plugins {

const std::vector<std::string>& not_modelled_plugins();

}  // namespace orrery::plugins
