#include "core/cluster_state.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace orrery {
namespace {

Node node(const std::string& name, int64_t cpu_m, int64_t mem) {
  Node n;
  n.name = name;
  n.allocatable[kCpu] = cpu_m;
  n.allocatable[kMemory] = mem;
  n.allocatable[kPods] = 110;
  n.capacity = n.allocatable;
  return n;
}

Pod pod(const std::string& name, std::shared_ptr<const PodSpec> spec) {
  Pod p;
  p.name = name;
  p.spec = std::move(spec);
  return p;
}

TEST(ClusterState, IncrementalAccounting) {
  ClusterState s;
  NodeId a = s.add_node(node("a", 4000, 8000));
  NodeId b = s.add_node(node("b", 2000, 4000));
  Resources r;
  r[kCpu] = 500;
  r[kMemory] = 1000;
  auto spec = make_simple_spec(r);
  PodId p1 = s.add_pod(pod("p1", spec));
  PodId p2 = s.add_pod(pod("p2", spec));
  s.assign(p1, a);
  s.assign(p2, a);
  EXPECT_EQ(s.requested(kCpu)[a], 1000);
  EXPECT_EQ(s.requested(kPods)[a], 2);
  EXPECT_EQ(s.pods_on(a).size(), 2u);
  EXPECT_EQ(s.free_of(a)[kCpu], 3000);
  s.unassign(p1);
  s.assign(p1, b);
  EXPECT_EQ(s.requested(kCpu)[a], 500);
  EXPECT_EQ(s.requested(kCpu)[b], 500);
  EXPECT_EQ(s.pod_node(p1), b);
  EXPECT_EQ(s.pod(p1).node_name, "b");
  s.set_phase(p2, PodPhase::kSucceeded);
  EXPECT_EQ(s.requested(kCpu)[a], 0) << "terminal pods release their node's resources";
  EXPECT_TRUE(s.pods_on(a).empty());
  s.remove_pod(p2);
  EXPECT_EQ(s.pod_count(), 1u);
  EXPECT_FALSE(s.find_pod("default", "p2").has_value());
  // Freed slots are reused.
  PodId p3 = s.add_pod(pod("p3", spec));
  EXPECT_EQ(p3, p2);
  EXPECT_EQ(s.pod_node(p3), kNoNode);
}

TEST(ClusterState, NonZeroRequestedUsesDefaults) {
  ClusterState s;
  NodeId a = s.add_node(node("a", 4000, 8000));
  auto best_effort = std::make_shared<PodSpec>();
  best_effort->containers.push_back(Container{});
  best_effort->finalize();
  PodId p = s.add_pod(pod("be", best_effort));
  s.assign(p, a);
  EXPECT_EQ(s.requested(kCpu)[a], 0);
  EXPECT_EQ(s.nonzero_requested(kCpu)[a], kDefaultMilliCpuRequest);
  EXPECT_EQ(s.nonzero_requested(kMemory)[a], kDefaultMemoryRequest);
}

TEST(ClusterState, NodeRemovalAndNames) {
  ClusterState s;
  NodeId a = s.add_node(node("a", 1000, 1000));
  NodeId b = s.add_node(node("b", 1000, 1000));
  EXPECT_THROW(s.add_node(node("a", 1, 1)), InputError);
  s.remove_node(a);
  EXPECT_FALSE(s.node_alive(a));
  EXPECT_EQ(s.nodes(), std::vector<NodeId>{b});
  EXPECT_FALSE(s.find_node("a").has_value());
  NodeId a2 = s.add_node(node("a", 1000, 1000));
  EXPECT_NE(a2, a);
  EXPECT_EQ(s.find_node("a"), a2);
}

}  // namespace
}  // namespace orrery
