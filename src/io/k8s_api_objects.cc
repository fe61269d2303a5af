#include "io/k8s_api_objects.h"

#include "core/quantity.h"
#include "io/k8s_objects.h"

namespace orrery {

using yaml::Ctx;

namespace {

uint8_t read_access_modes(const Ctx& c) {
  uint8_t modes = 0;
  if (!c.defined()) return modes;
  c.expect_seq();
  for (size_t i = 0; i < c.size(); ++i) {
    const std::string m = c.item(i).str();
    if (m == "ReadWriteOnce") {
      modes |= kReadWriteOnce;
    } else if (m == "ReadOnlyMany") {
      modes |= kReadOnlyMany;
    } else if (m == "ReadWriteMany") {
      modes |= kReadWriteMany;
    } else if (m == "ReadWriteOncePod") {
      modes |= kReadWriteOncePod;
    } else {
      c.item(i).fail(
          "expected ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod, "
          "got \"" +
          m + "\"");
    }
  }
  return modes;
}

bool read_volume_mode(const Ctx& spec) {
  const std::string m = spec.str_or("volumeMode", "Filesystem");
  if (m != "Filesystem" && m != "Block")
    spec.child("volumeMode").fail("expected Filesystem or Block");
  return m == "Block";
}

int64_t read_storage(const Ctx& list) {
  if (!list.defined() || !list.has("storage")) return 0;
  Ctx s = list.child("storage");
  return parse_unit_quantity(s.str(), s.where());
}

struct Meta {
  std::string ns = "default";
  std::string name;
  std::string uid;
  std::string controller_uid;
  LabelSet labels;
  LabelSet annotations;
  bool deleting = false;
};

Meta read_meta(const Ctx& c, const char* kind) {
  Meta m;
  Ctx meta = c.child("metadata");
  if (!meta.defined() || !meta.has("name")) c.fail(std::string(kind) + " without metadata.name");
  meta.expect_map();
  m.name = meta.child("name").str();
  m.ns = meta.str_or("namespace", "default");
  m.uid = meta.str_or("uid", "");
  m.labels = parse_labels(meta.child("labels"));
  m.annotations = parse_labels(meta.child("annotations"));
  m.deleting = meta.has("deletionTimestamp");
  Ctx owners = meta.child("ownerReferences");
  for (size_t i = 0; owners.defined() && i < owners.size(); ++i) {
    if (owners.item(i).bool_or("controller", false)) {
      m.controller_uid = owners.item(i).str_or("uid", "");
    }
  }
  return m;
}

std::string annotation(const LabelSet& a, std::string_view key) {
  auto v = a.get(key);
  return v ? std::string(*v) : std::string();
}

// The spec of a PersistentVolume(Claim): required, a map.
Ctx required_spec(const Ctx& c, const char* kind) {
  Ctx spec = c.child("spec");
  if (!spec.defined()) c.fail(std::string(kind) + " without a spec");
  spec.expect_map();
  return spec;
}

// GetPersistentVolumeClass / GetPersistentVolumeClaimClass: the beta annotation wins over
// spec.storageClassName.
std::string storage_class(const Meta& m, const Ctx& spec) {
  if (auto a = m.annotations.get(kAnnBetaStorageClass)) return std::string(*a);
  return spec.str_or("storageClassName", "");
}

PersistentVolumeClaim read_pvc(const Ctx& c) {
  const Meta m = read_meta(c, "PersistentVolumeClaim");
  PersistentVolumeClaim pvc;
  pvc.where = c.where();
  pvc.ns = m.ns;
  pvc.name = m.name;
  pvc.uid = m.uid;
  pvc.controller_uid = m.controller_uid;
  pvc.deleting = m.deleting;
  const Ctx spec = required_spec(c, "PersistentVolumeClaim");
  pvc.access_modes = read_access_modes(spec.child("accessModes"));
  if (spec.has("selector")) pvc.selector = parse_label_selector(spec.child("selector"));
  if (spec.has("resources"))
    pvc.storage_request = read_storage(spec.child("resources").child("requests"));
  pvc.block = read_volume_mode(spec);
  pvc.volume_name = spec.str_or("volumeName", "");
  pvc.storage_class = storage_class(m, spec);
  pvc.bind_completed = m.annotations.get(kAnnBindCompleted).has_value();
  if (auto s = m.annotations.get(kAnnSelectedNode)) pvc.selected_node = std::string(*s);
  Ctx status = c.child("status");
  if (status.defined()) {
    const std::string phase = status.str_or("phase", "");
    if (!phase.empty() && phase != "Pending" && phase != "Bound" && phase != "Lost") {
      status.child("phase").fail("expected Pending, Bound or Lost");
    }
    pvc.lost = phase == "Lost";
  }
  return pvc;
}

const char* const kInTreeSources[] = {
    "gcePersistentDisk", "awsElasticBlockStore", "azureDisk", "azureFile", "cinder",
    "vsphereVolume",     "portworxVolume",       "rbd",       "iscsi"};

PersistentVolume read_pv(const Ctx& c) {
  const Meta m = read_meta(c, "PersistentVolume");
  PersistentVolume pv;
  pv.where = c.where();
  pv.name = m.name;
  pv.labels = m.labels;
  pv.deleting = m.deleting;
  const Ctx spec = required_spec(c, "PersistentVolume");
  pv.capacity = read_storage(spec.child("capacity"));
  pv.access_modes = read_access_modes(spec.child("accessModes"));
  pv.block = read_volume_mode(spec);
  pv.storage_class = storage_class(m, spec);
  Ctx ref = spec.child("claimRef");
  if (ref.defined()) {
    ref.expect_map();
    pv.has_claim_ref = true;
    pv.claim_ns = ref.str_or("namespace", "");
    pv.claim_name = ref.str_or("name", "");
    pv.claim_uid = ref.str_or("uid", "");
  }
  Ctx aff = spec.child("nodeAffinity");
  if (aff.defined()) {
    aff.expect_map();
    Ctx req = aff.child("required");
    if (req.defined()) {
      req.expect_map();
      Ctx terms = req.child("nodeSelectorTerms");
      if (!terms.defined()) req.fail("required node affinity without nodeSelectorTerms");
      terms.expect_seq();
      pv.node_affinity.emplace();
      for (size_t i = 0; i < terms.size(); ++i)
        pv.node_affinity->push_back(parse_node_selector_term(terms.item(i)));
    }
  }
  Ctx csi = spec.child("csi");
  if (csi.defined()) {
    csi.expect_map();
    if (!csi.has("driver")) csi.fail("csi volume source without a driver");
    pv.csi_driver = csi.child("driver").str();
    pv.csi_handle = csi.str_or("volumeHandle", "");
  }
  for (const char* src : kInTreeSources) {
    if (spec.has(src)) pv.in_tree_source = src;
  }
  Ctx status = c.child("status");
  const std::string phase = status.defined() ? status.str_or("phase", "Pending") : "Pending";
  if (phase == "Pending") {
    pv.phase = PersistentVolume::Phase::kPending;
  } else if (phase == "Available") {
    pv.phase = PersistentVolume::Phase::kAvailable;
  } else if (phase == "Bound") {
    pv.phase = PersistentVolume::Phase::kBound;
  } else if (phase == "Released") {
    pv.phase = PersistentVolume::Phase::kReleased;
  } else if (phase == "Failed") {
    pv.phase = PersistentVolume::Phase::kFailed;
  } else {
    status.child("phase").fail("expected Pending, Available, Bound, Released or Failed");
  }
  return pv;
}

StorageClass read_storage_class(const Ctx& c) {
  const Meta m = read_meta(c, "StorageClass");
  StorageClass sc;
  sc.where = c.where();
  sc.name = m.name;
  if (!c.has("provisioner")) c.fail("StorageClass without a provisioner");
  sc.provisioner = c.child("provisioner").str();
  const std::string mode = c.str_or("volumeBindingMode", "Immediate");  // the API's default
  if (mode != "Immediate" && mode != "WaitForFirstConsumer") {
    c.child("volumeBindingMode").fail("expected Immediate or WaitForFirstConsumer");
  }
  sc.wait_for_first_consumer = mode == "WaitForFirstConsumer";
  Ctx topo = c.child("allowedTopologies");
  for (size_t i = 0; topo.defined() && i < topo.size(); ++i) {
    Ctx term = topo.item(i);
    term.expect_map();
    TopologySelectorTerm t;
    Ctx exprs = term.child("matchLabelExpressions");
    for (size_t j = 0; exprs.defined() && j < exprs.size(); ++j) {
      Ctx e = exprs.item(j);
      e.expect_map();
      if (!e.has("key")) e.fail("matchLabelExpressions entry without a key");
      std::vector<StrId> values;
      if (e.has("values")) {
        for (const std::string& v : e.child("values").str_list()) values.push_back(intern(v));
      }
      if (values.empty()) e.child("values").fail("must be non-empty");
      t.expressions.emplace_back(intern(e.child("key").str()), std::move(values));
    }
    sc.allowed_topologies.push_back(std::move(t));
  }
  return sc;
}

CSINode read_csi_node(const Ctx& c) {
  const Meta m = read_meta(c, "CSINode");
  CSINode n;
  n.where = c.where();
  n.name = m.name;
  n.migrated_plugins = annotation(m.annotations, kAnnMigratedPlugins);
  Ctx drivers = c.child("spec").child("drivers");
  for (size_t i = 0; drivers.defined() && i < drivers.size(); ++i) {
    Ctx d = drivers.item(i);
    d.expect_map();
    if (!d.has("name")) d.fail("CSINode driver without a name");
    CSINodeDriver drv;
    drv.name = d.child("name").str();
    Ctx count = d.child("allocatable").child("count");
    if (count.defined()) {
      const int64_t v = count.i64();
      if (v < 0 || v > INT32_MAX) count.fail("expected a count in 0..2147483647");
      drv.allocatable_count = static_cast<int32_t>(v);
    }
    n.drivers.push_back(std::move(drv));
  }
  return n;
}

// minAvailable / maxUnavailable: an integer >= 0 or a percentage "N%".
void check_int_or_percent(const Ctx& c) {
  if (!c.defined()) return;
  const std::string v = c.str();
  std::string digits = v;
  if (!digits.empty() && digits.back() == '%') digits.pop_back();
  int64_t n = 0;
  if (digits.empty() || !parse_go_int64(digits, &n) || n < 0 || (v.back() == '%' && n > 100)) {
    c.fail("expected an integer >= 0 or a percentage \"0%\"..\"100%\", got \"" + v + "\"");
  }
}

PodDisruptionBudget read_pdb(const Ctx& c) {
  const Meta m = read_meta(c, "PodDisruptionBudget");
  PodDisruptionBudget b;
  b.where = c.where();
  b.ns = m.ns;
  b.name = m.name;
  Ctx spec = c.child("spec");
  if (spec.defined()) {
    spec.expect_map();
    check_int_or_percent(spec.child("minAvailable"));
    check_int_or_percent(spec.child("maxUnavailable"));
    if (spec.has("minAvailable") && spec.has("maxUnavailable")) {
      spec.child("maxUnavailable").fail("minAvailable and maxUnavailable cannot both be set");
    }
    if (spec.has("selector")) b.selector = parse_label_selector(spec.child("selector"));
  }
  Ctx status = c.child("status");
  if (status.defined() && status.has("disruptionsAllowed")) {
    b.has_status = true;
    Ctx d = status.child("disruptionsAllowed");
    const int64_t v = d.i64();
    if (v < 0 || v > INT32_MAX) d.fail("expected a count in 0..2147483647");
    b.disruptions_allowed = static_cast<int32_t>(v);
    Ctx disrupted = status.child("disruptedPods");
    if (disrupted.defined()) {
      disrupted.expect_map();
      for (const std::string& k : disrupted.keys()) b.disrupted_pods.insert(k);
    }
  }
  return b;
}

}  // namespace

bool is_api_object_kind(const std::string& kind) {
  return kind == "PersistentVolumeClaim" || kind == "PersistentVolume" || kind == "StorageClass" ||
         kind == "CSINode" || kind == "PodDisruptionBudget";
}

void read_api_object(const std::string& kind, const Ctx& c, ApiObjects* out) {
  c.expect_map();
  if (kind == "PersistentVolumeClaim") {
    out->pvcs.push_back(read_pvc(c));
  } else if (kind == "PersistentVolume") {
    out->pvs.push_back(read_pv(c));
  } else if (kind == "StorageClass") {
    out->storage_classes.push_back(read_storage_class(c));
  } else if (kind == "CSINode") {
    out->csi_nodes.push_back(read_csi_node(c));
  } else if (kind == "PodDisruptionBudget") {
    out->pdbs.push_back(read_pdb(c));
  }
}

std::vector<PodVolume> read_pod_volumes(const Ctx& c) {
  std::vector<PodVolume> out;
  if (!c.defined()) return out;
  c.expect_seq();
  for (size_t i = 0; i < c.size(); ++i) {
    Ctx v = c.item(i);
    v.expect_map();
    PodVolume pv;
    if (!v.has("name")) v.fail("volume without a name");
    pv.name = v.child("name").str();
    auto source = [&](const char* key, PodVolume::Kind kind, const char* id_field) {
      Ctx s = v.child(key);
      if (!s.defined()) return false;
      s.expect_map();
      pv.kind = kind;
      if (id_field) {
        if (!s.has(id_field) || s.child(id_field).str().empty()) {
          s.child(id_field).fail("must not be empty");
        }
        pv.id = s.child(id_field).str();
      }
      pv.read_only = s.bool_or("readOnly", false);
      return true;
    };
    if (source("persistentVolumeClaim", PodVolume::Kind::kClaim, "claimName")) {
    } else if (source("ephemeral", PodVolume::Kind::kEphemeral, nullptr)) {
    } else if (source("gcePersistentDisk", PodVolume::Kind::kGcePd, "pdName")) {
    } else if (source("awsElasticBlockStore", PodVolume::Kind::kAwsEbs, "volumeID")) {
    } else if (source("iscsi", PodVolume::Kind::kIscsi, "iqn")) {
    } else if (source("rbd", PodVolume::Kind::kRbd, "image")) {
      Ctx rbd = v.child("rbd");
      pv.pool = rbd.str_or("pool", "rbd");  // the API's default
      if (rbd.has("monitors")) pv.monitors = rbd.child("monitors").str_list();
    }
    out.push_back(std::move(pv));
  }
  return out;
}

}  // namespace orrery
