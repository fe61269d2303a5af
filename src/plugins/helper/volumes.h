// Helpers shared by the volume plugins (VolumeRestrictions, NodeVolumeLimits, VolumeBinding,
// VolumeZone).
#pragma once

#include <string>

#include "core/pod.h"

namespace orrery::plugins {

// The claim a volume uses: persistentVolumeClaim.claimName, or for a generic ephemeral volume
// "<pod name>-<volume name>" (ephemeral.VolumeClaimName). "" for other sources.
inline std::string claim_name(const Pod& pod, const PodVolume& v) {
  if (v.kind == PodVolume::Kind::kClaim) return v.id;
  if (v.kind == PodVolume::Kind::kEphemeral) return pod.name + "-" + v.name;
  return {};
}

// ephemeral.VolumeIsForPod's error, or "" when the claim's controller is the pod.
inline std::string ephemeral_owner_error(const Pod& pod, const PersistentVolumeClaim& pvc) {
  if (!pvc.controller_uid.empty() && pvc.controller_uid == pod.uid) return {};
  return "PVC " + pvc.ns + "/" + pvc.name + " was not created for pod " + pod.ns + "/" + pod.name +
         " (pod is not owner)";
}

}  // namespace orrery::plugins
