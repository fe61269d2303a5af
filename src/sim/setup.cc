#include "sim/setup.h"

#include <map>
#include <tuple>

#include "sim/metrics.h"

namespace orrery::sim {
namespace {

// "cpu=5, memory=5Gi" (pods and empty components left out).
std::string node_size(const Node& n) {
  Resources r = n.capacity.is_zero() ? n.allocatable : n.capacity;
  r[kPods] = 0;
  return r.to_string();
}

std::string requests_of(const PodTemplate& t) {
  if (!t.spec) return "";
  Resources r = t.spec->request;
  r[kPods] = 0;
  return r.is_zero() ? "no requests" : "requests " + r.to_string();
}

std::string plural(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string job_line(const JobSpec& j) {
  return plural(j.completions, "completion", "completions") + ", parallelism " +
         std::to_string(j.parallelism) + "; " + requests_of(j.tmpl);
}

Json nodes_json(const Scenario& sc) {
  // Grouped by (tier, size) in order of first appearance.
  std::vector<std::tuple<std::string, std::string, int64_t>> groups;
  auto add = [&](const Node& n, int64_t count) {
    const std::string tier(to_string(n.tier)), size = node_size(n);
    for (auto& [t, s, c] : groups) {
      if (t == tier && s == size) {
        c += count;
        return;
      }
    }
    groups.emplace_back(tier, size, count);
  };
  for (const NodeGroup& g : sc.node_groups) {
    Node n = g.tmpl;  // the tier comes from the labels, as when the node is added
    n.derive_orrery_fields(g.where);
    add(n, g.count);
  }
  for (const Node& n : sc.snapshot_nodes) add(n, 1);
  Json out = Json::array();
  for (const auto& [t, s, c] : groups) out.push_back(Json{{"tier", t}, {"size", s}, {"count", c}});
  return out;
}

Json workloads_json(const Scenario& sc) {
  Json out = Json::array();
  for (const DeploymentDef& d : sc.deployments) {
    std::string line = "deployment " + d.name + ": " + plural(d.replicas, "replica", "replicas");
    if (d.hpa) line += ", HPA up to " + std::to_string(d.hpa->max_replicas);
    out.push_back(line + "; " + requests_of(d.tmpl));
  }
  for (const DemandCyclesDef& c : sc.demand_cycles) {
    std::string names;
    for (const std::string& n : c.deployments) names += (names.empty() ? "" : ", ") + n;
    out.push_back("demand cycles on " + names + ": " + std::to_string(c.spec.cycles) + " × " +
                  fmt_seconds(c.spec.period) + " s, demand mean " + fmt_double(c.spec.mean) +
                  ", sd " + fmt_double(c.spec.sd));
  }
  for (const JobDef& j : sc.jobs)
    out.push_back("job " + j.spec.name + " at " + fmt_seconds(j.at) + " s: " + job_line(j.spec));
  for (const ArrivalDef& a : sc.arrivals) {
    std::string line = "arrivals " + a.name + ":";
    const double mean_s = a.interval.mean() / 1e6;
    line += mean_s > 0 ? " about " + fmt_double(1.0 / mean_s) + " jobs/s" : " all at once";
    if (!a.interval.is_constant()) line += " (random intervals)";
    if (a.count >= 0) line += ", " + plural(a.count, "job", "jobs");
    if (a.stop != kForever) line += " until " + fmt_seconds(a.stop) + " s";
    out.push_back(line + "; each " + job_line(a.job));
  }
  for (const TraceDef& t : sc.traces) {
    std::string line = "trace " + t.file;
    if (t.trace) line += ": " + plural(static_cast<int64_t>(t.trace->jobs.size()), "job", "jobs");
    out.push_back(line);
  }
  if (!sc.snapshot_pods.empty())
    out.push_back(plural(static_cast<int64_t>(sc.snapshot_pods.size()), "pod", "pods") +
                  " already running from the snapshot");
  return out;
}

}  // namespace

Json run_setup(const Scenario& sc, uint64_t seed, Time duration,
               const std::vector<std::string>& policies, const fw::PolicyRegistry& registry) {
  Json out;
  out["scenario"] = sc.name;
  out["description"] = sc.description;
  out["seed"] = seed;
  out["duration_s"] = duration > 0 ? Json(to_seconds(duration)) : Json(nullptr);
  out["nodes"] = nodes_json(sc);
  out["workloads"] = workloads_json(sc);
  Json ps = Json::array();
  for (const std::string& p : policies)
    ps.push_back(
        Json{{"name", p}, {"description", registry.has(p) ? registry.description(p) : ""}});
  out["policies"] = ps;
  return out;
}

}  // namespace orrery::sim
