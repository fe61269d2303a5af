// ClusterState's controller groups: per-node replica counts kept through assign, unassign,
// terminal phases and removal.
#include <gtest/gtest.h>

#include "core/cluster_state.h"

namespace orrery {
namespace {

Pod owned(const std::string& name, const std::string& ns, OwnerKind kind, const std::string& owner,
          const std::string& node = "") {
  Pod p;
  p.name = name;
  p.ns = ns;
  p.owner = {kind, owner};
  p.node_name = node;
  p.spec = make_simple_spec({});
  return p;
}

TEST(ClusterGroups, CountsFollowPlacement) {
  ClusterState st;
  Node a, b;
  a.name = "a";
  b.name = "b";
  const NodeId na = st.add_node(a), nb = st.add_node(b);
  const PodId p1 = st.add_pod(owned("p1", "ns", OwnerKind::kReplicaSet, "web", "a"));
  const PodId p2 = st.add_pod(owned("p2", "ns", OwnerKind::kReplicaSet, "web", "a"));
  const PodId p3 = st.add_pod(owned("p3", "ns", OwnerKind::kReplicaSet, "web"));
  const PodId other_ns = st.add_pod(owned("p4", "other", OwnerKind::kReplicaSet, "web", "a"));
  const PodId other_kind = st.add_pod(owned("p5", "ns", OwnerKind::kJob, "web", "a"));
  const PodId plain = st.add_pod(owned("p6", "ns", OwnerKind::kNone, "", "a"));
  const GroupId g = st.pod_group(p1);
  ASSERT_NE(g, kNoGroup);
  EXPECT_EQ(st.pod_group(p3), g);
  EXPECT_NE(st.pod_group(other_ns), g);
  EXPECT_NE(st.pod_group(other_kind), g);
  EXPECT_EQ(st.pod_group(plain), kNoGroup);
  EXPECT_EQ(st.find_group("ns", OwnerKind::kReplicaSet, "web"), g);
  EXPECT_EQ(st.find_group("ns", OwnerKind::kReplicaSet, "api"), kNoGroup);
  EXPECT_EQ(st.group_count(g, na), 2);
  EXPECT_EQ(st.group_count(g, nb), 0);
  st.assign(p3, nb);
  EXPECT_EQ(st.group_count(g, nb), 1);
  EXPECT_EQ(st.group_nodes(g).size(), 2u);
  st.unassign(p1);
  st.set_phase(p2, PodPhase::kSucceeded);  // terminal: no longer counted
  EXPECT_EQ(st.group_count(g, na), 0);
  EXPECT_EQ(st.group_nodes(g).size(), 1u);
  st.remove_pod(p3);
  EXPECT_TRUE(st.group_nodes(g).empty());
  // A reused pod slot does not inherit the group.
  const PodId fresh = st.add_pod(owned("p7", "ns", OwnerKind::kNone, "", "b"));
  EXPECT_EQ(st.pod_group(fresh), kNoGroup);
}

}  // namespace
}  // namespace orrery
