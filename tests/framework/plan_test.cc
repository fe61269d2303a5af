#include "framework/plan.h"

#include <gtest/gtest.h>

#include "queued_backend.h"

namespace orrery::fw {
namespace {

Node node(const std::string& name, int64_t cpu_m, const std::string& tier = "edge") {
  Node n;
  n.name = name;
  n.allocatable[kCpu] = cpu_m;
  n.allocatable[kMemory] = 8LL << 30;
  n.allocatable[kPods] = 110;
  n.labels.set("orrery.io/tier", tier);
  n.derive_orrery_fields(name);
  return n;
}

Pod pod(const std::string& name, int64_t cpu_m, const std::string& owner = "") {
  Resources r;
  r[kCpu] = cpu_m;
  r[kMemory] = 1LL << 30;
  Pod p;
  p.name = name;
  p.spec = make_simple_spec(r);
  if (!owner.empty()) p.owner = {OwnerKind::kReplicaSet, owner};
  return p;
}

using testing::QueuedBackend;

struct Cluster {
  ClusterState s;
  NodeId e1, e2, cloud;
  Cluster() {
    e1 = s.add_node(node("edge-1", 2000));
    e2 = s.add_node(node("edge-2", 2000));
    cloud = s.add_node(node("cloud", 64000, "cloud"));
  }
};

NodeId first_cloud_node(const ClusterState& s, PodId) {
  for (NodeId n : s.nodes())
    if (s.node(n).tier == Tier::kCloud) return n;
  return kNoNode;
}

TEST(Plan, BindStepsCompleteOnASnapshot) {
  Cluster c;
  const PodId a = c.s.add_pod(pod("a", 1000));
  const PodId b = c.s.add_pod(pod("b", 1000));
  SnapshotBackend backend(std::move(c.s));
  PlanExecutor ex(backend);
  backend.add_listener(&ex);
  std::vector<PlanReport> done;
  ex.set_on_done([&](const PlanReport& r) { done.push_back(r); });
  Plan p("two binds");
  p.bind(PodRef::of(backend.state(), a), c.e1).bind(PodRef::of(backend.state(), b), c.e2);
  ex.submit(std::move(p));
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, PlanStatus::kCompleted);
  EXPECT_EQ(done[0].steps_done, 2u);
  EXPECT_EQ(backend.state().pod_node(a), c.e1);
  EXPECT_EQ(backend.state().pod_node(b), c.e2);
  EXPECT_EQ(ex.active(), 0u);
}

TEST(Plan, CreateThenBindIsVerifiedReentrantlyOnASnapshot) {
  Cluster c;
  SnapshotBackend backend(std::move(c.s));
  PlanExecutor ex(backend);
  backend.add_listener(&ex);
  Plan p("create and bind");
  const PodRef made = p.create(pod("new", 500));
  p.bind(made, c.e2);
  ex.submit(std::move(p));
  EXPECT_EQ(ex.completed(), 1u);
  const auto id = backend.state().find_pod("default", "new");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(backend.state().pod_node(*id), c.e2);
}

// A migration as KubeDSM runs it: create the replacement, bind it, wait until it runs, delete the
// old pod. Each action starts only after the previous step's event arrived.
TEST(Plan, MigrationStepsRunInOrderAndWaitForTheirEvents) {
  Cluster c;
  const PodId old = c.s.add_pod(pod("web-1", 1000, "web"));
  c.s.assign(old, c.e1);
  QueuedBackend backend(std::move(c.s));
  PlanExecutor ex(backend);
  backend.add_listener(&ex);
  Plan p("migrate web-1 edge-1 -> edge-2");
  const PodRef repl = p.create(pod("web-1-m", 1000, "web"));
  p.bind(repl, c.e2).wait_for_running(repl).remove(PodRef::of(backend.state(), old), "migrated");
  const uint64_t id = ex.submit(std::move(p));

  EXPECT_EQ(backend.binds, 0);  // waiting for PodAdded
  backend.deliver();            // PodAdded → bind issued
  EXPECT_EQ(backend.binds, 1);
  backend.deliver();  // PodBound → waiting for PodRunning
  const PodId r = *backend.state().find_pod("default", "web-1-m");
  EXPECT_TRUE(ex.running(id));
  EXPECT_TRUE(backend.state().pod_alive(old));
  EXPECT_TRUE(ex.involves(backend.state().pod_serial(old)));
  backend.run(r);
  backend.deliver();  // PodRunning → delete issued → PodDeleted
  EXPECT_FALSE(backend.state().pod_alive(old));
  backend.deliver();
  EXPECT_FALSE(ex.running(id));
  EXPECT_EQ(ex.completed(), 1u);
  EXPECT_EQ(backend.state().pod_node(r), c.e2);
}

// Issue acceptance: an incompatible event cancels the plan, and the pods it still meant to bind
// go to the cloud (the paper's Placement Manager).
TEST(Plan, CancellationSendsRemainingPodsToTheCloud) {
  Cluster c;
  const PodId a = c.s.add_pod(pod("a", 500));
  const PodId b = c.s.add_pod(pod("b", 500));
  const PodId d = c.s.add_pod(pod("d", 500));
  QueuedBackend backend(std::move(c.s));
  backend.failing.insert(c.e2);
  PlanExecutor ex(backend);
  backend.add_listener(&ex);
  ex.set_fallback(first_cloud_node);
  std::vector<PlanReport> done;
  ex.set_on_done([&](const PlanReport& r) { done.push_back(r); });
  Plan p("edge plan");
  p.bind(PodRef::of(backend.state(), a), c.e1)
      .bind(PodRef::of(backend.state(), b), c.e2)
      .bind(PodRef::of(backend.state(), d), c.e1);
  ex.submit(std::move(p));
  backend.deliver();  // a bound; b's bind fails → cancel; b and d go to the cloud

  ASSERT_GE(done.size(), 1u);
  EXPECT_EQ(done[0].status, PlanStatus::kCancelled);
  EXPECT_EQ(done[0].steps_done, 1u);
  EXPECT_NE(done[0].reason.find("PodBindFailed"), std::string::npos) << done[0].reason;
  EXPECT_NE(done[0].reason.find("bind default/b to edge-2"), std::string::npos) << done[0].reason;
  EXPECT_EQ(done[0].released, (std::vector<PodId>{b, d}));
  EXPECT_EQ(backend.state().pod_node(a), c.e1);
  EXPECT_EQ(backend.state().pod_node(b), c.cloud);
  EXPECT_EQ(backend.state().pod_node(d), c.cloud);
  backend.deliver();
  EXPECT_EQ(ex.active(), 0u);
  EXPECT_EQ(ex.completed(), 2u);  // the two fallback binds
  EXPECT_EQ(ex.cancelled(), 1u);
}

TEST(Plan, BindElsewhereByAnotherSchedulerIsIncompatible) {
  Cluster c;
  const PodId a = c.s.add_pod(pod("a", 500));
  const PodId b = c.s.add_pod(pod("b", 500));
  QueuedBackend backend(std::move(c.s));
  PlanExecutor ex(backend);
  std::vector<PlanReport> done;
  ex.set_on_done([&](const PlanReport& r) { done.push_back(r); });
  Plan p("p");
  p.bind(PodRef::of(backend.state(), a), c.e1).bind(PodRef::of(backend.state(), b), c.e1);
  ex.submit(std::move(p));
  // Someone else binds b to edge-2 before the plan gets to it.
  backend.state().assign(b, c.e2);
  EXPECT_FALSE(ex.handle({EventKind::kPodBound, 0, c.e2, b, backend.state().pod_serial(b)}));
  // The plan is still at step 1 (a): b's bind elsewhere only matters once b's step is current,
  // where starting the step finds b already placed.
  EXPECT_TRUE(ex.handle({EventKind::kPodBound, 0, c.e1, a, backend.state().pod_serial(a)}));
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, PlanStatus::kCancelled);
  EXPECT_NE(done[0].reason.find("already on edge-2"), std::string::npos) << done[0].reason;
}

