#include "framework/scheduler.h"

#include <gtest/gtest.h>

#include "test_plugins.h"

namespace orrery::fw {
namespace {

using testing::Blocklist;
using testing::CpuFit;
using testing::Flat;

Node node(const std::string& name, int64_t cpu_m) {
  Node n;
  n.name = name;
  n.allocatable[kCpu] = cpu_m;
  n.allocatable[kMemory] = 1LL << 30;
  n.allocatable[kPods] = 110;
  return n;
}

Pod pod(const std::string& name, int64_t cpu_m, int32_t priority = 0, int64_t created = 0) {
  Resources r;
  r[kCpu] = cpu_m;
  auto spec = make_simple_spec(r);
  spec->priority = priority;
  Pod p;
  p.name = name;
  p.spec = spec;
  p.creation_us = created;
  return p;
}

std::unique_ptr<Profile> profile(bool deterministic = true) {
  auto p = std::make_unique<Profile>();
  p->deterministic_ties = deterministic;
  p->add(std::make_unique<CpuFit>(), kFilter | kScore, 1);
  return p;
}

std::vector<std::unique_ptr<Profile>> one(std::unique_ptr<Profile> p) {
  std::vector<std::unique_ptr<Profile>> v;
  v.push_back(std::move(p));
  return v;
}

TEST(Scheduler, PicksLeastLoadedAndAccounts) {
  ClusterState st;
  st.add_node(node("a", 1000));
  st.add_node(node("b", 4000));
  st.add_pod(pod("p1", 500));
  SnapshotBackend be(std::move(st));
  Scheduler s(be, one(profile()));
  s.enqueue_pending();
  auto outs = s.run_until_idle();
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_TRUE(outs[0].scheduled);
  EXPECT_EQ(be.state().node(outs[0].node).name, "b");
  EXPECT_EQ(be.state().requested(kCpu)[outs[0].node], 500);
}

TEST(Scheduler, HigherPriorityFirst) {
  ClusterState st;
  st.add_node(node("a", 1000));
  st.add_pod(pod("low", 800, 0, 1));
  st.add_pod(pod("high", 800, 100, 2));
  SnapshotBackend be(std::move(st));
  Scheduler s(be, one(profile()));
  s.enqueue_pending();
  auto outs = s.run_until_idle();
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(be.state().pod(outs[0].pod).name, "high");
  EXPECT_TRUE(outs[0].scheduled);
  EXPECT_FALSE(outs[1].scheduled);
  EXPECT_EQ(outs[1].message, "0/1 nodes are available: 1 Insufficient cpu.");
}

TEST(Scheduler, FitErrorMessageSortsReasons) {
  ClusterState st;
  for (int i = 0; i < 3; ++i) st.add_node(node("small-" + std::to_string(i), 100));
  for (int i = 0; i < 2; ++i) st.add_node(node("blocked-" + std::to_string(i), 10000));
  st.add_pod(pod("big", 500));
  SnapshotBackend be(std::move(st));
  auto p = profile();
  p->add(std::make_unique<Blocklist>(std::vector<std::string>{"blocked-0", "blocked-1"}), kFilter);
  Scheduler s(be, one(std::move(p)));
  s.enqueue_pending();
  auto outs = s.run_until_idle();
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].message,
            "0/5 nodes are available: 2 node(s) were blocked, 3 Insufficient cpu.");
}

TEST(Scheduler, DeterministicTiesPickSmallestName) {
  ClusterState st;
  st.add_node(node("c", 1000));
  st.add_node(node("a", 1000));
  st.add_node(node("b", 1000));
  st.add_pod(pod("p", 100));
  SnapshotBackend be(std::move(st));
  auto p = std::make_unique<Profile>();
  p->deterministic_ties = true;
  p->add(std::make_unique<Flat>(), kScore, 1);
  Scheduler s(be, one(std::move(p)));
  s.enqueue_pending();
  auto outs = s.run_until_idle();
  EXPECT_EQ(be.state().node(outs.at(0).node).name, "a");
}

TEST(Scheduler, RandomTiesAreSeededAndSpread) {
  std::map<std::string, int> counts;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    ClusterState st;
    st.add_node(node("a", 1000));
    st.add_node(node("b", 1000));
    st.add_node(node("c", 1000));
    st.add_pod(pod("p", 100));
    SnapshotBackend be(std::move(st));
    auto p = std::make_unique<Profile>();
    p->add(std::make_unique<Flat>(), kScore, 1);
    SchedulerOptions o;
    o.seed = seed;
    Scheduler s(be, one(std::move(p)), o);
    s.enqueue_pending();
    auto outs = s.run_until_idle();
    counts[be.state().node(outs.at(0).node).name]++;
  }
  ASSERT_EQ(counts.size(), 3u);
  for (auto& [n, c] : counts) EXPECT_GT(c, 60) << n;  // ~100 each
}

TEST(Scheduler, AdaptiveSamplingAndRotation) {
  // 1,000 nodes: adaptive percentage = 50 - 1000/125 = 42 % → 420 feasible nodes to find.
  ClusterState st;
  for (int i = 0; i < 1000; ++i) st.add_node(node("n" + std::to_string(i), 1000));
  st.add_pod(pod("p1", 100));
  st.add_pod(pod("p2", 100, 0, 1));
  SnapshotBackend be(std::move(st));
  Scheduler s(be, one(profile()));
  s.enqueue_pending();
  auto outs = s.run_until_idle();
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].evaluated_nodes, 420);
  EXPECT_EQ(outs[0].feasible_nodes, 420);
  // The second pod starts where the first stopped: nodes 420..839; ties → smallest name there.
  EXPECT_EQ(outs[1].feasible_nodes, 420);
  const std::string second = be.state().node(outs[1].node).name;
  EXPECT_EQ(second, "n420") << "lexicographically smallest of n420..n839";
}

