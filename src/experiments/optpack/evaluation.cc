#include "experiments/optpack/evaluation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/rng.h"
#include "framework/config.h"
#include "framework/scheduler.h"
#include "io/k8s_objects.h"
#include "plugins/register.h"
#include "policies/optpack/snapshot.h"

namespace orrery::optpack {

std::string config_name(const InstanceConfig& c) {
  return "n" + std::to_string(c.nodes) + "-ppn" + std::to_string(c.pods_per_node) + "-t" +
         std::to_string(c.tiers) + "-u" + std::to_string(c.usage_pct);
}

std::string_view to_string(Category c) {
  switch (c) {
    case Category::kBetterOptimal: return "Better&Optimal";
    case Category::kBetter: return "Better";
    case Category::kBaselineOptimal: return "Baseline-Optimal";
    case Category::kNoCalls: return "NoCalls";
    case Category::kFailure: return "Failures";
  }
  return "?";
}

namespace {

struct GenPod {
  std::string name, owner;
  int64_t cpu_m = 0, mem_mi = 0;
  int32_t priority = 0;
};

std::string two_digits(int v) {
  char b[8];
  std::snprintf(b, sizeof b, "%02d", v);
  return b;
}

std::string pod_yaml(const GenPod& p, int index, const std::string& node) {
  std::string y = "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " + p.name +
                  "\n  namespace: default\n  creationTimestamp: \"2025-01-01T" +
                  two_digits(index / 3600) + ":" + two_digits(index / 60 % 60) + ":" +
                  two_digits(index % 60) +
                  "Z\"\n  ownerReferences:\n  - apiVersion: apps/v1\n"
                  "    kind: ReplicaSet\n    name: " +
                  p.owner + "\n    uid: " + p.owner +
                  "\nspec:\n  priority: " + std::to_string(p.priority) + "\n";
  if (!node.empty()) y += "  nodeName: " + node + "\n";
  y += "  containers:\n  - name: app\n    resources:\n      requests:\n        cpu: " +
       std::to_string(p.cpu_m) + "m\n        memory: " + std::to_string(p.mem_mi) + "Mi\n";
  return y;
}

}  // namespace

std::string generate_instance_yaml(const InstanceConfig& c, uint64_t seed) {
  Rng rng = Rng::derive(seed, "optpack-generator-" + config_name(c));
  const int total = c.nodes * c.pods_per_node;
  std::vector<GenPod> pods;
  int64_t cpu = 0, mem = 0;
  for (int rs = 0; static_cast<int>(pods.size()) < total; ++rs) {
    const int replicas = static_cast<int>(rng.uniform_int(1, 4));
    GenPod p;
    p.owner = "rs-" + std::to_string(rs);
    p.cpu_m = rng.uniform_int(100, 1000);
    p.mem_mi = rng.uniform_int(100, 1000);
    p.priority = static_cast<int32_t>(rng.uniform_int(0, c.tiers - 1)) * 100;
    for (int r = 0; r < replicas && static_cast<int>(pods.size()) < total; ++r) {
      p.name = p.owner + "-" + std::to_string(r);
      pods.push_back(p);
      cpu += p.cpu_m;
      mem += p.mem_mi;
    }
  }
  const double denom = static_cast<double>(c.nodes) * c.usage_pct / 100.0;
  const int64_t node_cpu = static_cast<int64_t>(std::ceil(static_cast<double>(cpu) / denom));
  const int64_t node_mem = static_cast<int64_t>(std::ceil(static_cast<double>(mem) / denom));
  std::string y;
  for (int j = 0; j < c.nodes; ++j)
    y += "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: node-" + two_digits(j) +
         "\nstatus:\n  allocatable:\n    cpu: " + std::to_string(node_cpu) +
         "m\n    memory: " + std::to_string(node_mem) + "Mi\n    pods: \"110\"\n";
  for (size_t i = 0; i < pods.size(); ++i) y += pod_yaml(pods[i], static_cast<int>(i), "");
  return y;
}

BaselineRun run_baseline(const std::string& instance_yaml) {
  K8sObjects objects = parse_k8s_objects(instance_yaml, "instance");
  fw::SnapshotBackend backend(build_cluster(objects));
  auto profiles = plugins::default_profiles(/*deterministic=*/true);
  for (auto& p : profiles) p->post_filter.clear();  // preemption off
  fw::SchedulerOptions so;
  so.failure_messages = false;
  fw::Scheduler scheduler(backend, std::move(profiles), so);
  fw::schedule_snapshot(scheduler, backend);
  const ClusterState& st = backend.state();
  BaselineRun out;
  // Re-emit the instance with nodeName on the bound pods: nodes first, then pods in order.
  const std::string marker = "---\napiVersion: v1\nkind: Pod\n";
  const size_t first_pod = instance_yaml.find(marker);
  out.snapshot_yaml = instance_yaml.substr(0, first_pod);
  size_t at = first_pod;
  while (at != std::string::npos) {
    const size_t next = instance_yaml.find(marker, at + marker.size());
    std::string doc =
        instance_yaml.substr(at, next == std::string::npos ? std::string::npos : next - at);
    const size_t name_at = doc.find("  name: ") + 8;
    const std::string name = doc.substr(name_at, doc.find('\n', name_at) - name_at);
    const auto id = st.find_pod("default", name);
    ++out.pods;
    if (id && st.pod_node(*id) != kNoNode) {
      const size_t spec_at = doc.find("spec:\n") + 6;
      doc.insert(spec_at, "  nodeName: " + st.node(st.pod_node(*id)).name + "\n");
    } else {
      ++out.pending;
    }
    out.snapshot_yaml += doc;
    at = next;
  }
  return out;
}

InstanceOutcome evaluate_snapshot(const std::string& snapshot_yaml, const OptimizeOptions& o) {
  const ClusterState st = build_cluster(parse_k8s_objects(snapshot_yaml, "snapshot"));
  auto profiles = plugins::default_profiles(true);
  const SnapshotModel sm = build_model(st, *profiles.front());
  InstanceOutcome out;
  const Model& m = sm.model;
  bool pending = false;
  for (int p = 0; p < m.pods(); ++p) pending = pending || m.where[p] == kUnplaced;
  if (!pending) {
    out.category = Category::kNoCalls;
    return out;
  }
  const OptimizeResult r = optimize(m, o);
  out.solve_s = r.seconds;
  const bool better = r.improves_on_current();
  const bool proven = r.placement_proven();
  out.category = better   ? (proven ? Category::kBetterOptimal : Category::kBetter)
                 : proven ? Category::kBaselineOptimal
                          : Category::kFailure;
  const Assignment& after = better ? r.assignment : m.where;
  double cap_cpu = 0, cap_mem = 0, d_cpu = 0, d_mem = 0;
  for (int j = 0; j < m.nodes(); ++j) cap_cpu += m.capacity(j)[0], cap_mem += m.capacity(j)[1];
  for (int p = 0; p < m.pods(); ++p) {
    const int s = (after[p] != kUnplaced) - (m.where[p] != kUnplaced);
    d_cpu += s * static_cast<double>(m.request(p)[0]);
    d_mem += s * static_cast<double>(m.request(p)[1]);
    out.placed_before += m.where[p] != kUnplaced;
    out.placed_after += after[p] != kUnplaced;
  }
  out.delta_cpu_pct = cap_cpu > 0 ? 100.0 * d_cpu / cap_cpu : 0;
  out.delta_mem_pct = cap_mem > 0 ? 100.0 * d_mem / cap_mem : 0;
  return out;
}

}  // namespace orrery::optpack