TEST(Plan, DeletionOfAPodALaterStepNeedsCancels) {
  Cluster c;
  const PodId a = c.s.add_pod(pod("a", 500));
  const PodId b = c.s.add_pod(pod("b", 500));
  QueuedBackend backend(std::move(c.s));
  PlanExecutor ex(backend);
  std::vector<PlanReport> done;
  ex.set_on_done([&](const PlanReport& r) { done.push_back(r); });
  Plan p("p");
  p.bind(PodRef::of(backend.state(), a), c.e1).bind(PodRef::of(backend.state(), b), c.e2);
  ex.submit(std::move(p));
  // HPA scale-down deletes b while a's bind is in flight.
  const uint64_t serial = backend.state().pod_serial(b);
  backend.state().remove_pod(b);
  ex.handle({EventKind::kPodDeleted, 0, kNoNode, b, serial});
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, PlanStatus::kCancelled);
  EXPECT_NE(done[0].reason.find("default/b was deleted before step 2/2"), std::string::npos)
      << done[0].reason;
}

// A move of bare pods as the packer plans it (evictions first, each re-creation after its own
// eviction, binds last). b's eviction is refused and cancels the plan while a's eviction is under
// way: a exists nowhere but in the plan, so it is still re-created once its deletion is confirmed
// (pending: the normal queue places it). c's eviction had not started (it waits for b's): c is
// left alone and nothing is created for it.
TEST(Plan, ACancelledPlanStillRecreatesThePodsItWasEvicting) {
  Cluster c;
  const PodId a = c.s.add_pod(pod("a", 500));
  const PodId b = c.s.add_pod(pod("b", 500));
  const PodId cc = c.s.add_pod(pod("c", 500));
  c.s.assign(a, c.e1);
  c.s.assign(b, c.e2);
  c.s.assign(cc, c.e1);
  const Pod a_copy = c.s.pod(a);
  const uint64_t a_serial = c.s.pod_serial(a);
  QueuedBackend backend(std::move(c.s));
  backend.refuse_delete = {"b"};
  PlanExecutor ex(backend);
  backend.add_listener(&ex);
  std::vector<PlanReport> done;
  ex.set_on_done([&](const PlanReport& r) { done.push_back(r); });
  const ClusterState& st = backend.state();
  Plan p("move a and c");
  p.remove(PodRef::of(st, b), "moved").depends_on({});                  // 0
  p.remove(PodRef::of(st, a), "moved").depends_on({});                  // 1
  p.remove(PodRef::of(st, cc), "moved").depends_on({0});                // 2
  Pod a_new = a_copy;
  a_new.node_name.clear();
  const PodRef a2 = p.create(a_new);
  p.depends_on({1});  // 3
  Pod c_new = st.pod(cc);
  c_new.node_name.clear();
  p.create(c_new);
  p.depends_on({2});  // 4
  p.bind(a2, c.e2).depends_on({0, 1, 3});
  ex.submit(std::move(p));
  EXPECT_EQ(backend.deletes, 2);  // b (refused) and a (under way)
  backend.deliver();              // b's PodDeleteFailed cancels; then a's PodDeleted
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, PlanStatus::kCancelled);
  const auto a_now = st.find_pod("default", "a");
  ASSERT_TRUE(a_now.has_value()) << "the evicted pod was re-created";
  EXPECT_NE(st.pod_serial(*a_now), a_serial) << "a new pod";
  EXPECT_EQ(st.pod_node(*a_now), kNoNode) << "pending, for the normal queue";
  EXPECT_TRUE(st.pod_alive(b));
  EXPECT_EQ(st.pod_node(b), c.e2);
  EXPECT_TRUE(st.pod_alive(cc)) << "c's eviction never started";
  EXPECT_EQ(st.pods().size(), 3u) << "nothing created for c";
  EXPECT_EQ(backend.deletes, 2);
}

