#include "policies/kubedsm/plan_builder.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace orrery::kubedsm {

std::vector<PlannedMove> sequence_moves(const EdgeModel& m, const Placement& p,
                                        std::span<const uint32_t> batch) {
  std::vector<PlannedMove> out;
  std::vector<Vec2> free(m.node_count());
  for (size_t n = 0; n < m.node_count(); ++n) free[n] = m.free(n);
  auto release = [&](int32_t node, const Vec2& r) {
    if (node != kCloud) free[static_cast<size_t>(node)] += r;
  };
  auto fits = [&](int32_t node, const Vec2& r) {
    return node == kCloud || r.fits_in(free[static_cast<size_t>(node)]);
  };
  auto take = [&](int32_t node, const Vec2& r) {
    if (node != kCloud) free[static_cast<size_t>(node)] -= r;
  };

  // Offloads first: the cloud always has room, and they free edge space.
  std::vector<Move> pending;
  for (const Move& mv : p.migrations) {
    if (mv.to == kCloud) {
      out.push_back({mv.pod, mv.from, kCloud, true});
      release(mv.from, m.request_of(mv.pod));
    } else {
      pending.push_back(mv);
    }
  }
  // Reorders whose target has room now, repeatedly; a cycle is broken by sending its first
  // migration to the cloud and finishing it from there at the end (two-step, §5.3).
  std::vector<Move> second;
  auto drain = [&](std::vector<Move>& list) {
    bool progress = true;
    while (progress && !list.empty()) {
      progress = false;
      for (size_t i = 0; i < list.size(); ++i) {
        const Move mv = list[i];
        const Vec2& r = m.request_of(mv.pod);
        if (!fits(mv.to, r)) continue;
        out.push_back({mv.pod, mv.from, mv.to, true});
        take(mv.to, r);
        release(mv.from, r);
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
        progress = true;
        break;
      }
    }
  };
  while (true) {
    drain(pending);
    if (pending.empty()) break;
    const Move mv = pending.front();
    pending.erase(pending.begin());
    out.push_back({mv.pod, mv.from, kCloud, true});
    release(mv.from, m.request_of(mv.pod));
    second.push_back({mv.pod, kCloud, mv.to});
  }
  drain(second);
  for (const Move& mv : second) out.push_back({mv.pod, kCloud, mv.to, true});  // no room: fails

  for (const Move& mv : p.edge) {
    const bool fresh = std::find(batch.begin(), batch.end(), mv.pod) != batch.end();
    out.push_back({mv.pod, mv.from, mv.to, !fresh});
  }
  return out;
}

