#include "core/api_objects.h"

#include "core/error.h"

namespace orrery {

namespace {

template <class T, class KeyOf>
void build_index(const std::vector<T>& items, KeyOf key_of, const char* kind,
                 std::unordered_map<std::string, size_t>* index) {
  index->clear();
  for (size_t i = 0; i < items.size(); ++i) {
    auto [it, fresh] = index->emplace(key_of(items[i]), i);
    if (!fresh) {
      throw InputError(items[i].where + ": duplicate " + kind + " \"" + it->first +
                       "\" (first at " + items[it->second].where + ")");
    }
  }
}

template <class T>
const T* find_in(const std::vector<T>& items, const std::unordered_map<std::string, size_t>& index,
                 const std::string& key) {
  auto it = index.find(key);
  return it == index.end() ? nullptr : &items[it->second];
}

}  // namespace

void ApiObjects::index() {
  build_index(
      pvcs, [](const PersistentVolumeClaim& c) { return c.key(); }, "PersistentVolumeClaim",
      &pvc_index_);
  build_index(
      pvs, [](const PersistentVolume& v) { return v.name; }, "PersistentVolume", &pv_index_);
  build_index(
      storage_classes, [](const StorageClass& c) { return c.name; }, "StorageClass", &class_index_);
  build_index(
      csi_nodes, [](const CSINode& c) { return c.name; }, "CSINode", &csi_index_);
  std::unordered_map<std::string, size_t> pdb_index;
  build_index(
      pdbs, [](const PodDisruptionBudget& b) { return b.ns + "/" + b.name; }, "PodDisruptionBudget",
      &pdb_index);
  pvs_by_class_.clear();
  for (const PersistentVolume& pv : pvs) pvs_by_class_[pv.storage_class].push_back(&pv);
}

const PersistentVolumeClaim* ApiObjects::find_pvc(std::string_view ns,
                                                  std::string_view name) const {
  std::string key;
  key.reserve(ns.size() + name.size() + 1);
  key.append(ns).append("/").append(name);
  return find_in(pvcs, pvc_index_, key);
}

const PersistentVolume* ApiObjects::find_pv(std::string_view name) const {
  return find_in(pvs, pv_index_, std::string(name));
}

const StorageClass* ApiObjects::find_storage_class(std::string_view name) const {
  return find_in(storage_classes, class_index_, std::string(name));
}

const CSINode* ApiObjects::find_csi_node(std::string_view node) const {
  return find_in(csi_nodes, csi_index_, std::string(node));
}

const std::vector<const PersistentVolume*>& ApiObjects::pvs_of_class(const std::string& cls) const {
  static const std::vector<const PersistentVolume*> kNone;
  auto it = pvs_by_class_.find(cls);
  return it == pvs_by_class_.end() ? kNone : it->second;
}

std::string not_found_message(std::string_view resource, std::string_view name) {
  return std::string(resource) + " \"" + std::string(name) + "\" not found";
}

}  // namespace orrery