// The eviction of the pod to re-create fails after the cancellation: it is still there, so
// nothing is created.
TEST(Plan, ARecreationKeptByACancelledPlanIsDroppedWhenItsEvictionFails) {
  Cluster c;
  const PodId a = c.s.add_pod(pod("a", 500));
  const PodId b = c.s.add_pod(pod("b", 500));
  c.s.assign(a, c.e1);
  c.s.assign(b, c.e2);
  QueuedBackend backend(std::move(c.s));
  PlanExecutor ex(backend);
  const ClusterState& st = backend.state();
  Plan p("move a");
  p.remove(PodRef::of(st, b), "moved").depends_on({});
  p.remove(PodRef::of(st, a), "moved").depends_on({});
  Pod a_new = st.pod(a);
  a_new.node_name.clear();
  p.create(a_new);
  p.depends_on({1});
  const uint64_t a_serial = st.pod_serial(a);
  const uint64_t id = ex.submit(std::move(p));  // both evictions sent; no event delivered yet
  ex.cancel(id, "test");
  ex.handle({EventKind::kPodDeleteFailed, 0, c.e1, a, a_serial});  // a's eviction: 429s ran out
  const size_t pods = st.pods().size();
  ex.handle({EventKind::kPodDeleted, 0, c.e1, a, a_serial});  // (someone else deletes it later)
  EXPECT_EQ(st.pods().size(), pods) << "no re-creation after the failure was seen";
}

