// What the scheduling queue needs to requeue pods by events instead of retrying every waiting pod
// on every change (upstream's QueueingHints, KEP-4247):
//  - QueueEvent: a change of the cluster, or of the scheduler's own state (its assumptions and
//    preemption nominations), that may make waiting pods schedulable;
//  - QueueingHint: a plugin's answer to "may this event make a pod you rejected schedulable?";
//  - PodClassKey: pods with equal keys are interchangeable for every PreFilter, Filter and
//    PostFilter plugin of their profile, so one failed attempt stands for all of them
//    (equivalence classes; see framework/queue.h for the semantics).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/cluster_state.h"
#include "core/intern.h"

namespace orrery::fw {

struct QueueEvent {
  enum Kind : uint8_t {
    kNodeAdded,
    kNodeUpdated,
    kNodeRemoved,
    // A pod now counts on `node`: assumed by this scheduler, bound by another one, or created
    // bound. `pod` is alive; `priority` is its priority.
    kPodAssigned,
    // A pod no longer counts on `node` (its resources are free): it finished, was deleted while
    // counted, or its binding failed. `pod` is kNoPod when the pod is gone (deleted).
    kPodReleased,
    // A preemptor of `priority` lost its nomination of `node`: the resources the scheduler set
    // aside for it there (for pods of priority <= it) are free again.
    kNominationCleared,
    // Any other cluster event (e.g. a pending pod or a finished pod deleted): nothing the
    // built-in plugins read changed. Plugins without hints still treat it as a possible help.
    kOther,
    // Every waiting pod may have become schedulable (hints are not asked).
    kAll,
  };
  Kind kind = kAll;
  NodeId node = kNoNode;
  PodId pod = kNoPod;
  int32_t priority = 0;
};
std::string_view to_string(QueueEvent::Kind k);

enum class QueueingHint : uint8_t { kSkip, kQueue };

// The equivalence class of a pending pod. Pods of one class share the PodSpec object (one per
// Deployment/ReplicaSet, Job, arrival stream or trace), hence the profile, priority, requests,
// labels, tolerations, affinity and spread constraints; their namespace; the salt every
// class-relevant plugin gives (Plugin::class_salt: e.g. PodTopologySpread's owner group when the
// default constraints select by owner); and a pod holding a preemption nomination is alone in its
// class (it is evaluated on its nominated node first and without its own reservation).
struct PodClassKey {
  static constexpr uint32_t kUniqueSalt = ~uint32_t{0};  // salt_plugin of a one-pod class
  const PodSpec* spec = nullptr;
  StrId ns = kNoStr;
  uint32_t salt_plugin = 0;  // 1 + index of the only plugin with a non-zero salt; 0: none
  uint64_t salt = 0;
  uint64_t nominated = 0;  // the pod's serial when it holds a nomination
  bool operator==(const PodClassKey&) const = default;
  // A class of its own for pod `serial`.
  static PodClassKey unique(uint64_t serial) {
    PodClassKey k;
    k.salt_plugin = kUniqueSalt;
    k.salt = serial;
    return k;
  }
};

struct PodClassKeyHash {
  size_t operator()(const PodClassKey& k) const {
    uint64_t h = reinterpret_cast<uintptr_t>(k.spec) * 0x9E3779B97F4A7C15ULL;
    h ^= (static_cast<uint64_t>(k.ns) << 32 | k.salt_plugin) + 0x632BE59BD9B4E019ULL + (h << 6);
    h ^= k.salt * 0xC2B2AE3D27D4EB4FULL + (h >> 3);
    h ^= k.nominated * 0x165667B19E3779F9ULL + (h << 7);
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

}  // namespace orrery::fw
