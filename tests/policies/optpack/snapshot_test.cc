// From Kubernetes objects to the packer's model and plan: feasibility through the kube-default
// filters, protected pods, skipped pods with reasons, and the plan's dependency order.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "framework/backend.h"
#include "framework/config.h"
#include "io/k8s_objects.h"
#include "plugins/register.h"
#include "policies/optpack/optimizer.h"
#include "policies/optpack/plan.h"
#include "policies/optpack/snapshot.h"

namespace orrery::optpack {
namespace {

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

std::string node_yaml(const std::string& name, const std::string& mem,
                      const std::string& extra = "") {
  return "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: " + name + "\n" + extra +
         "status:\n  allocatable:\n    cpu: \"4\"\n    memory: " + mem + "\n    pods: \"110\"\n";
}

std::string pod_yaml(const std::string& name, const std::string& mem, const std::string& node,
                     const std::string& meta = "", const std::string& spec = "") {
  std::string y = "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
                  "\n  namespace: default\n" + meta + "spec:\n";
  if (!node.empty()) y += "  nodeName: " + node + "\n";
  y += spec;
  y += "  containers:\n  - name: c\n    resources:\n      requests:\n        cpu: 100m\n"
       "        memory: " +
       mem + "\n";
  return y;
}

struct Built {
  ClusterState state;
  std::vector<std::unique_ptr<fw::Profile>> profiles;
  SnapshotModel sm;
};

Built build(const std::string& yaml) {
  Built b{build_cluster(parse_k8s_objects(yaml, "snap.yaml")), {}, {}};
  fw::PluginRegistry reg;
  plugins::register_default_plugins(reg);
  b.profiles = plugins::build_profiles(fw::default_scheduler_config(), reg);
  b.sm = build_model(b.state, *b.profiles.front());
  return b;
}

const SkippedPod* skipped(const SnapshotModel& sm, const std::string& pod) {
  for (const auto& s : sm.skipped)
    if (s.pod == pod) return &s;
  return nullptr;
}

TEST(OptpackSnapshot, FigureOneFromYamlIsOneMoveAndAPlanInDependencyOrder) {
  const Built b = build(node_yaml("node-1", "4Gi") + node_yaml("node-2", "4Gi") +
                        pod_yaml("pod-1", "2Gi", "node-1") + pod_yaml("pod-2", "2Gi", "node-2") +
                        pod_yaml("pod-3", "3Gi", ""));
  ASSERT_EQ(b.sm.model.pods(), 3);
  OptimizeOptions o;
  o.deterministic = true;
  const OptimizeResult r = optimize(b.sm.model, o);
  const Changes ch = describe_changes(b.sm, r.assignment);
  EXPECT_EQ(ch.moves, 1);
  EXPECT_EQ(ch.evictions, 0);
  EXPECT_EQ(ch.new_binds, 1);
  ASSERT_EQ(ch.steps.size(), 4u);  // evict, create (re-create the bare pod), bind, bind
  EXPECT_EQ(ch.steps[0].action, "evict");
  EXPECT_EQ(ch.steps[1].action, "create");
  const fw::Plan plan = build_plan(b.state, b.sm, r.assignment);
  ASSERT_EQ(plan.steps().size(), 4u);
  EXPECT_EQ(plan.steps()[0].kind, fw::StepKind::kDelete);
  EXPECT_TRUE(plan.steps()[0].after.empty());
  EXPECT_EQ(plan.steps()[1].kind, fw::StepKind::kCreate);
  EXPECT_EQ(plan.steps()[1].after, std::vector<size_t>{0});
  for (size_t i = 2; i < 4; ++i) {
    EXPECT_EQ(plan.steps()[i].kind, fw::StepKind::kBind);
    EXPECT_NE(std::find(plan.steps()[i].after.begin(), plan.steps()[i].after.end(), 0u),
              plan.steps()[i].after.end());
  }
}

// The plan carried out on a static snapshot: the bare pod is deleted and re-created on its new
// node, then the pending pod is bound; every node stays within its capacity.
TEST(OptpackSnapshot, FigureOnePlanRunsOnASnapshotBackend) {
  Built b = build(node_yaml("node-1", "4Gi") + node_yaml("node-2", "4Gi") +
                  pod_yaml("pod-1", "2Gi", "node-1") + pod_yaml("pod-2", "2Gi", "node-2") +
                  pod_yaml("pod-3", "3Gi", ""));
  OptimizeOptions o;
  o.deterministic = true;
  const OptimizeResult r = optimize(b.sm.model, o);
  fw::Plan plan = build_plan(b.state, b.sm, r.assignment);
  fw::SnapshotBackend backend(std::move(b.state));
  fw::PlanExecutor ex(backend);
  backend.add_listener(&ex);
  std::vector<fw::PlanReport> done;
  ex.set_on_done([&](const fw::PlanReport& rep) { done.push_back(rep); });
  ex.submit(std::move(plan));
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, fw::PlanStatus::kCompleted) << done[0].reason;
  const ClusterState& st = backend.state();
  int bound = 0;
  for (PodId p : st.pods()) bound += st.pod_node(p) != kNoNode;
  EXPECT_EQ(bound, 3);
  for (NodeId n : st.nodes()) EXPECT_TRUE(st.requested_of(n).fits_in(st.allocatable_of(n)));
  ASSERT_EQ(backend.deletions().size(), 1u);
  EXPECT_NE(backend.deletions()[0].reason.find("optpack: moved to"), std::string::npos);
}

// A refused eviction (e.g. a PodDisruptionBudget's 429) contradicts the plan: the rest is
// cancelled, nothing is bound over capacity, the pending pod stays pending for the queue.
TEST(OptpackSnapshot, ARefusedEvictionCancelsThePlanAndLeavesThePendingPodToTheQueue) {
  Built b = build(node_yaml("node-1", "4Gi") + node_yaml("node-2", "4Gi") +
                  pod_yaml("pod-1", "2Gi", "node-1") + pod_yaml("pod-2", "2Gi", "node-2") +
                  pod_yaml("pod-3", "3Gi", ""));
  const OptimizeResult r = optimize(b.sm.model, OptimizeOptions{});
  fw::Plan plan = build_plan(b.state, b.sm, r.assignment);
  fw::SnapshotBackend backend(std::move(b.state));
  fw::Refusals refuse;
  refuse.remove = [](const ClusterState&, PodId) { return std::string("429: disruption budget"); };
  backend.set_refusals(refuse);
  fw::PlanExecutor ex(backend);
  backend.add_listener(&ex);
  std::vector<fw::PlanReport> done;
  ex.set_on_done([&](const fw::PlanReport& rep) { done.push_back(rep); });
  ex.submit(std::move(plan));
  ASSERT_FALSE(done.empty());
  EXPECT_EQ(done[0].status, fw::PlanStatus::kCancelled);
  const ClusterState& st = backend.state();
  const auto p3 = st.find_pod("default", "pod-3");
  ASSERT_TRUE(p3.has_value());
  EXPECT_EQ(st.pod_node(*p3), kNoNode);
  for (NodeId n : st.nodes()) EXPECT_TRUE(st.requested_of(n).fits_in(st.allocatable_of(n)));
}

TEST(OptpackSnapshot, ProtectedPodsAreNeverInTheModelAndKeepTheirRoom) {
  // Figure 1 again, but both 2 GiB pods are protected (annotation, DaemonSet): no move possible,
  // and the current placement is proven optimal.
  const Built b = build(node_yaml("node-1", "4Gi") + node_yaml("node-2", "4Gi") +
                        pod_yaml("pod-1", "2Gi", "node-1",
                                 "  annotations:\n    orrery.io/optpack-protected: \"true\"\n") +
                        pod_yaml("pod-2", "2Gi", "node-2",
                                 "  ownerReferences:\n  - kind: DaemonSet\n    name: ds\n    "
                                 "apiVersion: apps/v1\n    uid: u\n") +
                        pod_yaml("crit", "1Gi", "node-2", "", "  priority: 2000000000\n") +
                        pod_yaml("pod-3", "3Gi", ""));
  ASSERT_NE(skipped(b.sm, "default/pod-1"), nullptr);
  ASSERT_NE(skipped(b.sm, "default/pod-2"), nullptr);
  ASSERT_NE(skipped(b.sm, "default/crit"), nullptr);
  EXPECT_NE(skipped(b.sm, "default/pod-1")->reason.find("protected"), std::string::npos);
  EXPECT_NE(skipped(b.sm, "default/pod-2")->reason.find("DaemonSet"), std::string::npos);
  // pod-3 is larger than what the protected pods leave anywhere: it stays pending.
  const OptimizeResult r = optimize(b.sm.model, OptimizeOptions{});
  const Changes ch = describe_changes(b.sm, r.assignment);
  for (const PlanStep& s : ch.steps) {
    EXPECT_NE(s.pod, "default/pod-1");
    EXPECT_NE(s.pod, "default/pod-2");
    EXPECT_NE(s.pod, "default/crit");
  }
  EXPECT_EQ(ch.moves + ch.evictions + ch.new_binds, 0);
  EXPECT_TRUE(r.placement_proven());
}

TEST(OptpackSnapshot, FeasibleNodesFollowSelectorsTaintsAndUnschedulableNodes) {
  const Built b = build(
      node_yaml("a", "4Gi", "  labels:\n    disk: ssd\n") + node_yaml("b", "4Gi", "") +
      replaced(node_yaml("c", "4Gi"), "metadata:\n  name: c\n",
               "metadata:\n  name: c\nspec:\n  taints:\n  - key: gpu\n    effect: NoSchedule\n") +
      replaced(node_yaml("d", "4Gi"), "metadata:\n  name: d\n",
               "metadata:\n  name: d\nspec:\n  unschedulable: true\n") +
      pod_yaml("wants-ssd", "1Gi", "", "", "  nodeSelector:\n    disk: ssd\n") +
      pod_yaml("plain", "1Gi", ""));
  const Model& m = b.sm.model;
  ASSERT_EQ(m.nodes(), 4);
  auto idx = [&](const std::string& pod) {
    for (int p = 0; p < m.pods(); ++p)
      if (m.pod_names[p] == pod) return p;
    return -1;
  };
  const int ssd = idx("default/wants-ssd"), plain = idx("default/plain");
  ASSERT_GE(ssd, 0);
  ASSERT_GE(plain, 0);
  EXPECT_TRUE(m.can_host(ssd, 0));
  EXPECT_FALSE(m.can_host(ssd, 1));
  EXPECT_TRUE(m.can_host(plain, 1));
  EXPECT_FALSE(m.can_host(plain, 2));  // untolerated taint
  EXPECT_FALSE(m.can_host(plain, 3));  // unschedulable
}

TEST(OptpackSnapshot, BadInputIsSkippedWithAReasonOrRejected) {
  // A pod larger than any node, a zero-capacity node: skipped / warned, never placed.
  const Built b =
      build(node_yaml("n1", "4Gi") + replaced(node_yaml("empty", "0"), "cpu: \"4\"", "cpu: \"0\"") +
            pod_yaml("huge", "64Gi", "") + pod_yaml("ok", "1Gi", ""));
  ASSERT_NE(skipped(b.sm, "default/huge"), nullptr);
  EXPECT_NE(skipped(b.sm, "default/huge")->reason.find("larger than every node"),
            std::string::npos);
  ASSERT_FALSE(b.sm.warnings.empty());
  EXPECT_NE(b.sm.warnings.front().find("empty"), std::string::npos);
  // Duplicate names and unknown PriorityClasses are input errors of the loader.
  EXPECT_THROW(build(node_yaml("n1", "4Gi") + pod_yaml("p", "1Gi", "") + pod_yaml("p", "1Gi", "")),
               InputError);
  EXPECT_THROW(
      build(node_yaml("n1", "4Gi") + pod_yaml("p", "1Gi", "", "", "  priorityClassName: nope\n")),
      InputError);
  EXPECT_THROW(build(node_yaml("n1", "4Gi") + pod_yaml("p", "-1Gi", "")), InputError);
}

TEST(OptpackSnapshot, PriorityClassNamesMakeTiersMostImportantFirst) {
  const std::string classes =
      "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: high\nvalue: "
      "1000\n"
      "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: low\nvalue: "
      "10\n";
  const Built b = build(classes + node_yaml("n1", "4Gi") +
                        pod_yaml("lo", "3Gi", "n1", "", "  priorityClassName: low\n") +
                        pod_yaml("hi", "3Gi", "", "", "  priorityClassName: high\n"));
  const Model& m = b.sm.model;
  ASSERT_EQ(m.tier_priority, (std::vector<int32_t>{1000, 10}));
  const OptimizeResult r = optimize(m, OptimizeOptions{});
  // The high-priority pod takes the node; the low one is evicted.
  const Changes ch = describe_changes(b.sm, r.assignment);
  EXPECT_EQ(ch.evictions, 1);
  EXPECT_EQ(r.tiers[0].placed_after, 1);
  EXPECT_EQ(r.tiers[1].placed_after, 0);
}

}  // namespace
}  // namespace orrery::optpack
