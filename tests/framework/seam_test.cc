// The seam's extension points and shared reservations: PreEnqueue (SchedulingGates), Mutate,
// plan reservations respected by the scheduler, dependency-graph plans.
#include <gtest/gtest.h>

#include "builders.h"

#include "framework/plan.h"
#include "framework/scheduler.h"
#include "io/k8s_objects.h"
#include "plugins/register.h"
#include "queued_backend.h"
#include "test_plugins.h"

namespace orrery::fw {
namespace {

using testing::CpuFit;
using testing::QueuedBackend;

using testing::node;
using testing::pod;

std::vector<std::unique_ptr<Profile>> default_profiles() {
  PluginRegistry reg;
  plugins::register_default_plugins(reg);
  auto profiles = plugins::build_profiles(default_scheduler_config(), reg);
  for (auto& p : profiles) p->deterministic_ties = true;
  return profiles;
}

TEST(PreEnqueue, SchedulingGatesKeepAPodOutOfTheQueueUntilAnUpdateRemovesThem) {
  ClusterState st;
  st.add_node(node("n0", 4000));
  Pod gated = pod("gated", 500);
  gated.scheduling_gates = {"example.com/quota", "example.com/review"};
  const PodId id = st.add_pod(gated);
  SnapshotBackend be(std::move(st));
  Scheduler s(be, default_profiles());
  s.enqueue_pending();
  EXPECT_TRUE(s.run_until_idle().empty()) << "a gated pod is never attempted";
  const uint64_t serial = be.state().pod_serial(id);
  ASSERT_NE(s.gated(serial), nullptr);
  EXPECT_EQ(
      *s.gated(serial),
      "SchedulingGates: waiting for scheduling gates: [example.com/quota example.com/review]");

  PodUpdate u;
  u.scheduling_gates = std::vector<std::string>{"example.com/review"};
  be.update_pod(id, u);
  EXPECT_TRUE(s.run_until_idle().empty());
  EXPECT_EQ(*s.gated(serial),
            "SchedulingGates: waiting for scheduling gates: [example.com/review]");

  u.scheduling_gates = std::vector<std::string>{};
  be.update_pod(id, u);
  EXPECT_EQ(s.gated(serial), nullptr);
  const auto outs = s.run_until_idle();
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_TRUE(outs[0].scheduled);
}

TEST(PreEnqueue, TheGatesAreReadFromTheManifest) {
  // spec.schedulingGates as kubectl prints it.
  const std::string yaml = R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  schedulingGates: [{name: example.com/foo}]
  containers: [{name: c, image: nginx}]
)";
  auto objs = parse_k8s_objects(yaml, "pod.yaml");
  ASSERT_EQ(objs.pods.size(), 1u);
  EXPECT_EQ(objs.pods[0].scheduling_gates, std::vector<std::string>{"example.com/foo"});
}

// A Mutate plugin that halves the pod's cpu request on the chosen node.
class HalveCpu : public Plugin {
 public:
  std::string_view name() const override { return "HalveCpu"; }
  uint32_t extension_points() const override { return kMutate; }
  std::optional<PodUpdate> mutate(const CycleContext& cycle, NodeId) override {
    const int64_t half = cycle.spec.request[kCpu] / 2;
    PodUpdate u;
    u.spec = [half](PodSpec& s) {
      s.containers.at(0).requests[kCpu] = half;
      s.annotations.set("example.com/mutated", "yes");
    };
    return u;
  }
};

// A PreBind plugin that records the cpu request of the spec its cycle shows.
class SeeSpec : public Plugin {
 public:
  explicit SeeSpec(int64_t* seen) : seen_(seen) {}
  std::string_view name() const override { return "SeeSpec"; }
  uint32_t extension_points() const override { return kPreBind; }
  Status pre_bind(const CycleContext& cycle, NodeId) override {
    *seen_ = cycle.spec.request[kCpu];
    return Status::ok();
  }

