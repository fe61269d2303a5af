#include "sim/scenario.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "core/error.h"
#include "core/quantity.h"
#include "io/distribution_reader.h"
#include "io/k8s_names.h"
#include "io/k8s_objects.h"
#include "io/limits.h"
#include "io/pod_fields.h"
#include "util/suggest.h"

namespace orrery::sim {
namespace {

using yaml::Ctx;

using yaml::check_keys;

// A count field: an integer in [min, max]; `max` is a limit of docs/scenarios.md (Limits) when
// `limit_unit` is given, else the range of the field's type.
int64_t bounded_count(const Ctx& c, int64_t min, int64_t max, const std::string& limit_unit = "") {
  const int64_t v = c.i64();
  if (v < min)
    c.fail("expected an integer >= " + std::to_string(min) + ", got " + std::to_string(v));
  if (v > max) {
    if (!limit_unit.empty())
      c.fail(over_limit("too many", static_cast<double>(v), max, limit_unit));
    c.fail("expected an integer <= " + std::to_string(max) + ", got " + std::to_string(v));
  }
  return v;
}

constexpr int64_t kInt32Max = 2147483647;

// A count held in 32 bits.
int32_t int32_count(const Ctx& c, int64_t min) {
  return static_cast<int32_t>(bounded_count(c, min, kInt32Max));
}
// A count of `unit` held in 32 bits: at most `limit` (an input limit) when that is lower.
int32_t limited_count(const Ctx& c, int64_t min, int64_t limit, const std::string& unit) {
  if (limit < kInt32Max) return static_cast<int32_t>(bounded_count(c, min, limit, unit));
  return int32_count(c, min);
}
int32_t pod_count(const Ctx& c, int64_t min) {
  return limited_count(c, min, input_limits().pods, "pods");
}

std::string resolve(const std::string& base_dir, const std::string& file) {
  namespace fs = std::filesystem;
  if (file.empty() || fs::path(file).is_absolute() || base_dir.empty()) return file;
  fs::path p = fs::path(base_dir) / file;
  if (fs::exists(p) || !fs::exists(file)) return p.lexically_normal().string();
  return file;  // relative to the working directory
}

int64_t positive_int(const Ctx& c, int64_t min = 1) {
  const int64_t v = c.i64();
  if (v < min)
    c.fail("expected an integer >= " + std::to_string(min) + ", got " + std::to_string(v));
  return v;
}

// ---------------------------------------------------------------- pod templates

const std::vector<std::string> kTemplateKeys = {"template",
                                                "requests",
                                                "limits",
                                                "labels",
                                                "annotations",
                                                "priority",
                                                "priorityClassName",
                                                "schedulerName",
                                                "tolerations",
                                                "nodeSelector",
                                                "affinity",
                                                "topologySpreadConstraints",
                                                "constraints",
                                                "namespace",
                                                "usage",
                                                "work"};

uint64_t parse_constraint_list(const Ctx& c) {
  uint64_t bits = 0;
  if (c.node.IsScalar()) return parse_constraint_ids(c.str(), c.where());
  c.expect_seq();
  for (size_t i = 0; i < c.size(); ++i) {
    const int64_t id = c.item(i).i64();
    if (id < 0 || id >= 64) c.item(i).fail("expected a constraint id in 0..63");
    bits |= uint64_t{1} << id;
  }
  return bits;
}

ExecTemplate parse_exec(const Ctx& c) {
  ExecTemplate x;
  Ctx usage = c.child("usage");
  if (usage.defined()) {
    check_keys(usage, {"cpu", "memory"});
    if (usage.has("cpu")) x.cpu = parse_resource_dist(usage.child("cpu"), true);
    if (usage.has("memory")) x.memory = parse_resource_dist(usage.child("memory"), false);
  }
  if (c.has("work")) x.work = parse_duration_dist(c.child("work"));
  return x;
}

// The pod part of a workload: either `template:` (a Kubernetes PodTemplateSpec) or the shorthand
// fields, which are translated into one and parsed by the object loader.
// The shorthand `requests:` / `limits:` name container resources (io/k8s_names.h).
void check_container_resource_names(const Ctx& list) {
  if (!list.defined()) return;
  list.expect_map();
  for (const std::string& name : list.keys()) {
    const std::string bad = container_resource_name_error(name);
    if (!bad.empty()) list.child(name).fail(bad + did_you_mean(name, well_known_resource_names()));
  }
}

PodTemplate parse_pod_template(const Ctx& c, std::vector<std::string>* warnings) {
  PodTemplate t;
  t.ns = c.str_or("namespace", "default");
  PodSpec spec;
  Ctx tmpl = c.child("template");
  if (tmpl.defined()) {
    tmpl.expect_map();
    for (const char* k : {"requests", "limits", "labels", "annotations", "priority",
                          "priorityClassName", "schedulerName", "tolerations", "nodeSelector",
                          "affinity", "topologySpreadConstraints"}) {
      if (c.has(k)) c.child(k).fail("give either template or the shorthand fields, not both");
    }
    check_keys(tmpl, {"metadata", "spec"});
    check_pod_template_fields(tmpl.child("metadata"), tmpl.child("spec"), warnings);
    if (tmpl.child("metadata").has("namespace")) {
      t.ns = tmpl.child("metadata").child("namespace").str();
    }
    spec = parse_pod_spec(tmpl.child("metadata").node, tmpl.child("spec").node, c.file, tmpl.path);
  } else {
    for (const char* k : {"requests", "limits"}) check_container_resource_names(c.child(k));
    YAML::Node meta(YAML::NodeType::Map), sp(YAML::NodeType::Map);
    for (const char* k : {"labels", "annotations"})
      if (c.has(k)) meta[k] = c.child(k).node;
    YAML::Node container(YAML::NodeType::Map), resources(YAML::NodeType::Map);
    container["name"] = "main";
    for (const char* k : {"requests", "limits"})
      if (c.has(k)) resources[k] = c.child(k).node;
    container["resources"] = resources;
    sp["containers"].push_back(container);
    for (const char* k : {"priority", "priorityClassName", "schedulerName", "tolerations",
                          "nodeSelector", "affinity", "topologySpreadConstraints"}) {
      if (c.has(k)) sp[k] = c.child(k).node;
    }
    spec = parse_pod_spec(meta, sp, c.file, c.path);
  }
  if (c.has("constraints")) spec.constraints = parse_constraint_list(c.child("constraints"));
  t.spec = std::make_shared<PodSpec>(std::move(spec));
  t.exec = parse_exec(c);
  return t;
}

// ---------------------------------------------------------------- cluster

void read_map_resources(const Ctx& c, Resources* out) {
  c.expect_map();
  for (const std::string& k : c.keys()) {
    const std::string bad = node_resource_name_error(k);
    if (!bad.empty()) c.child(k).fail(bad + did_you_mean(k, well_known_resource_names()));
    const ResourceId id = resource_id(k);
    (*out)[id] = parse_resource_quantity(id, c.child(k).str(), c.child(k).where());
  }
}

Taint parse_taint(const Ctx& c) {
  check_keys(c, {"key", "value", "effect"});
  Taint t;
  t.key = intern(c.child("key").str());
  t.value = intern(c.str_or("value", ""));
  auto e = parse_taint_effect(c.str_or("effect", "NoSchedule"));
  if (!e || *e == TaintEffect::kNone) {
    c.child("effect").fail("expected NoSchedule, PreferNoSchedule or NoExecute");
  }
  t.effect = *e;
  return t;
}

NodeGroup parse_node_group(const Ctx& c) {
  check_keys(c, {"name", "count", "cpu", "memory", "pods", "gpu", "ephemeral-storage", "resources",
                 "allocatable", "labels", "annotations", "taints", "tier", "constraints", "speed",
                 "unschedulable"});
  NodeGroup g;
  g.where = c.where();
  if (!c.has("name")) c.fail("node group without a name");
  g.name = c.child("name").str();
  if (c.has("count")) {
    g.count = limited_count(c.child("count"), 0, input_limits().nodes, "nodes");
  }
  Node& n = g.tmpl;
  if (!c.has("cpu")) c.fail("node group \"" + g.name + "\" needs cpu");
  n.capacity[kCpu] = parse_milli_quantity(c.child("cpu").str(), c.child("cpu").where());
  if (c.has("memory")) {
    n.capacity[kMemory] = parse_unit_quantity(c.child("memory").str(), c.child("memory").where());
  }
  n.capacity[kPods] = c.has("pods") ? positive_int(c.child("pods"), 0) : 110;
  if (c.has("gpu")) n.capacity[kGpu] = positive_int(c.child("gpu"), 0);
  if (c.has("ephemeral-storage")) {
    n.capacity[kEphemeralStorage] = parse_unit_quantity(c.child("ephemeral-storage").str(),
                                                        c.child("ephemeral-storage").where());
  }
  if (c.has("resources")) read_map_resources(c.child("resources"), &n.capacity);
  n.allocatable = n.capacity;
  if (c.has("allocatable")) read_map_resources(c.child("allocatable"), &n.allocatable);
  for (const char* k : {"labels", "annotations"}) {
    Ctx m = c.child(k);
    if (!m.defined()) continue;
    m.expect_map();
    for (const std::string& key : m.keys()) {
      (std::string(k) == "labels" ? n.labels : n.annotations).set(key, m.child(key).str());
    }
  }
  if (c.has("tier")) {
    const std::string tier = c.child("tier").str();
    if (tier != "edge" && tier != "cloud") c.child("tier").fail("expected edge or cloud");
    n.labels.set("orrery.io/tier", tier);
  }
  if (c.has("constraints")) {
    const uint64_t bits = parse_constraint_list(c.child("constraints"));
    std::string ids;
    for (int i = 0; i < 64; ++i)
      if (bits >> i & 1) ids += (ids.empty() ? "" : ",") + std::to_string(i);
    n.annotations.set("orrery.io/constraints", ids);
  }
  Ctx taints = c.child("taints");
  if (taints.defined()) {
    taints.expect_seq();
    for (size_t i = 0; i < taints.size(); ++i) n.taints.push_back(parse_taint(taints.item(i)));
  }
  n.unschedulable = c.bool_or("unschedulable", false);
  g.speed = c.f64_or("speed", 1.0);
  if (g.speed <= 0) c.child("speed").fail("expected a positive speed");
  return g;
}

// ---------------------------------------------------------------- workloads

HpaSpec parse_hpa(const Ctx& c) {
  check_keys(c, {"minReplicas", "maxReplicas", "target", "tolerance", "syncPeriod", "behavior",
                 "metric", "metricPeriod", "metricNoise", "metricWindow"});
  HpaSpec h;
  h.min_replicas = c.has("minReplicas") ? pod_count(c.child("minReplicas"), 0) : 1;
  if (!c.has("maxReplicas")) c.fail("hpa needs maxReplicas");
  h.max_replicas = pod_count(c.child("maxReplicas"), 1);
  if (h.max_replicas < h.min_replicas)
    c.child("maxReplicas").fail("expected maxReplicas >= minReplicas");
  h.target = c.f64_or("target", 1.0);
  if (h.target <= 0) c.child("target").fail("expected a positive target");
  h.tolerance = c.f64_or("tolerance", 0.1);
  if (h.tolerance < 0) c.child("tolerance").fail("expected a non-negative tolerance");
  if (c.has("syncPeriod")) h.sync_period = parse_duration(c.child("syncPeriod"));
  if (h.sync_period <= 0) c.child("syncPeriod").fail("expected a positive period");
  if (c.has("metric")) {
    const std::string m = c.child("metric").str();
    if (m == "demand") {
      h.metric = HpaSpec::Metric::kDemand;
    } else if (m == "podRate") {
      h.metric = HpaSpec::Metric::kPodRate;
    } else {
      c.child("metric").fail("expected demand or podRate");
    }
  }
  for (const char* k : {"metricPeriod", "metricNoise", "metricWindow"})
    if (c.has(k) && h.metric != HpaSpec::Metric::kPodRate)
      c.child(k).fail("only with metric: podRate");
  if (c.has("metricPeriod")) h.metric_period = parse_duration(c.child("metricPeriod"));
  if (h.metric_period <= 0) c.child("metricPeriod").fail("expected a positive period");
  h.metric_noise = c.f64_or("metricNoise", 0.0);
  if (h.metric_noise < 0 || h.metric_noise > 5)
    c.child("metricNoise").fail("expected a log-scale noise between 0 and 5");
  if (c.has("metricWindow")) h.metric_window = parse_duration(c.child("metricWindow"));
  if (h.metric_window < 0 || h.metric_window > 3600 * kSecond)
    c.child("metricWindow").fail("expected a window between 0s and 1h");
  Ctx b = c.child("behavior");
  if (b.defined()) {
    check_keys(b, {"scaleUp", "scaleDown"});
    for (const char* dir : {"scaleUp", "scaleDown"}) {
      Ctx r = b.child(dir);
      if (!r.defined()) continue;
      check_keys(r, {"stabilizationWindowSeconds", "selectPolicy", "policies"});
      ScalingRules& rules = std::string(dir) == "scaleUp" ? h.up : h.down;
      if (r.has("stabilizationWindowSeconds")) {
        rules.stabilization = int32_count(r.child("stabilizationWindowSeconds"), 0) * kSecond;
      }
      if (r.has("selectPolicy")) {
        const std::string s = r.child("selectPolicy").str();
        if (s == "Max") {
          rules.select = ScalingRules::Select::kMax;
        } else if (s == "Min") {
          rules.select = ScalingRules::Select::kMin;
        } else if (s == "Disabled") {
          rules.select = ScalingRules::Select::kDisabled;
        } else {
          r.child("selectPolicy").fail("expected Max, Min or Disabled");
        }
      }
      Ctx ps = r.child("policies");
      if (ps.defined()) {
        ps.expect_seq();
        rules.policies.clear();
        for (size_t i = 0; i < ps.size(); ++i) {
          Ctx p = ps.item(i);
          check_keys(p, {"type", "value", "periodSeconds"});
          ScalingPolicy pol;
          const std::string type = p.child("type").str();
          if (type == "Pods") {
            pol.type = ScalingPolicy::Type::kPods;
          } else if (type == "Percent") {
            pol.type = ScalingPolicy::Type::kPercent;
          } else {
            p.child("type").fail("expected Pods or Percent");
          }
          pol.value = int32_count(p.child("value"), 1);
          pol.period = int32_count(p.child("periodSeconds"), 1) * kSecond;
          rules.policies.push_back(pol);
        }
      }
    }
  }
  return h;
}

DeploymentDef parse_deployment(const Ctx& c, std::vector<std::string>* warnings) {
  std::vector<std::string> keys(kTemplateKeys);
  for (const char* k : {"name", "replicas", "hpa", "demand", "scaleDownOrder"}) keys.push_back(k);
  check_keys(c, keys);
  DeploymentDef d;
  d.where = c.where();
  if (!c.has("name")) c.fail("deployment without a name");
  d.name = c.child("name").str();
  d.replicas = c.has("replicas") ? pod_count(c.child("replicas"), 0) : 1;
  d.tmpl = parse_pod_template(c, warnings);
  if (c.has("hpa")) d.hpa = parse_hpa(c.child("hpa"));
  if (c.has("scaleDownOrder")) {
    const std::string o = c.child("scaleDownOrder").str();
    if (o == "logarithmic")
      d.scale_down_order = ScaleDownOrder::kLogarithmic;
    else if (o != "exact")
      c.child("scaleDownOrder").fail("expected exact or logarithmic, got \"" + o + "\"");
  }
  Ctx dem = c.child("demand");
  if (dem.defined()) {
    dem.expect_seq();
    Time last = -1;
    for (size_t i = 0; i < dem.size(); ++i) {
      Ctx s = dem.item(i);
      check_keys(s, {"at", "load"});
      const Time at = parse_duration(s.child("at"));
      if (at < last) s.child("at").fail("demand steps must be in time order");
      last = at;
      const double load = s.child("load").f64();
      if (load < 0) s.child("load").fail("expected a non-negative load");
      d.demand.set(at, load);
    }
    if (!d.hpa) dem.fail("a demand signal needs an hpa to turn it into replicas");
  }
  return d;
}

JobSpec parse_job_body(const Ctx& c, const std::string& name, std::vector<std::string>* warnings) {
  JobSpec j;
  j.name = name;
  if (c.has("completions")) j.completions = pod_count(c.child("completions"), 1);
  j.parallelism = c.has("parallelism") ? int32_count(c.child("parallelism"), 1) : j.completions;
  if (c.has("backoffLimit")) j.backoff_limit = int32_count(c.child("backoffLimit"), 0);
  j.tmpl = parse_pod_template(c, warnings);
  if (!j.tmpl.exec.work) c.fail("a job needs work (how long each pod runs at full speed)");
  return j;
}

void check_job_keys(const Ctx& c, std::initializer_list<const char*> extra) {
  std::vector<std::string> keys(kTemplateKeys);
  keys.insert(keys.end(), extra.begin(), extra.end());
  check_keys(c, keys);
}

JobDef parse_job(const Ctx& c, std::vector<std::string>* warnings) {
  check_job_keys(c, {"name", "at", "completions", "parallelism", "backoffLimit"});
  if (!c.has("name")) c.fail("job without a name");
  JobDef d;
  d.where = c.where();
  d.spec = parse_job_body(c, c.child("name").str(), warnings);
  if (c.has("at")) d.at = parse_duration(c.child("at"));
  return d;
}

ArrivalDef parse_arrivals(const Ctx& c, std::vector<std::string>* warnings) {
  check_keys(c, {"name", "process", "rate", "interval", "start", "stop", "count", "job"});
  ArrivalDef a;
  a.where = c.where();
  if (!c.has("name")) c.fail("arrivals without a name");
  a.name = c.child("name").str();
  const std::string process = c.str_or("process", c.has("interval") ? "interval" : "poisson");
  if (process == "poisson" || process == "constant") {
    if (!c.has("rate")) c.fail("process \"" + process + "\" needs rate (arrivals per second)");
    const double rate = c.child("rate").f64();
    if (rate <= 0) c.child("rate").fail("expected a positive rate");
    a.interval = process == "poisson" ? Dist::exponential(1e6 / rate) : Dist::constant(1e6 / rate);
  } else if (process == "interval") {
    if (!c.has("interval")) c.fail("process \"interval\" needs interval (a duration distribution)");
    a.interval = parse_duration_dist(c.child("interval"));
  } else {
    c.child("process").fail("expected poisson, constant or interval");
  }
  if (c.has("start")) a.start = parse_duration(c.child("start"));
  if (c.has("stop")) a.stop = parse_duration(c.child("stop"));
  if (c.has("count")) a.count = bounded_count(c.child("count"), 1, input_limits().pods, "jobs");
  Ctx job = c.child("job");
  if (!job.defined()) c.fail("arrivals need a job template (job: {...})");
  check_job_keys(job, {"completions", "parallelism", "backoffLimit"});
  a.job = parse_job_body(job, a.name, warnings);
  return a;
}

TraceDef parse_trace_workload(const Ctx& c, const std::string& base_dir,
                              std::vector<std::string>* warnings) {
  std::vector<std::string> keys(kTemplateKeys);
  for (const char* k : {"file", "name", "offset"}) keys.push_back(k);
  check_keys(c, keys);
  TraceDef t;
  t.where = c.where();
  if (!c.has("file")) c.fail("trace needs file");
  t.file = resolve(base_dir, c.child("file").str());
  t.prefix = c.str_or("name", "");
  if (c.has("offset")) t.offset = parse_duration(c.child("offset"));
  if (c.has("work")) c.child("work").fail("a trace gives each task's work itself");
  t.tmpl = parse_pod_template(c, warnings);
  if (!std::filesystem::is_regular_file(t.file)) {
    c.child("file").fail("no such trace file: " + t.file);
  }
  t.trace = std::make_shared<Trace>(read_trace(t.file));
  return t;
}

DemandCycleSpec::Stalls parse_stalls(const Ctx& c) {
  check_keys(c, {"after", "every", "minLength", "maxLength", "depth"});
  DemandCycleSpec::Stalls st;
  if (!c.has("every")) c.fail("stalls needs every (the mean time between episodes)");
  st.every = parse_duration(c.child("every"));
  if (st.every <= 0) c.child("every").fail("expected a positive duration");
  if (c.has("after")) st.after = parse_duration(c.child("after"));
  if (st.after < 0) c.child("after").fail("expected a non-negative duration");
  if (!c.has("maxLength")) c.fail("stalls needs maxLength");
  st.max_length = parse_duration(c.child("maxLength"));
  st.min_length = c.has("minLength") ? parse_duration(c.child("minLength")) : st.max_length;
  if (st.min_length <= 0) c.child("minLength").fail("expected a positive duration");
  if (st.max_length < st.min_length) c.child("maxLength").fail("expected maxLength >= minLength");
  st.depth = c.f64_or("depth", 0.0);
  if (!(st.depth >= 0 && st.depth <= 1))
    c.child("depth").fail("expected the load's factor during a stall, between 0 and 1");
  return st;
}

DemandCyclesDef parse_demand_cycles(const Ctx& c) {
  check_keys(c, {"deployments", "cycles", "period", "start", "mean", "sd", "basis", "count",
                 "round", "draw", "sizes", "stop", "stalls"});
  DemandCyclesDef d;
  d.where = c.where();
  if (!c.has("deployments")) c.fail("demand_cycles needs deployments");
  d.deployments = c.child("deployments").str_list();
  if (d.deployments.empty()) c.child("deployments").fail("expected at least one deployment");
  if (c.has("cycles")) d.spec.cycles = int32_count(c.child("cycles"), 1);
  if (c.has("period")) d.spec.period = parse_duration(c.child("period"));
  if (d.spec.period <= 0) c.child("period").fail("expected a positive period");
  if (c.has("start")) d.spec.start = parse_duration(c.child("start"));
  if (!c.has("mean")) c.fail("demand_cycles needs mean (fraction of the basis resources)");
  d.spec.mean = c.child("mean").f64();
  d.spec.sd = c.f64_or("sd", 0.0);
  if (d.spec.sd < 0) c.child("sd").fail("expected sd >= 0");
  if (c.has("round")) d.spec.round = c.child("round").boolean();
  if (c.has("count")) {
    const std::string n = c.child("count").str();
    if (n == "max") {
      d.spec.count = DemandCycleSpec::Count::kMax;
    } else if (n == "min") {
      d.spec.count = DemandCycleSpec::Count::kMin;
    } else {
      c.child("count").fail("expected max or min");
    }
  }
  if (c.has("stop")) d.spec.stop = c.child("stop").boolean();
  if (c.has("draw")) {
    const std::string v = c.child("draw").str();
    if (v == "shared") {
      d.spec.draw = DemandCycleSpec::Draw::kShared;
    } else if (v == "per-service") {
      d.spec.draw = DemandCycleSpec::Draw::kPerService;
    } else {
      c.child("draw").fail("expected shared or per-service");
    }
  }
  if (c.has("sizes")) {
    const Ctx sz = c.child("sizes");
    if (d.spec.draw != DemandCycleSpec::Draw::kPerService)
      sz.fail("sizes only apply with draw: per-service");
    sz.expect_map();
    for (const std::string& name : sz.keys()) {
      if (std::find(d.deployments.begin(), d.deployments.end(), name) == d.deployments.end())
        sz.child(name).fail("\"" + name + "\" is not one of this demand_cycles' deployments");
      check_keys(sz.child(name), {"cpu", "memory"});
      read_map_resources(sz.child(name), &d.sizes[name]);
    }
  }
  if (c.has("stalls")) d.spec.stalls = parse_stalls(c.child("stalls"));
  Ctx basis = c.child("basis");
  if (basis.defined()) {
    if (basis.node.IsScalar()) {
      const std::string b = basis.str();
      if (b == "edge") {
        d.basis = DemandCyclesDef::Basis::kEdge;
      } else if (b == "all") {
        d.basis = DemandCyclesDef::Basis::kAll;
      } else {
        basis.fail("expected edge, all or {cpu: ..., memory: ...}");
      }
    } else {
      check_keys(basis, {"cpu", "memory"});
      d.basis = DemandCyclesDef::Basis::kExplicit;
      read_map_resources(basis, &d.spec.basis);
    }
  }
  return d;
}

NodeEventDef parse_event(const Ctx& c) {
  c.expect_map();
  const bool random = c.has("action") && c.child("action").str() == "random-failures";
  if (random) {
    check_keys(c, {"at", "action", "nodes", "mtbf", "mttr", "until"});
  } else {
    check_keys(c, {"at", "action", "nodes", "group"});
  }
  NodeEventDef e;
  e.where = c.where();
  if (!c.has("at")) c.fail("event needs at");
  e.at = parse_duration(c.child("at"));
  const std::string action = c.child("action").str();
  if (action == "fail") {
    e.action = NodeEventDef::Action::kFail;
  } else if (action == "recover") {
    e.action = NodeEventDef::Action::kRecover;
  } else if (action == "remove") {
    e.action = NodeEventDef::Action::kRemove;
  } else if (action == "add") {
    e.action = NodeEventDef::Action::kAdd;
  } else if (random) {
    e.action = NodeEventDef::Action::kRandomFailures;
  } else {
    c.child("action").fail("expected fail, recover, remove, add or random-failures");
  }
  if (e.action == NodeEventDef::Action::kAdd) {
    if (!c.has("group")) c.fail("action add needs group (a node group)");
    e.group = parse_node_group(c.child("group"));
    return e;
  }
  if (!c.has("nodes")) c.fail("action " + action + " needs nodes (node or group names)");
  e.nodes = c.child("nodes").str_list();
  if (random) {
    for (const char* key : {"mtbf", "mttr"}) {
      if (!c.has(key)) c.fail(std::string("action random-failures needs ") + key + " (a duration)");
      const Time t = parse_duration(c.child(key));
      if (t <= 0) c.child(key).fail("expected a duration > 0");
      (std::string(key) == "mtbf" ? e.mtbf : e.mttr) = t;
    }
    if (c.has("until")) {
      e.until = parse_duration(c.child("until"));
      if (e.until <= e.at) c.child("until").fail("expected a time after at");
    }
  }
  return e;
}

Lifecycle parse_lifecycle(const Ctx& c) {
  Lifecycle l;
  if (!c.defined()) return l;
  check_keys(c, {"api", "bind", "startup", "termination", "gc", "node_failure"});
  if (c.has("api")) l.api = parse_duration_dist(c.child("api"));
  if (c.has("bind")) l.bind = parse_duration_dist(c.child("bind"));
  if (c.has("startup")) l.startup = parse_duration_dist(c.child("startup"));
  if (c.has("termination")) l.termination = parse_duration_dist(c.child("termination"));
  if (c.has("gc")) l.gc = parse_duration_dist(c.child("gc"));
  Ctx nf = c.child("node_failure");
  if (nf.defined()) {
    check_keys(nf, {"detection", "eviction"});
    if (nf.has("detection")) l.failure_detection = parse_duration(nf.child("detection"));
    if (nf.has("eviction")) l.failure_eviction = parse_duration(nf.child("eviction"));
  }
  return l;
}

SchedulerDef parse_scheduler(const Ctx& c, const std::string& base_dir) {
  SchedulerDef s;
  if (c.node.IsScalar()) {
    s.policy = c.str();
    s.where = c.where();
    return s;
  }
  check_keys(c, {"policy", "config", "args"});
  if (!c.has("policy")) c.fail("scheduler needs policy (e.g. kube-default)");
  s.policy = c.child("policy").str();
  s.where = c.child("policy").where();
  if (c.has("config")) {
    s.config = resolve(base_dir, c.child("config").str());
  }
  s.args = c.child("args");
  return s;
}

}  // namespace

std::vector<std::string> NodeGroup::node_names() const {
  std::vector<std::string> out;
  if (count == 1) {
    out.push_back(name);
  } else {
    for (int i = 0; i < count; ++i) out.push_back(name + "-" + std::to_string(i));
  }
  return out;
}

SchedulerDef Scenario::settings_for(size_t slot, const std::string& policy) const {
  if (slot < schedulers.size() && schedulers[slot].policy == policy) return schedulers[slot];
  auto it = policy_settings.find(policy);
  if (it != policy_settings.end()) return it->second;
  SchedulerDef d;
  d.policy = policy;
  return d;
}

bool Scenario::has_endless_work() const {
  if (!deployments.empty() || !snapshot_pods.empty()) return true;
  for (const ArrivalDef& a : arrivals)
    if (a.count < 0 && a.stop == kForever) return true;
  return false;
}

Time Scenario::natural_duration() const {
  Time end = 0;
  for (const DemandCyclesDef& d : demand_cycles) {
    end = std::max(end, d.spec.start + d.spec.period * d.spec.cycles);
  }
  return end;
}

namespace {

// The largest contribution to a total, for the error message.
struct Tally {
  double total = 0;
  double largest = -1;
  std::string where;
  void add(double n, const std::string& at) {
    total += n;
    if (n > largest) {
      largest = n;
      where = at;
    }
  }
  void check(int64_t limit, const std::string& what, const std::string& unit,
             const std::string& fallback_where) const {
    if (total <= static_cast<double>(limit)) return;
    throw InputError((where.empty() ? fallback_where : where) + ": " +
                     over_limit(what, total, limit, unit));
  }
};

// When a run without a duration ends at the latest: the last trace arrival, job start or end of
// arrivals it knows of.
Time known_horizon(const Scenario& s) {
  Time end = s.natural_duration();
  for (const TraceDef& t : s.traces)
    for (const TraceJob& j : t.trace->jobs) end = std::max(end, t.offset + j.arrival);
  for (const JobDef& j : s.jobs) end = std::max(end, j.at);
  for (const ArrivalDef& a : s.arrivals)
    if (a.stop != kForever) end = std::max(end, a.stop);
  return end;
}

}  // namespace

void check_scenario_limits(const Scenario& s, Time duration) {
  const InputLimits& lim = input_limits();
  if (duration <= 0) duration = s.duration;
  const std::string file = s.source.empty() ? "<scenario>" : s.source;

  Tally nodes;
  for (const NodeGroup& g : s.node_groups) nodes.add(g.count, g.where);
  for (const NodeEventDef& e : s.events)
    if (e.action == NodeEventDef::Action::kAdd) nodes.add(e.group.count, e.where);
  nodes.add(static_cast<double>(s.snapshot_nodes.size()), file + ": cluster.snapshot");
  nodes.check(lim.nodes, "nodes in the cluster", "nodes", file);

  Tally pods;
  for (const DeploymentDef& d : s.deployments)
    pods.add(std::max<double>(d.replicas, d.hpa ? d.hpa->max_replicas : 0), d.where);
  for (const JobDef& j : s.jobs) pods.add(j.spec.completions, j.where);
  for (const ArrivalDef& a : s.arrivals) {
    double jobs = static_cast<double>(a.count);
    if (a.count < 0) {
      const Time end = std::min(a.stop, duration > 0 ? duration : kForever);
      const double mean = a.interval.mean();
      if (end == kForever || mean <= 0) {
        jobs = std::numeric_limits<double>::infinity();
      } else {
        jobs = std::max<double>(0, static_cast<double>(end - a.start)) / mean;
      }
    }
    pods.add(jobs * a.job.completions, a.where);
  }
  for (const TraceDef& t : s.traces) pods.add(static_cast<double>(t.trace->task_count()), t.where);
  pods.add(static_cast<double>(s.snapshot_pods.size()), file + ": cluster.snapshot");
  pods.check(lim.pods, "pods this run would create (arrivals: rate x simulated time x completions)",
             "pods", file);

  const Time horizon = duration > 0 ? duration : known_horizon(s);
  const double samples = static_cast<double>(horizon) / static_cast<double>(s.sample_interval);
  if (samples > static_cast<double>(lim.samples)) {
    throw InputError(file + ": duration / metrics.sample_interval: " +
                     over_limit("time-series samples", samples, lim.samples, "samples") +
                     " (or raise metrics.sample_interval)");
  }
}

Scenario parse_scenario(const std::string& text, const std::string& source,
                        const std::string& base_dir) {
  Ctx root{source, yaml::parse_document(text, source), ""};
  yaml::check_unique_keys(root);
  check_keys(root, {"name", "description", "seed", "duration", "scheduler", "schedulers",
                    "policies", "lifecycle", "metrics", "cluster", "workloads", "events"});
  Scenario s;
  s.source = source;
  s.name = root.str_or("name", std::filesystem::path(source).stem().string());
  s.description = root.str_or("description", "");
  if (root.has("seed")) {
    const int64_t seed = root.child("seed").i64();
    if (seed < 0) root.child("seed").fail("expected a non-negative seed");
    s.seed = static_cast<uint64_t>(seed);
  }
  if (root.has("duration")) {
    s.duration = parse_duration(root.child("duration"));
    if (s.duration <= 0) root.child("duration").fail("expected a positive duration");
  }
  if (root.has("scheduler") && root.has("schedulers")) {
    root.child("schedulers").fail("give scheduler or schedulers, not both");
  }
  if (root.has("scheduler")) {
    s.schedulers = {parse_scheduler(root.child("scheduler"), base_dir)};
  } else if (root.has("schedulers")) {
    Ctx l = root.child("schedulers");
    l.expect_seq();
    if (l.size() == 0) l.fail("expected at least one scheduler");
    s.schedulers.clear();
    for (size_t i = 0; i < l.size(); ++i)
      s.schedulers.push_back(parse_scheduler(l.item(i), base_dir));
  }
  Ctx pols = root.child("policies");
  if (pols.defined()) {
    pols.expect_map();
    for (const std::string& name : pols.keys()) {
      Ctx p = pols.child(name);
      check_keys(p, {"config", "args"});
      SchedulerDef d;
      d.policy = name;
      d.where = p.where();
      if (p.has("config")) d.config = resolve(base_dir, p.child("config").str());
      d.args = p.child("args");
      s.policy_settings[name] = d;
    }
  }
  s.lifecycle = parse_lifecycle(root.child("lifecycle"));
  Ctx metrics = root.child("metrics");
  if (metrics.defined()) {
    check_keys(metrics, {"sample_interval"});
    if (metrics.has("sample_interval")) {
      s.sample_interval = parse_duration(metrics.child("sample_interval"));
      if (s.sample_interval <= 0)
        metrics.child("sample_interval").fail("expected a positive interval");
    }
  }

  // Cluster.
  Ctx cluster = root.child("cluster");
  if (!cluster.defined()) root.fail("missing cluster (node groups or a snapshot)");
  check_keys(cluster, {"nodes", "snapshot"});
  Ctx groups = cluster.child("nodes");
  if (groups.defined()) {
    groups.expect_seq();
    for (size_t i = 0; i < groups.size(); ++i)
      s.node_groups.push_back(parse_node_group(groups.item(i)));
  }
  if (cluster.has("snapshot")) {
    K8sObjects objs = load_k8s_objects(resolve(base_dir, cluster.child("snapshot").str()));
    s.snapshot_nodes = std::move(objs.nodes);
    s.snapshot_pods = std::move(objs.pods);
  }
  if (s.node_groups.empty() && s.snapshot_nodes.empty()) cluster.fail("the cluster has no nodes");
  // Before the node names below are made, one string per node.
  check_scenario_limits(s, 0);
  std::set<std::string> names;
  for (const NodeGroup& g : s.node_groups) {
    for (const std::string& n : g.node_names()) {
      if (!names.insert(n).second) {
        throw InputError(g.where + ": duplicate node name \"" + n + "\"");
      }
    }
  }

  // Workloads.
  Ctx wl = root.child("workloads");
  if (wl.defined()) {
    wl.expect_seq();
    for (size_t i = 0; i < wl.size(); ++i) {
      Ctx item = wl.item(i);
      item.expect_map();
      const std::vector<std::string> keys = item.keys();
      if (keys.size() != 1) {
        item.fail("expected one of deployment, job, arrivals, trace, demand_cycles");
      }
      const std::string& kind = keys[0];
      Ctx body = item.child(kind);
      if (kind == "deployment") {
        s.deployments.push_back(parse_deployment(body, &s.warnings));
      } else if (kind == "job") {
        s.jobs.push_back(parse_job(body, &s.warnings));
      } else if (kind == "arrivals") {
        s.arrivals.push_back(parse_arrivals(body, &s.warnings));
      } else if (kind == "trace") {
        s.traces.push_back(parse_trace_workload(body, base_dir, &s.warnings));
      } else if (kind == "demand_cycles") {
        s.demand_cycles.push_back(parse_demand_cycles(body));
      } else {
        item.child(kind).fail(
            "unknown workload \"" + kind + "\"" +
            did_you_mean(kind, {"deployment", "job", "arrivals", "trace", "demand_cycles"}) +
            "; expected deployment, job, arrivals, trace or demand_cycles");
      }
    }
  }
  std::set<std::string> dep_names;
  for (const DeploymentDef& d : s.deployments) {
    if (!dep_names.insert(d.name).second) {
      throw InputError(d.where + ": duplicate deployment \"" + d.name + "\"");
    }
  }
  std::map<std::string, std::string> driven_by;  // deployment -> where its demand_cycles are
  for (const DemandCyclesDef& dc : s.demand_cycles) {
    for (const std::string& n : dc.deployments) {
      if (auto [prev, fresh] = driven_by.emplace(n, dc.where); !fresh) {
        throw InputError(dc.where + ": deployments: \"" + n + "\" is already driven by " +
                         (prev->second == dc.where ? "this demand_cycles (listed twice)"
                                                   : "the demand_cycles at " + prev->second));
      }
      auto it = std::find_if(s.deployments.begin(), s.deployments.end(),
                             [&](const DeploymentDef& d) { return d.name == n; });
      if (it == s.deployments.end()) {
        throw InputError(dc.where + ": deployments: no deployment named \"" + n + "\"");
      }
      if (!it->hpa) {
        throw InputError(it->where + ": deployment \"" + n +
                         "\" is driven by demand_cycles and needs an hpa");
      }
      if (!it->demand.empty()) {
        throw InputError(it->where + ": deployment \"" + n +
                         "\" has both a demand list and demand_cycles");
      }
    }
  }

  Ctx ev = root.child("events");
  if (ev.defined()) {
    ev.expect_seq();
    for (size_t i = 0; i < ev.size(); ++i) s.events.push_back(parse_event(ev.item(i)));
  }
  if (s.duration == 0) s.duration = s.natural_duration();
  if (s.duration == 0 && s.has_endless_work()) {
    root.fail("missing duration: deployments (and open-ended arrivals) run until stopped");
  }
  check_scenario_limits(s, s.duration);
  return s;
}

Scenario load_scenario(const std::string& path) {
  const std::string text = read_text_file(path);
  return parse_scenario(text, path, std::filesystem::path(path).parent_path().string());
}

Scenario trace_scenario(const std::string& trace_file, int workers) {
  if (workers <= 0) throw InputError("--workers: expected a positive number of workers");
  if (workers > input_limits().nodes) {
    throw InputError("--workers: " +
                     over_limit("too many", workers, input_limits().nodes, "nodes"));
  }
  Scenario s;
  s.name = std::filesystem::path(trace_file).stem().string();
  s.source = trace_file;
  NodeGroup g;
  g.name = "worker";
  g.count = workers;
  g.tmpl.capacity[kCpu] = 1000;
  g.tmpl.capacity[kMemory] = int64_t{1} << 30;
  g.tmpl.capacity[kPods] = 1;
  g.tmpl.allocatable = g.tmpl.capacity;
  s.node_groups.push_back(g);
  TraceDef t;
  t.file = trace_file;
  t.tmpl.spec = std::make_shared<PodSpec>([] {
    PodSpec p;
    Container c;
    c.name = "task";
    p.containers.push_back(c);
    p.finalize();
    return p;
  }());
  t.trace = std::make_shared<Trace>(read_trace(trace_file));
  t.where = trace_file;
  s.traces.push_back(std::move(t));
  check_scenario_limits(s, 0);
  return s;
}

}  // namespace orrery::sim
