// Readers for the API objects of core/api_objects.h (PersistentVolumeClaim, PersistentVolume,
// StorageClass, CSINode, PodDisruptionBudget) and for a pod's spec.volumes, used by the object
// loader (io/k8s_objects). Errors name the file, line and field, as the rest of the loader.
#pragma once

#include <vector>

#include "core/api_objects.h"
#include "core/pod.h"
#include "io/yaml_util.h"

namespace orrery {

// Whether `kind` is one of the kinds read here (their List kinds are handled by the loader).
bool is_api_object_kind(const std::string& kind);
// Reads one object of such a kind into `out`.
void read_api_object(const std::string& kind, const yaml::Ctx& c, ApiObjects* out);
// spec.volumes.
std::vector<PodVolume> read_pod_volumes(const yaml::Ctx& c);

}  // namespace orrery