TEST(Plan, APodGoneWhenItsStepStartsCancels) {
  Cluster c;
  const PodId a = c.s.add_pod(pod("a", 500));
  const PodId b = c.s.add_pod(pod("b", 500));
  QueuedBackend backend(std::move(c.s));
  PlanExecutor ex(backend);
  backend.add_listener(&ex);
  std::vector<PlanReport> done;
  ex.set_on_done([&](const PlanReport& r) { done.push_back(r); });
  Plan p("p");
  p.bind(PodRef::of(backend.state(), a), c.e1).bind(PodRef::of(backend.state(), b), c.e2);
  ex.submit(std::move(p));
  backend.delete_pod(b, "scaled down");  // queued after a's PodBound
  backend.deliver();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, PlanStatus::kCancelled);
  EXPECT_NE(done[0].reason.find("cannot bind default/b to edge-2: the pod is gone"),
            std::string::npos)
      << done[0].reason;
}

TEST(Plan, NoRoomOnTheTargetCancelsWithAClearReason) {
  Cluster c;
  const PodId big = c.s.add_pod(pod("big", 3000));
  SnapshotBackend backend(std::move(c.s));
  PlanExecutor ex(backend);
  backend.add_listener(&ex);
  ex.set_fallback(first_cloud_node);
  std::vector<PlanReport> done;
  ex.set_on_done([&](const PlanReport& r) { done.push_back(r); });
  Plan p("too big");
  p.bind(PodRef::of(backend.state(), big), c.e1);
  ex.submit(std::move(p));
  ASSERT_EQ(done.size(), 2u);  // the cancelled plan, then its fallback bind
  EXPECT_EQ(done[0].status, PlanStatus::kCancelled);
  EXPECT_NE(done[0].reason.find("bind default/big to edge-1: the node has no room"),
            std::string::npos)
      << done[0].reason;
  EXPECT_TRUE(done[1].fallback);
  EXPECT_EQ(done[1].status, PlanStatus::kCompleted);
  EXPECT_EQ(backend.state().pod_node(big), c.cloud);
}