 private:
  int64_t* seen_;
};

std::vector<std::unique_ptr<Profile>> halving_profiles(int64_t* prebind_saw = nullptr) {
  auto prof = std::make_unique<Profile>();
  prof->deterministic_ties = true;
  prof->add(std::make_unique<CpuFit>(), kFilter | kScore, 1);
  prof->add(std::make_unique<HalveCpu>(), kMutate);
  if (prebind_saw) prof->add(std::make_unique<SeeSpec>(prebind_saw), kPreBind);
  std::vector<std::unique_ptr<Profile>> profiles;
  profiles.push_back(std::move(prof));
  return profiles;
}

TEST(Mutate, TheChangeIsMadeBeforeTheBindAndCountedOnTheNode) {
  ClusterState st;
  const NodeId n0 = st.add_node(node("n0", 4000));
  const PodId id = st.add_pod(pod("p", 1000));
  SnapshotBackend be(std::move(st));
  int64_t prebind_saw = 0;
  Scheduler s(be, halving_profiles(&prebind_saw));
  s.enqueue_pending();
  const auto outs = s.run_until_idle();
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_TRUE(outs[0].scheduled);
  EXPECT_EQ(s.mutations(), 1u);
  EXPECT_EQ(prebind_saw, 500) << "PreBind sees the mutated pod";
  EXPECT_EQ(be.state().pod(id).spec->request[kCpu], 500);
  EXPECT_EQ(be.state().pod(id).spec->annotations.get(std::string_view("example.com/mutated")),
            "yes");
  EXPECT_EQ(be.state().requested(kCpu)[n0], 500);
}

// A world that can only re-create pods to change them (as an API server for requests).
class RecreatingBackend : public SnapshotBackend {
 public:
  using SnapshotBackend::SnapshotBackend;
  bool update_pod(PodId, const PodUpdate&) override { return false; }
};

TEST(Mutate, WhenTheWorldRecreatesThePodTheCycleBindsNothingAndUndoesItsAssumption) {
  ClusterState st;
  const NodeId n0 = st.add_node(node("n0", 4000));
  st.add_pod(pod("p", 1000));
  RecreatingBackend be(std::move(st));
  Scheduler s(be, halving_profiles());
  s.enqueue_pending();
  const auto outs = s.run_until_idle();
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_FALSE(outs[0].scheduled);
  EXPECT_EQ(outs[0].message, "HalveCpu: the pod is re-created with the change");
  EXPECT_EQ(be.state().requested(kCpu)[n0], 0);
}

TEST(Reservations, RoomHeldForAPlanIsNotTakenByTheScheduler) {
  ClusterState st;
  const NodeId n0 = st.add_node(node("n0", 4000));
  const NodeId n1 = st.add_node(node("n1", 2000));
  SnapshotBackend be(std::move(st));
  Reservations shared;
  // A plan will create a 3-core pod on n0 (its earlier steps free the room).
  Reservation r;
  r.kind = ReservationKind::kPlan;
  r.node = n0;
  Resources three;
  three[kCpu] = 3000;
  r.spec = make_simple_spec(three);
  const ReservationId held = shared.add(r);

  Scheduler s(be, default_profiles(), {}, &shared);
  be.create_pod(pod("greedy", 1500));  // LeastAllocated would pick n0 (4 cores) without the hold
  auto outs = s.run_until_idle();
  ASSERT_EQ(outs.size(), 1u);
  ASSERT_TRUE(outs[0].scheduled) << outs[0].message;
  EXPECT_EQ(outs[0].node, n1);
  EXPECT_EQ(be.state().requested(kCpu)[n0], 0) << "the hold is counted only while filtering";

  shared.remove(held);
  be.create_pod(pod("later", 1500));
  outs = s.run_until_idle();
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].node, n0);
}

