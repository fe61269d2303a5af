// The API objects besides Nodes, Pods, Namespaces and PriorityClasses that kube-default reads from
// a dump: PersistentVolumeClaims, PersistentVolumes, StorageClasses and CSINodes (the volume
// plugins) and PodDisruptionBudgets (preemption). Loaded by io/k8s_objects, held immutable by
// ClusterState (ClusterState::api_objects) and read by the plugins, as kube-scheduler reads them
// from its informers. Fields are the ones the scheduler reads, with the API server's defaults.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/labels.h"

namespace orrery {

// v1.PersistentVolumeAccessMode as a bit set.
enum AccessMode : uint8_t {
  kReadWriteOnce = 1,
  kReadOnlyMany = 2,
  kReadWriteMany = 4,
  kReadWriteOncePod = 8,
};

// Annotations the scheduler reads (component-helpers/storage/volume).
inline constexpr std::string_view kAnnBindCompleted = "pv.kubernetes.io/bind-completed";
inline constexpr std::string_view kAnnSelectedNode = "volume.kubernetes.io/selected-node";
inline constexpr std::string_view kAnnBetaStorageClass = "volume.beta.kubernetes.io/storage-class";
inline constexpr std::string_view kAnnMigratedPlugins =
    "storage.alpha.kubernetes.io/migrated-plugins";

struct PersistentVolumeClaim {
  std::string ns = "default";
  std::string name;
  std::string uid;
  std::string controller_uid;  // metadata.ownerReferences[controller].uid (ephemeral volumes)
  uint8_t access_modes = 0;
  std::optional<LabelSelector> selector;  // spec.selector
  int64_t storage_request = 0;            // spec.resources.requests.storage, bytes
  bool block = false;                     // spec.volumeMode: Block
  // GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName, else "".
  std::string storage_class;
  std::string volume_name;                   // spec.volumeName
  bool bind_completed = false;               // annotation pv.kubernetes.io/bind-completed
  std::optional<std::string> selected_node;  // annotation volume.kubernetes.io/selected-node
  bool lost = false;                         // status.phase: Lost
  bool deleting = false;                     // metadata.deletionTimestamp
  std::string where;                         // "FILE:LINE: path" of the object

  std::string key() const { return ns + "/" + name; }
  // isPVCFullyBound.
  bool fully_bound() const { return !volume_name.empty() && bind_completed; }
};

struct PersistentVolume {
  enum class Phase : uint8_t { kPending, kAvailable, kBound, kReleased, kFailed };
  std::string name;
  LabelSet labels;
  int64_t capacity = 0;  // spec.capacity.storage, bytes
  uint8_t access_modes = 0;
  bool block = false;
  std::string storage_class;  // the beta annotation, else spec.storageClassName
  bool has_claim_ref = false;
  std::string claim_ns, claim_name, claim_uid;  // spec.claimRef
  // spec.nodeAffinity.required.nodeSelectorTerms (absent: no constraint).
  std::optional<std::vector<NodeSelectorTerm>> node_affinity;
  Phase phase = Phase::kPending;
  bool deleting = false;
  std::string csi_driver, csi_handle;  // spec.csi
  std::string in_tree_source;          // e.g. "gcePersistentDisk" (not translated to CSI)
  std::string where;
};

// storage.v1.TopologySelectorTerm: every expression's key must have one of its values.
struct TopologySelectorTerm {
  std::vector<std::pair<StrId, std::vector<StrId>>> expressions;
};

struct StorageClass {
  std::string name;
  std::string provisioner;
  bool wait_for_first_consumer = false;  // volumeBindingMode (the API defaults it to Immediate)
  std::vector<TopologySelectorTerm> allowed_topologies;
  std::string where;
};

struct CSINodeDriver {
  std::string name;
  std::optional<int32_t> allocatable_count;  // spec.drivers[].allocatable.count
};

struct CSINode {
  std::string name;  // the node's name
  std::vector<CSINodeDriver> drivers;
  std::string migrated_plugins;  // annotation storage.alpha.kubernetes.io/migrated-plugins
  std::string where;
};

// policy/v1 PodDisruptionBudget, as the preemption reads it (filterPodsWithPDBViolation): the
// selector and status.disruptionsAllowed / disruptedPods. minAvailable / maxUnavailable are read
// and validated but the scheduler does not use them (the disruption controller turns them into
// disruptionsAllowed).
struct PodDisruptionBudget {
  std::string ns = "default";
  std::string name;
  std::optional<LabelSelector> selector;  // absent or {}: matches no pod
  int32_t disruptions_allowed = 0;
  bool has_status = false;
  std::unordered_set<std::string> disrupted_pods;  // status.disruptedPods keys (pod names)
  std::string where;
};

struct ApiObjects {
  std::vector<PersistentVolumeClaim> pvcs;
  std::vector<PersistentVolume> pvs;
  std::vector<StorageClass> storage_classes;
  std::vector<CSINode> csi_nodes;
  std::vector<PodDisruptionBudget> pdbs;

  // Builds the lookup indexes; call after filling the vectors in. Throws InputError on a
  // duplicate name (naming both places).
  void index();
  const PersistentVolumeClaim* find_pvc(std::string_view ns, std::string_view name) const;
  const PersistentVolume* find_pv(std::string_view name) const;
  const StorageClass* find_storage_class(std::string_view name) const;
  const CSINode* find_csi_node(std::string_view node) const;
  // The PVs of a storage class ("" included), in input order (pvCache.ListPVs).
  const std::vector<const PersistentVolume*>& pvs_of_class(const std::string& cls) const;

  bool empty() const {
    return pvcs.empty() && pvs.empty() && storage_classes.empty() && csi_nodes.empty() &&
           pdbs.empty();
  }

 private:
  std::unordered_map<std::string, size_t> pvc_index_, pv_index_, class_index_, csi_index_;
  std::unordered_map<std::string, std::vector<const PersistentVolume*>> pvs_by_class_;
};

// "kind \"name\" not found", as the API's NotFound errors read
// (`persistentvolumeclaim "data" not found`).
std::string not_found_message(std::string_view resource, std::string_view name);

}  // namespace orrery