TEST(Scheduler, FixedPercentageWithInfeasibleNodesScansFurther) {
  // 200 nodes, 50 %: needs 100 feasible; the first 150 nodes are full, so it examines 250? No:
  // it examines nodes until 100 feasible are found or all nodes were seen.
  ClusterState st;
  for (int i = 0; i < 200; ++i)
    st.add_node(node("n" + std::to_string(1000 + i), i < 150 ? 50 : 1000));
  st.add_pod(pod("p", 100));
  SnapshotBackend be(std::move(st));
  auto p = profile();
  p->percentage_of_nodes_to_score = 50;
  Scheduler s(be, one(std::move(p)));
  s.enqueue_pending();
  auto outs = s.run_until_idle();
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].feasible_nodes, 50);
  EXPECT_EQ(outs[0].evaluated_nodes, 200);
}

// PostFilter that evicts every pod on the first node with lower priority.
class EvictAll : public Plugin {
 public:
  std::string_view name() const override { return "EvictAll"; }
  uint32_t extension_points() const override { return kPostFilter; }
  PostFilterResult post_filter(const CycleContext& c, Handle& h, const Rejections&) override {
    PostFilterResult r;
    NodeId n = c.state.nodes().front();
    std::vector<PodId> victims;
    for (PodId p : c.state.pods_on(n))
      if (c.state.pod(p).spec->priority < c.spec.priority) victims.push_back(p);
    ClusterState& st = h.mutable_state();
    for (PodId v : victims) st.unassign(v);
    bool fits = h.passes_filters(c, n);
    for (PodId v : victims) st.assign(v, n);
    if (!fits) {
      r.status = Status::unschedulable(name(), "no victims");
      r.message = "preemption: not helpful";
      return r;
    }
    r.nominated_node = n;
    r.victims = victims;
    return r;
  }
};

TEST(Scheduler, PreemptionNominatesAndRetries) {
  ClusterState st;
  NodeId a = st.add_node(node("a", 1000));
  Pod low = pod("low", 800);
  low.node_name = "a";
  st.add_pod(low);
  st.add_pod(pod("high", 800, 100));
  SnapshotBackend be(std::move(st));
  auto p = profile();
  p->add(std::make_unique<EvictAll>(), kPostFilter);
  Scheduler s(be, one(std::move(p)));
  auto outs = schedule_snapshot(s, be);
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_FALSE(outs[0].scheduled);
  EXPECT_EQ(outs[0].nominated_node, a);
  EXPECT_EQ(outs[0].victims.size(), 1u);
  ASSERT_EQ(be.deletions().size(), 1u);
  EXPECT_EQ(be.deletions()[0].pod, "default/low");
  EXPECT_EQ(be.deletions()[0].reason, "preempted by default/high");
  EXPECT_TRUE(outs[1].scheduled) << "the victim's deletion event requeued the preemptor";
  EXPECT_EQ(outs[1].node, a);
}

class FailReserve : public Plugin {
 public:
  std::string_view name() const override { return "FailReserve"; }
  uint32_t extension_points() const override { return kReserve; }
  Status reserve(const CycleContext&, NodeId) override {
    return Status::unschedulable(name(), "no thanks");
  }
  void unreserve(const CycleContext&, NodeId) override { ++unreserved; }
  int unreserved = 0;
};

TEST(Scheduler, ReserveFailureRollsBack) {
  ClusterState st;
  NodeId a = st.add_node(node("a", 1000));
  st.add_pod(pod("p", 100));
  SnapshotBackend be(std::move(st));
  auto p = profile();
  auto* fr = static_cast<FailReserve*>(p->add(std::make_unique<FailReserve>(), kReserve));
  Scheduler s(be, one(std::move(p)));
  s.enqueue_pending();
  auto outs = s.run_until_idle();
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_FALSE(outs[0].scheduled);
  EXPECT_EQ(outs[0].message, "FailReserve: no thanks");
  EXPECT_EQ(fr->unreserved, 1);
  EXPECT_EQ(be.state().requested(kCpu)[a], 0);
  EXPECT_EQ(be.state().pod_node(outs[0].pod), kNoNode);
}

TEST(Scheduler, EvaluateReportsEveryNode) {
  ClusterState st;
  st.add_node(node("a", 1000));
  st.add_node(node("b", 100));
  PodId pid = st.add_pod(pod("p", 500));
  SnapshotBackend be(std::move(st));
  Scheduler s(be, one(profile()));
  auto ev = s.evaluate(pid);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_TRUE(ev[0].feasible);
  ASSERT_EQ(ev[0].scores.size(), 1u);
  EXPECT_EQ(ev[0].scores[0].first, "CpuFit");
  EXPECT_EQ(ev[0].scores[0].second, 50);
  EXPECT_EQ(ev[0].total, 50);
  EXPECT_FALSE(ev[1].feasible);
  EXPECT_EQ(ev[1].reasons, std::vector<std::string>{"Insufficient cpu"});
}

}  // namespace
}  // namespace orrery::fw
