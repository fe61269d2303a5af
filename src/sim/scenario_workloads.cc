// The workloads of a scenario file (docs/scenarios.md, Workloads): deployments (with their hpa),
// jobs, arrivals, traces and demand_cycles. Split from scenario.cc, which reads the rest.
#include <algorithm>
#include <filesystem>

#include "io/distribution_reader.h"
#include "io/limits.h"
#include "sim/scenario_parse.h"

namespace orrery::sim::scenario_parse {

using yaml::Ctx;

using yaml::check_keys;

namespace {

// One entry of an hpa's behavior.<direction>.policies.
ScalingPolicy parse_scaling_policy(const Ctx& p) {
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
  return pol;
}

// An hpa's behavior.scaleUp or behavior.scaleDown (defined), over the defaults in `rules`.
void parse_scaling_rules(const Ctx& r, ScalingRules* rules) {
  check_keys(r, {"stabilizationWindowSeconds", "selectPolicy", "policies"});
  if (r.has("stabilizationWindowSeconds")) {
    rules->stabilization = int32_count(r.child("stabilizationWindowSeconds"), 0) * kSecond;
  }
  if (r.has("selectPolicy")) {
    const std::string s = r.child("selectPolicy").str();
    if (s == "Max") {
      rules->select = ScalingRules::Select::kMax;
    } else if (s == "Min") {
      rules->select = ScalingRules::Select::kMin;
    } else if (s == "Disabled") {
      rules->select = ScalingRules::Select::kDisabled;
    } else {
      r.child("selectPolicy").fail("expected Max, Min or Disabled");
    }
  }
  Ctx ps = r.child("policies");
  if (ps.defined()) {
    ps.expect_seq();
    rules->policies.clear();
    for (size_t i = 0; i < ps.size(); ++i)
      rules->policies.push_back(parse_scaling_policy(ps.item(i)));
  }
}

// An hpa's metric and the podRate fields (metricPeriod, metricNoise, metricWindow) into `h`.
void parse_hpa_metric(const Ctx& c, HpaSpec* h) {
  if (c.has("metric")) {
    const std::string m = c.child("metric").str();
    if (m == "demand") {
      h->metric = HpaSpec::Metric::kDemand;
    } else if (m == "podRate") {
      h->metric = HpaSpec::Metric::kPodRate;
    } else {
      c.child("metric").fail("expected demand or podRate");
    }
  }
  for (const char* k : {"metricPeriod", "metricNoise", "metricWindow"})
    if (c.has(k) && h->metric != HpaSpec::Metric::kPodRate)
      c.child(k).fail("only with metric: podRate");
  if (c.has("metricPeriod")) h->metric_period = parse_duration(c.child("metricPeriod"));
  if (h->metric_period <= 0) c.child("metricPeriod").fail("expected a positive period");
  h->metric_noise = c.f64_or("metricNoise", 0.0);
  if (h->metric_noise < 0 || h->metric_noise > 5)
    c.child("metricNoise").fail("expected a log-scale noise between 0 and 5");
  if (c.has("metricWindow")) h->metric_window = parse_duration(c.child("metricWindow"));
  if (h->metric_window < 0 || h->metric_window > 3600 * kSecond)
    c.child("metricWindow").fail("expected a window between 0s and 1h");
}

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
  parse_hpa_metric(c, &h);
  Ctx b = c.child("behavior");
  if (b.defined()) {
    check_keys(b, {"scaleUp", "scaleDown"});
    for (const char* dir : {"scaleUp", "scaleDown"}) {
      Ctx r = b.child(dir);
      if (!r.defined()) continue;
      parse_scaling_rules(r, std::string(dir) == "scaleUp" ? &h.up : &h.down);
    }
  }
  return h;
}

}  // namespace

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

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace orrery::sim::scenario_parse
