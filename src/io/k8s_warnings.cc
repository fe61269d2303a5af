// k8s_warnings: what the (merged) objects hold that orrery does not model or cannot resolve.
#include <set>
#include <string>
#include <vector>

#include "io/k8s_objects.h"

namespace orrery {

namespace {

// One line per kind of missing or partial object the volume plugins and preemption read.
void volume_warnings(const K8sObjects& objects, std::vector<std::string>* out) {
  ApiObjects api = objects.api;
  api.index();
  struct Tally {
    int count = 0;
    std::string first;
    void add(const std::string& what) {
      if (count++ == 0) first = what;
    }
  };
  Tally no_pvc, no_pv, no_class, in_tree;
  std::set<std::string> seen_claims;
  bool csi_claims = false;
  for (const Pod& p : objects.pods) {
    for (const PodVolume& v : p.spec->volumes) {
      if (v.kind == PodVolume::Kind::kGcePd || v.kind == PodVolume::Kind::kAwsEbs) {
        in_tree.add("pod " + p.key() + " volume \"" + v.name + "\"");
      }
      if (v.kind != PodVolume::Kind::kClaim && v.kind != PodVolume::Kind::kEphemeral) continue;
      const std::string claim = v.kind == PodVolume::Kind::kClaim ? v.id : p.name + "-" + v.name;
      if (!seen_claims.insert(p.ns + "/" + claim).second) continue;
      const PersistentVolumeClaim* pvc = api.find_pvc(p.ns, claim);
      if (!pvc) {
        no_pvc.add("pod " + p.key() + " claim \"" + claim + "\"");
        continue;
      }
      if (!pvc->volume_name.empty()) {
        const PersistentVolume* pv = api.find_pv(pvc->volume_name);
        if (!pv) {
          no_pv.add(pvc->where + ": claim " + pvc->key() + " volumeName \"" + pvc->volume_name +
                    "\"");
        } else if (!pv->csi_driver.empty()) {
          csi_claims = true;
        } else if (!pv->in_tree_source.empty()) {
          in_tree.add(pv->where + ": PersistentVolume \"" + pv->name + "\" (" + pv->in_tree_source +
                      ")");
        }
      } else if (!pvc->storage_class.empty()) {
        const StorageClass* sc = api.find_storage_class(pvc->storage_class);
        if (!sc) {
          no_class.add(pvc->where + ": claim " + pvc->key() + " storageClassName \"" +
                       pvc->storage_class + "\"");
        } else if (sc->provisioner.find('/') == std::string::npos ||
                   !sc->provisioner.starts_with("kubernetes.io/")) {
          csi_claims = true;
        }
      }
    }
  }
  auto line = [&](const Tally& t, const std::string& what, const std::string& consequence) {
    if (t.count == 0) return;
    out->push_back(std::to_string(t.count) + " " + what + " (first: " + t.first +
                   "): " + consequence);
  };
  line(no_pvc, "PersistentVolumeClaim(s) used by pods are not in the input",
       "kube-scheduler rejects their pods (persistentvolumeclaim \"…\" not found); add them "
       "(kubectl get pvc -A -o yaml)");
  line(no_pv, "claim(s) are bound to PersistentVolumes that are not in the input",
       "their pods are unschedulable (persistentvolume \"…\" not found), as upstream; add them "
       "(kubectl get pv -o yaml)");
  line(no_class, "unbound claim(s) name StorageClasses that are not in the input",
       "taken as Immediate binding, as kube-scheduler takes a class it cannot find (add them: "
       "kubectl get storageclass -o yaml)");
  line(in_tree, "volume(s) use in-tree sources",
       "CSI migration is not modelled: NodeVolumeLimits does not count them and VolumeBinding "
       "checks their node affinity untranslated");
  if (csi_claims && objects.api.csi_nodes.empty() && !objects.nodes.empty()) {
    out->push_back(
        "pods use CSI volumes but the input has no CSINode objects: no attach limits "
        "apply (NodeVolumeLimits), as for nodes without one upstream (add them: "
        "kubectl get csinodes -o yaml)");
  }
  Tally no_status;
  for (const PodDisruptionBudget& b : objects.api.pdbs)
    if (!b.has_status) no_status.add(b.where + ": " + b.ns + "/" + b.name);
  line(no_status, "PodDisruptionBudget(s) have no status.disruptionsAllowed",
       "taken as 0 (the zero value kube-scheduler would read), so preemption counts every "
       "matching victim as a violation");
}

}  // namespace

std::vector<std::string> k8s_warnings(const K8sObjects& objects) {
  std::vector<std::string> out;
  for (const Unmodelled& u : objects.unmodelled) {
    out.push_back(u.first_where + ": " + std::to_string(u.count) + " object(s) use " + u.what +
                  " (e.g. " + u.example + "): " + u.consequence);
  }
  if (objects.namespaces.empty() && !objects.labelled_namespace_selector.empty()) {
    out.push_back(objects.labelled_namespace_selector +
                  ": namespaceSelector names namespace labels, but the input has no Namespace "
                  "objects: every namespace is taken to have no labels (add them, e.g. kubectl "
                  "get namespaces -o yaml)");
  }
  if (!objects.doubtful_resource_name.empty()) {
    out.push_back(objects.doubtful_resource_name +
                  " (the node offers it, but no pod can request a resource of that name)");
  }
  volume_warnings(objects, &out);
  // Pod affinity terms naming a namespace that nothing in the input has (no Namespace object,
  // no pod): upstream accepts them (the API server does not check) and they match no pod there.
  std::set<std::string> known;
  for (const NamespaceObject& ns : objects.namespaces) known.insert(ns.name);
  for (const Pod& p : objects.pods) known.insert(p.ns);
  int unknown = 0;
  std::string first;
  for (const Pod& p : objects.pods) {
    for (const PodAffinityRules* r : {&p.spec->pod_affinity, &p.spec->pod_anti_affinity}) {
      auto check = [&](const PodAffinityTerm& t) {
        for (StrId n : t.namespaces) {
          if (known.count(std::string(interned(n)))) continue;
          if (unknown++ == 0) {
            first = "pod " + p.key() + " names namespace \"" + std::string(interned(n)) + "\"";
          }
        }
      };
      for (const PodAffinityTerm& t : r->required) check(t);
      for (const WeightedPodAffinityTerm& t : r->preferred) check(t.term);
    }
  }
  if (unknown > 0) {
    out.push_back(std::to_string(unknown) +
                  " pod affinity term namespace(s) are not in the input (first: " + first +
                  "): no Namespace object and no pod there, so the term matches no pod in it, as "
                  "kube-scheduler does (check the name, or add the namespace's objects)");
  }
  return out;
}

}  // namespace orrery