// Table 3, first row: the replacement of a deleted pod is created by the ReplicaSet; the plan
// claims the first pending pod of that owner, and the claim is reported as consumed.
TEST(Plan, WaitForCreateClaimsTheControllersNewPod) {
  Cluster c;
  const PodId old = c.s.add_pod(pod("web-1", 1000, "web"));
  c.s.assign(old, c.e1);
  QueuedBackend backend(std::move(c.s));
  PlanExecutor ex(backend);
  backend.add_listener(&ex);
  Resources req;
  req[kCpu] = 1000;
  Plan p("delete-first migration");
  p.remove(PodRef::of(backend.state(), old), "migrate");
  const PodRef repl = p.wait_for_create("default", {OwnerKind::kReplicaSet, "web"}, req);
  p.bind(repl, c.e2);
  ex.submit(std::move(p));
  // Before the deletion is verified the bind is already reserved on edge-2.
  const std::vector<PendingBind> pb = ex.pending_binds();
  ASSERT_EQ(pb.size(), 1u);
  EXPECT_EQ(pb[0].node, c.e2);
  EXPECT_EQ(pb[0].request[kCpu], 1000);
  backend.deliver();  // PodDeleted → waiting for a new pod of web

  const PodId other = backend.state().add_pod(pod("db-1", 500, "db"));
  EXPECT_FALSE(
      ex.handle({EventKind::kPodAdded, 0, kNoNode, other, backend.state().pod_serial(other)}));
  const PodId mine = backend.state().add_pod(pod("web-2", 1000, "web"));
  EXPECT_TRUE(
      ex.handle({EventKind::kPodAdded, 0, kNoNode, mine, backend.state().pod_serial(mine)}));
  backend.deliver();
  EXPECT_EQ(backend.state().pod_node(mine), c.e2);
  EXPECT_EQ(backend.state().pod_node(other), kNoNode);
  EXPECT_EQ(ex.completed(), 1u);
}

// A ReplicaSet replaces a pod as soon as it starts terminating, so the replacement's PodAdded can
// come before the deleted pod's PodDeleted: the plan still claims it.
TEST(Plan, WaitForCreateClaimsAReplacementThatArrivesBeforeTheDeletion) {
  Cluster c;
  const PodId old = c.s.add_pod(pod("web-1", 1000, "web"));
  c.s.assign(old, c.e1);
  QueuedBackend backend(std::move(c.s));
  PlanExecutor ex(backend);
  backend.add_listener(&ex);
  Resources req;
  req[kCpu] = 1000;
  Plan p("delete-first migration");
  p.remove(PodRef::of(backend.state(), old), "migrate");
  const PodRef repl = p.wait_for_create("default", {OwnerKind::kReplicaSet, "web"}, req);
  p.bind(repl, c.e2);
  ex.submit(std::move(p));
  const PodId mine = backend.state().add_pod(pod("web-2", 1000, "web"));
  EXPECT_TRUE(
      ex.handle({EventKind::kPodAdded, 0, kNoNode, mine, backend.state().pod_serial(mine)}));
  EXPECT_TRUE(ex.involves(backend.state().pod_serial(mine)));
  EXPECT_EQ(backend.binds, 0);  // still waiting for the deletion
  backend.deliver();            // PodDeleted → the claimed pod is bound at once
  backend.deliver();
  EXPECT_EQ(backend.state().pod_node(mine), c.e2);
  EXPECT_EQ(ex.completed(), 1u);
}

TEST(Plan, StepTimeoutCancels) {
  Cluster c;
  QueuedBackend backend(std::move(c.s));
  PlanExecutor ex(backend);
  std::vector<PlanReport> done;
  ex.set_on_done([&](const PlanReport& r) { done.push_back(r); });
  Plan p("never created");
  p.wait_for_create("default", {OwnerKind::kReplicaSet, "ghost"}, {});
  p.step_timeout_us(30'000'000);
  ex.submit(std::move(p));
  ex.expire(29'000'000);
  EXPECT_EQ(ex.active(), 1u);
  ex.expire(30'000'000);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].status, PlanStatus::kCancelled);
  EXPECT_NE(done[0].reason.find("timed out after 30 s waiting to wait for a new pod of"),
            std::string::npos)
      << done[0].reason;
}

TEST(Plan, EmptyPlanCompletesAtOnce) {
  Cluster c;
  SnapshotBackend backend(std::move(c.s));
  PlanExecutor ex(backend);
  ex.submit(Plan("nothing"));
  EXPECT_EQ(ex.completed(), 1u);
  EXPECT_EQ(ex.active(), 0u);
}

}  // namespace
}  // namespace orrery::fw
