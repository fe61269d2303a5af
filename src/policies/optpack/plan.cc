#include "policies/optpack/plan.h"

namespace orrery::optpack {

Changes describe_changes(const SnapshotModel& sm, const Assignment& a) {
  const Model& m = sm.model;
  Changes c;
  auto node = [&](int j) { return j == kUnplaced ? std::string() : m.node_names[j]; };
  for (int p = 0; p < m.pods(); ++p)
    c.placements.push_back({m.pod_names[p], node(m.where[p]), node(a[p])});
  // Evictions first, then re-creations, then binds.
  for (int p = 0; p < m.pods(); ++p)
    if (m.where[p] != kUnplaced && a[p] != m.where[p]) {
      c.steps.push_back({"evict", m.pod_names[p], node(m.where[p])});
      if (a[p] == kUnplaced)
        ++c.evictions;
      else
        ++c.moves;
    }
  for (int p = 0; p < m.pods(); ++p)
    if (m.where[p] != kUnplaced && a[p] != kUnplaced && a[p] != m.where[p])
      c.steps.push_back({"create", m.pod_names[p], node(a[p])});
  for (int p = 0; p < m.pods(); ++p)
    if (a[p] != kUnplaced && a[p] != m.where[p]) {
      c.steps.push_back({"bind", m.pod_names[p], node(a[p])});
      if (m.where[p] == kUnplaced) ++c.new_binds;
    }
  return c;
}

fw::Plan build_plan(const ClusterState& st, const SnapshotModel& sm, const Assignment& a,
                    const std::string& name) {
  const Model& m = sm.model;
  fw::Plan plan(name);
  std::vector<size_t> evictions;
  std::vector<std::pair<int, size_t>> evicted;  // model pod → its delete step
  for (int p = 0; p < m.pods(); ++p) {
    if (m.where[p] == kUnplaced || a[p] == m.where[p]) continue;
    const PodId id = sm.pod_ids[p];
    plan.remove(fw::PodRef::of(st, id),
                a[p] == kUnplaced ? "optpack: evicted to place more pods of its priority or higher"
                                  : "optpack: moved to " + m.node_names[a[p]]);
    plan.depends_on({});
    evictions.push_back(plan.last());
    evicted.push_back({p, plan.last()});
  }
  std::vector<std::pair<int, fw::PodRef>> binds;  // model pod → what to bind
  for (auto [p, del] : evicted) {
    if (a[p] == kUnplaced) continue;
    const Pod& pod = st.pod(sm.pod_ids[p]);
    fw::PodRef ref;
    const OwnerKind k = pod.owner.kind;
    if (k == OwnerKind::kReplicaSet || k == OwnerKind::kDeployment || k == OwnerKind::kJob) {
      ref = plan.wait_for_create(pod.ns, pod.owner, pod.spec->request);
    } else {
      Pod copy = pod;
      copy.node_name.clear();
      copy.phase = PodPhase::kPending;
      copy.terminating = false;
      ref = plan.create(std::move(copy));
    }
    plan.depends_on({del});
    binds.push_back({p, ref});
  }
  for (int p = 0; p < m.pods(); ++p)
    if (m.where[p] == kUnplaced && a[p] != kUnplaced)
      binds.push_back({p, fw::PodRef::of(st, sm.pod_ids[p])});
  for (auto& [p, ref] : binds) {
    plan.bind(ref, sm.node_ids[a[p]]);
    std::vector<size_t> after = evictions;
    if (ref.is_slot()) {
      // Also after the step that produced the pod.
      for (size_t i = 0; i < plan.steps().size(); ++i)
        if ((plan.steps()[i].kind == fw::StepKind::kCreate ||
             plan.steps()[i].kind == fw::StepKind::kWaitForCreate) &&
            plan.steps()[i].slot == ref.slot)
          after.push_back(i);
    }
    plan.depends_on(after);
  }
  return plan;
}

}  // namespace orrery::optpack
