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
#include "sim/scenario_parse.h"
#include "util/suggest.h"

namespace orrery::sim {

using yaml::Ctx;

using yaml::check_keys;

using namespace scenario_parse;  // the readers shared with scenario_workloads.cc

namespace scenario_parse {

int64_t bounded_count(const Ctx& c, int64_t min, int64_t max, const std::string& limit_unit) {
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

int32_t int32_count(const Ctx& c, int64_t min) {
  return static_cast<int32_t>(bounded_count(c, min, kInt32Max));
}
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

}  // namespace scenario_parse

namespace {

int64_t positive_int(const Ctx& c, int64_t min = 1) {
  const int64_t v = c.i64();
  if (v < min)
    c.fail("expected an integer >= " + std::to_string(min) + ", got " + std::to_string(v));
  return v;
}

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

// The shorthand `requests:` / `limits:` name container resources (io/k8s_names.h).
void check_container_resource_names(const Ctx& list) {
  if (!list.defined()) return;
  list.expect_map();
  for (const std::string& name : list.keys()) {
    const std::string bad = container_resource_name_error(name);
    if (!bad.empty()) list.child(name).fail(bad + did_you_mean(name, well_known_resource_names()));
  }
}

}  // namespace

namespace scenario_parse {

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

}  // namespace scenario_parse

namespace {

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

// ------------------------ node events, lifecycle, schedulers (workloads: scenario_workloads.cc)

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

// scheduler: or schedulers: (one of them) and policies: (per-policy settings) into `s`.
void parse_schedulers(const Ctx& root, const std::string& base_dir, Scenario* s) {
  if (root.has("scheduler") && root.has("schedulers")) {
    root.child("schedulers").fail("give scheduler or schedulers, not both");
  }
  if (root.has("scheduler")) {
    s->schedulers = {parse_scheduler(root.child("scheduler"), base_dir)};
  } else if (root.has("schedulers")) {
    Ctx l = root.child("schedulers");
    l.expect_seq();
    if (l.size() == 0) l.fail("expected at least one scheduler");
    s->schedulers.clear();
    for (size_t i = 0; i < l.size(); ++i)
      s->schedulers.push_back(parse_scheduler(l.item(i), base_dir));
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
      s->policy_settings[name] = d;
    }
  }
}

// cluster: (node groups and/or a snapshot) into `s`; checks the limits and the node names.
void parse_cluster(const Ctx& root, const std::string& base_dir, Scenario* s) {
  Ctx cluster = root.child("cluster");
  if (!cluster.defined()) root.fail("missing cluster (node groups or a snapshot)");
  check_keys(cluster, {"nodes", "snapshot"});
  Ctx groups = cluster.child("nodes");
  if (groups.defined()) {
    groups.expect_seq();
    for (size_t i = 0; i < groups.size(); ++i)
      s->node_groups.push_back(parse_node_group(groups.item(i)));
  }
  if (cluster.has("snapshot")) {
    K8sObjects objs = load_k8s_objects(resolve(base_dir, cluster.child("snapshot").str()));
    s->snapshot_nodes = std::move(objs.nodes);
    s->snapshot_pods = std::move(objs.pods);
  }
  if (s->node_groups.empty() && s->snapshot_nodes.empty()) {
    cluster.fail("the cluster has no nodes");
  }
  // Before the node names below are made, one string per node.
  check_scenario_limits(*s, 0);
  std::set<std::string> names;
  for (const NodeGroup& g : s->node_groups) {
    for (const std::string& n : g.node_names()) {
      if (!names.insert(n).second) {
        throw InputError(g.where + ": duplicate node name \"" + n + "\"");
      }
    }
  }
}

// workloads: (deployments, jobs, arrivals, traces, demand_cycles) into `s`, in file order.
void parse_workloads(const Ctx& root, const std::string& base_dir, Scenario* s) {
  Ctx wl = root.child("workloads");
  if (!wl.defined()) return;
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
      s->deployments.push_back(parse_deployment(body, &s->warnings));
    } else if (kind == "job") {
      s->jobs.push_back(parse_job(body, &s->warnings));
    } else if (kind == "arrivals") {
      s->arrivals.push_back(parse_arrivals(body, &s->warnings));
    } else if (kind == "trace") {
      s->traces.push_back(parse_trace_workload(body, base_dir, &s->warnings));
    } else if (kind == "demand_cycles") {
      s->demand_cycles.push_back(parse_demand_cycles(body));
    } else {
      item.child(kind).fail(
          "unknown workload \"" + kind + "\"" +
          did_you_mean(kind, {"deployment", "job", "arrivals", "trace", "demand_cycles"}) +
          "; expected deployment, job, arrivals, trace or demand_cycles");
    }
  }
}

// Deployment names are unique, and each deployment a demand_cycles names exists, has an hpa, no
// demand list and no other demand_cycles.
void check_workload_names(const Scenario& s) {
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
  parse_schedulers(root, base_dir, &s);
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

  parse_cluster(root, base_dir, &s);
  parse_workloads(root, base_dir, &s);
  check_workload_names(s);

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
