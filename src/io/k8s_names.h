// Kubernetes name syntax, as k8s.io/apimachinery/pkg/util/validation and the API server's
// pkg/apis/core/validation check it. Each check returns "" when the name is valid, else what is
// wrong, in words a user can act on.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace orrery {

// validation.IsDNS1123Subdomain: lowercase RFC 1123 labels joined by '.', at most 253 characters.
bool is_dns_subdomain(std::string_view s);
// The name part of a qualified name: ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63.
// (Also the syntax of a label value, which may in addition be empty.)
bool is_qualified_name_part(std::string_view s);
// validation.IsQualifiedName: an optional DNS-subdomain prefix and '/', then a name part.
bool is_qualified_name(std::string_view s);

// The resource names a container may request (requests, limits, pod overhead), as
// validateContainerResourceName (pkg/apis/core/validation/validation.go) decides:
//  - the name is a qualified name (IsQualifiedName);
//  - a name without '/' is a standard container resource (helper.IsStandardContainerResourceName):
//    cpu, memory, ephemeral-storage or hugepages-<size>;
//  - a name with '/' outside the kubernetes.io/ namespace (helper.IsNativeResource) is an extended
//    resource (helper.IsExtendedResourceName): not starting with "requests.", and
//    "requests." + name is a qualified name — e.g. example.com/foo, nvidia.com/gpu.
// So "memroy" is rejected ("must be a standard resource for containers").
std::string container_resource_name_error(std::string_view name);

// The resource names a node may offer in orrery's scenario files: those of containers plus
// "pods". (The API server checks only the quantities of node capacity, not the names, so a
// snapshot's nodes are held to this rule with a warning, not an error.)
std::string node_resource_name_error(std::string_view name);

// The well-known resource names, for "did you mean" suggestions.
const std::vector<std::string>& well_known_resource_names();

}  // namespace orrery