namespace {

// The node a planned move goes to: its edge node, or o.cloud_node's pick (kNoNode: none).
NodeId move_target(const ClusterView& v, const PlanOptions& o, const PlannedMove& mv) {
  return mv.to == kCloud ? o.cloud_node(v.pod_ids[mv.pod])
                         : v.edge_nodes[static_cast<size_t>(mv.to)];
}

// Batch pods for the cloud: independent one-step plans (Alg. 7 lines 4–7, 15–17).
void plan_cloud_binds(const ClusterView& v, const ClusterState& s, const Placement& p,
                      const PlanOptions& o, BuiltPlans& out) {
  auto is_batch = [&](uint32_t pod) {
    return std::find(v.batch.begin(), v.batch.end(), pod) != v.batch.end();
  };
  for (uint32_t pod : p.cloud) {
    if (!is_batch(pod)) continue;  // an existing cloud pod suggest() left where it is
    const PodId id = v.pod_ids[pod];
    const NodeId node = o.cloud_node(id);
    if (node == kNoNode) {  // stays pending; retried when room frees up
      out.parked.push_back(pod);
      continue;
    }
    ++out.cloud_binds;
    fw::Plan plan(
        fmt::format("kubedsm: bind {} to cloud node {}", s.pod(id).key(), s.node(node).name));
    plan.bind(fw::PodRef::of(s, id), node).step_timeout_us(o.step_timeout_us);
    out.plans.push_back(std::move(plan));
    out.migrations.push_back(0);
  }
}

// Moves without migrations: one independent bind plan each.
void plan_edge_binds(const ClusterView& v, const ClusterState& s, const PlanOptions& o,
                     const std::vector<PlannedMove>& moves, BuiltPlans& out) {
  for (const PlannedMove& mv : moves) {
    const PodId id = v.pod_ids[mv.pod];
    const NodeId node = move_target(v, o, mv);
    ++out.edge_binds;
    fw::Plan plan(
        fmt::format("kubedsm: bind {} to edge node {}", s.pod(id).key(), s.node(node).name));
    plan.bind(fw::PodRef::of(s, id), node).step_timeout_us(o.step_timeout_us);
    out.plans.push_back(std::move(plan));
    out.migrations.push_back(0);
  }
}

// Adds the steps replacing `pod` (now `cur`) by a pod on `node` in o.style; returns the new pod.
fw::PodRef plan_migration(fw::Plan& plan, const PlanOptions& o, const Pod& pod,
                          const fw::PodRef& cur, NodeId node, const std::string& why) {
  if (o.style == MigrationStyle::kDeleteFirst) {
    plan.remove(cur, why);
    const Resources& req = pod.spec->nonzero_request;
    const fw::PodRef repl = plan.wait_for_create(pod.ns, pod.owner, req);
    plan.bind(repl, node);
    if (o.wait_running) plan.wait_for_running(repl);
    return repl;
  }
  Pod copy = pod;
  copy.name = o.replacement_name ? o.replacement_name(pod) : pod.name + "-m";
  copy.uid.clear();
  copy.node_name.clear();
  copy.phase = PodPhase::kPending;
  auto spec = std::make_shared<PodSpec>(*pod.spec);
  spec->annotations.set("orrery.io/migrated-from", pod.key());
  copy.spec = std::move(spec);
  const fw::PodRef repl = plan.create(std::move(copy));
  plan.bind(repl, node).wait_for_running(repl).remove(cur, why);
  return repl;
}

// The edge plan: migrations in order, then the edge binds (Alg. 7 lines 8–14, 18).
void plan_edge_sequence(const ClusterView& v, const ClusterState& s, const PlanOptions& o,
                        const std::vector<PlannedMove>& moves, BuiltPlans& out) {
  const EdgeModel& m = v.model;
  fw::Plan plan("kubedsm: edge plan");
  plan.step_timeout_us(o.step_timeout_us);
  std::map<uint32_t, fw::PodRef> ref;  // model pod → its current incarnation
  int migrations = 0;
  std::string summary;
  for (const PlannedMove& mv : moves) {
    const PodId id = v.pod_ids[mv.pod];
    const Pod& pod = s.pod(id);
    const NodeId node = move_target(v, o, mv);
    if (node == kNoNode) break;  // no cloud room: the rest of the plan cannot follow
    auto it = ref.find(mv.pod);
    const fw::PodRef cur = it != ref.end() ? it->second : fw::PodRef::of(s, id);
    if (!summary.empty()) summary += ", ";
    summary += fmt::format("{} {}→{}", pod.name,
                           mv.from == kCloud ? "cloud" : m.node_names[mv.from], s.node(node).name);
    if (!mv.migration) {
      plan.bind(cur, node);
      ++out.edge_binds;
      continue;
    }
    ++migrations;
    const std::string why =
        fmt::format("{}: kubedsm moves it to {}", fw::kMigrationReason, s.node(node).name);
    ref[mv.pod] = plan_migration(plan, o, pod, cur, node, why);
  }
  if (plan.empty()) return;
  plan.set_name(fmt::format("kubedsm: {}", summary));
  out.plans.push_back(std::move(plan));
  out.migrations.push_back(migrations);
}

}  // namespace

BuiltPlans build_plans(const ClusterView& v, const ClusterState& s, const Placement& p,
                       const PlanOptions& o) {
  BuiltPlans out;
  plan_cloud_binds(v, s, p, o, out);

  const std::vector<PlannedMove> moves = sequence_moves(v.model, p, v.batch);
  if (moves.empty()) return out;
  const bool sequential =
      std::any_of(moves.begin(), moves.end(), [](const PlannedMove& mv) { return mv.migration; });
  if (!sequential)
    plan_edge_binds(v, s, o, moves, out);
  else
    plan_edge_sequence(v, s, o, moves, out);
  return out;
}

}  // namespace orrery::kubedsm
