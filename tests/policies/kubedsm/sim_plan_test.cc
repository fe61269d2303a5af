// The plan executor in the simulator: real lifecycle delays, a ReplicaSet that replaces deleted
// pods as soon as they start terminating and deletes surplus pods in upstream's order.
#include <gtest/gtest.h>

#include "framework/plan.h"
#include "sim/replicaset.h"
#include "sim/sim_backend.h"

namespace orrery {
namespace {

using fw::Plan;
using fw::PlanExecutor;
using fw::PlanReport;
using fw::PlanStatus;
using fw::PodRef;

Node node(const std::string& name, int64_t cores, const std::string& tier) {
  Node n;
  n.name = name;
  n.allocatable[kCpu] = cores * 1000;
  n.allocatable[kMemory] = 8LL << 30;
  n.allocatable[kPods] = 110;
  n.capacity = n.allocatable;
  n.labels.set("orrery.io/tier", tier);
  n.derive_orrery_fields(name);
  return n;
}

struct SimCluster {
  sim::EventLoop loop;
  sim::SimBackend be;
  NodeId e1, e2, cloud;
  PlanExecutor ex;
  std::vector<PlanReport> done;
  std::unique_ptr<sim::ReplicaSet> rs;

  SimCluster() : be(loop, 7, lifecycle()), ex(be) {
    e1 = be.add_node(node("e1", 2, "edge"));
    e2 = be.add_node(node("e2", 2, "edge"));
    cloud = be.add_node(node("cloud", 32, "cloud"));
    be.add_listener(&ex);
    ex.set_on_done([this](const PlanReport& r) { done.push_back(r); });
    ex.set_fallback([this](const ClusterState&, PodId) { return cloud; });
    Resources r;
    r[kCpu] = 1000;
    r[kMemory] = 1LL << 30;
    sim::PodTemplate t;
    t.spec = make_simple_spec(r);
    rs = std::make_unique<sim::ReplicaSet>(be, "web", t, 2, 7);
  }
  static sim::Lifecycle lifecycle() {
    sim::Lifecycle l;
    l.api = orrery::Dist::constant(10'000);
    l.bind = orrery::Dist::constant(20'000);
    l.startup = orrery::Dist::constant(1'000'000);
    l.termination = orrery::Dist::constant(2'000'000);
    return l;
  }
  std::vector<PodId> web() const { return rs->active_pods(); }
  // Binds every pending pod of the ReplicaSet to `n` through one plan, and runs until they run.
  void place_all(NodeId n) {
    Plan p("place");
    for (PodId id : web())
      if (be.state().pod_node(id) == kNoNode) p.bind(PodRef::of(be.state(), id), n);
    ex.submit(std::move(p));
    loop.run_until(loop.now() + 5 * sim::kSecond);
  }
};

TEST(SimPlan, DeleteFirstMigrationCompletesWithTheReplicaSetsReplacement) {
  SimCluster c;
  c.loop.run_until(sim::kSecond);  // the ReplicaSet creates web-0, web-1
  ASSERT_EQ(c.web().size(), 2u);
  c.place_all(c.e1);
  const PodId old = c.web()[0];
  ASSERT_EQ(c.be.state().pod_node(old), c.e1);

  Resources req;
  req[kCpu] = 1000;
  Plan p("migrate web-0 e1 -> e2");
  p.remove(PodRef::of(c.be.state(), old), "migrate");
  const PodRef repl = p.wait_for_create("default", {OwnerKind::kReplicaSet, "web"}, req);
  p.bind(repl, c.e2).wait_for_running(repl);
  c.ex.submit(std::move(p));
  c.loop.run_until(c.loop.now() + 10 * sim::kSecond);

  ASSERT_EQ(c.done.size(), 2u);
  EXPECT_EQ(c.done[1].status, PlanStatus::kCompleted) << c.done[1].reason;
  int on_e1 = 0, on_e2 = 0;
  for (PodId id : c.web()) {
    on_e1 += c.be.state().pod_node(id) == c.e1;
    on_e2 += c.be.state().pod_node(id) == c.e2;
    EXPECT_EQ(c.be.state().pod(id).phase, PodPhase::kRunning);
  }
  EXPECT_EQ(on_e1, 1);
  EXPECT_EQ(on_e2, 1);
  EXPECT_EQ(c.web().size(), 2u);
}

// Create-first against an upstream-like ReplicaSet: it adopts the copy, has one pod too many and
// deletes the pending one first, which cancels the plan (why KubeDSM migrates delete-first).
TEST(SimPlan, CreateFirstLosesItsCopyToTheReplicaSetsScaleDown) {
  SimCluster c;
  c.loop.run_until(sim::kSecond);
  c.place_all(c.e1);
  const PodId old = c.web()[0];
  Pod copy = c.be.state().pod(old);
  copy.name = "web-copy";
  copy.node_name.clear();
  copy.phase = PodPhase::kPending;
  Plan p("create-first migration");
  const PodRef made = p.create(std::move(copy));
  p.bind(made, c.e2).wait_for_running(made).remove(PodRef::of(c.be.state(), old), "migrate");
  c.ex.submit(std::move(p));
  c.loop.run_until(c.loop.now() + 10 * sim::kSecond);
  ASSERT_EQ(c.done.size(), 2u);
  EXPECT_EQ(c.done[1].status, PlanStatus::kCancelled);
  EXPECT_NE(c.done[1].reason.find("default/web-copy"), std::string::npos) << c.done[1].reason;
  EXPECT_EQ(c.be.state().pod_node(old), c.e1);  // the original stays
}

// Issue acceptance, in the simulator: a plan that cannot go on is cancelled and its remaining
// pending pods go to the cloud.
TEST(SimPlan, CancelledPlanSendsItsPendingPodsToTheCloud) {
  SimCluster c;
  c.loop.run_until(sim::kSecond);
  const std::vector<PodId> pods = c.web();
  ASSERT_EQ(pods.size(), 2u);
  // e1 has 2 cores: the first bind fits, then another scheduler takes the rest of e1.
  Plan p("edge plan");
  p.bind(PodRef::of(c.be.state(), pods[0]), c.e1).bind(PodRef::of(c.be.state(), pods[1]), c.e1);
  c.ex.submit(std::move(p));
  Resources big;
  big[kCpu] = 1000;
  Pod other;
  other.name = "other";
  other.spec = make_simple_spec(big);
  const PodId o = c.be.create_pod(std::move(other), sim::PodExtras{});
  c.be.state().assign(o, c.e1);
  c.be.bind(o, c.e1);
  c.loop.run_until(c.loop.now() + 5 * sim::kSecond);
  ASSERT_GE(c.done.size(), 2u);
  EXPECT_EQ(c.done[0].status, PlanStatus::kCancelled);
  EXPECT_NE(c.done[0].reason.find("no room"), std::string::npos) << c.done[0].reason;
  EXPECT_EQ(c.done[0].released, std::vector<PodId>{pods[1]});
  EXPECT_EQ(c.be.state().pod_node(pods[0]), c.e1);
  EXPECT_EQ(c.be.state().pod_node(pods[1]), c.cloud);
  EXPECT_EQ(c.be.state().pod(pods[1]).phase, PodPhase::kRunning);
}

}  // namespace
}  // namespace orrery