TEST(Reservations, NominationsBlockOnlyPodsOfLowerOrEqualPriority) {
  ClusterState st;
  const NodeId n0 = st.add_node(node("n0", 1000));
  Pod waiting = pod("waiting", 800);
  const PodId w = st.add_pod(waiting);
  Reservations res;
  res.nominate(st.pod_serial(w), w, n0, 100);
  Reservations::Applied applied;
  res.apply(st, /*serial=*/999, /*priority=*/100, kNoNode, &applied);
  EXPECT_EQ(st.requested(kCpu)[n0], 800) << "visible to a pod of equal priority";
  Reservations::release(st, applied);
  EXPECT_EQ(st.requested(kCpu)[n0], 0);
  applied = {};
  res.apply(st, 999, 101, kNoNode, &applied);
  EXPECT_EQ(st.requested(kCpu)[n0], 0) << "invisible to a pod of higher priority";
  applied = {};
  res.apply(st, st.pod_serial(w), 100, kNoNode, &applied);
  EXPECT_EQ(st.requested(kCpu)[n0], 0) << "a pod never sees its own nomination";
  res.forget_node(n0);
  EXPECT_EQ(res.nominated_node(st.pod_serial(w)), kNoNode);
}

TEST(PlanGraph, IndependentStepsRunConcurrentlyAndAJoinWaitsForAll) {
  ClusterState st;
  const NodeId n0 = st.add_node(node("n0", 4000));
  Pod a = pod("victim-a", 1000), b = pod("victim-b", 1000);
  a.node_name = b.node_name = "n0";
  const PodId va = st.add_pod(a), vb = st.add_pod(b);
  const PodId big = st.add_pod(pod("big", 4000));
  QueuedBackend be(std::move(st));
  Reservations shared;
  PlanExecutor ex(be, &shared);
  be.add_listener(&ex);
  Plan p("cross-node preemption");
  p.remove(PodRef::of(be.state(), va), "preempted").depends_on({});
  p.remove(PodRef::of(be.state(), vb), "preempted").depends_on({});
  p.bind(PodRef::of(be.state(), big), n0).depends_on({0, 1});
  ex.submit(std::move(p));
  EXPECT_EQ(be.deletes, 2) << "both evictions start at once";
  EXPECT_EQ(ex.started_steps(), 2u);
  EXPECT_EQ(shared.size(), 1u) << "the bind's room is reserved while the evictions run";
  EXPECT_EQ(be.binds, 0);
  be.deliver();  // both PodDeleted: the join starts
  EXPECT_EQ(be.binds, 1);
  EXPECT_EQ(shared.size(), 0u) << "the assumption counts the pod once its bind starts";
  be.deliver();
  EXPECT_EQ(ex.completed(), 1u);
  EXPECT_EQ(be.state().pod_node(big), n0);
  be.remove_listener(&ex);
}

TEST(PlanGraph, ARefusedEvictionCancelsThePlanAndReleasesItsReservations) {
  ClusterState st;
  const NodeId n0 = st.add_node(node("n0", 2000));
  Pod a = pod("victim", 2000);
  a.node_name = "n0";
  const PodId v = st.add_pod(a);
  const PodId want = st.add_pod(pod("want", 2000));
  SnapshotBackend be(std::move(st));
  be.set_refusals({nullptr, [](const ClusterState&, PodId) { return std::string("PDB"); }});
  Reservations shared;
  PlanExecutor ex(be, &shared);
  be.add_listener(&ex);
  std::string why;
  ex.set_on_done([&](const PlanReport& r) { why = r.reason; });
  Plan p("evict then bind");
  p.remove(PodRef::of(be.state(), v), "preempted").bind(PodRef::of(be.state(), want), n0);
  ex.submit(std::move(p));
  EXPECT_EQ(ex.cancelled(), 1u);
  EXPECT_EQ(why, "PodDeleteFailed while waiting to delete default/victim (step 1/2)");
  EXPECT_TRUE(shared.empty());
  be.remove_listener(&ex);
}

}  // namespace
}  // namespace orrery::fw
