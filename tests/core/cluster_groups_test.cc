// ClusterState's controller groups: per-node replica counts kept through assign, unassign,
// terminal phases and removal.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "core/cluster_state.h"
#include "core/rng.h"

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

// Random placements against a recount from scratch: per-node group counts and the groups' node
// lists, per-node requested figures (counted over the pods' request masks only), and node
// versions (a new, never-seen value whenever a node's accounting changes, unchanged otherwise).
TEST(ClusterGroups, RandomPlacementsMatchRecount) {
  Rng rng(5);
  ClusterState st;
  std::vector<NodeId> nodes;
  for (int i = 0; i < 6; ++i) {
    Node n;
    n.name = "n" + std::to_string(i);
    n.allocatable[kCpu] = 4000;
    nodes.push_back(st.add_node(n));
  }
  const char* owners[] = {"web", "api", "batch"};
  std::vector<PodId> pods;
  std::set<uint64_t> seen_versions;
  for (NodeId n : nodes) seen_versions.insert(st.node_versions()[n]);
  for (int step = 0; step < 400; ++step) {
    std::vector<uint64_t> before(st.node_versions(), st.node_versions() + st.node_slots());
    const uint64_t action = pods.empty() ? 0 : rng.below(4);
    NodeId changed = kNoNode;
    if (action <= 1) {
      Resources r;
      r[kCpu] = 100 * static_cast<int64_t>(rng.below(4));
      if (rng.bernoulli(0.5)) r[kMemory] = int64_t{1} << (20 + rng.below(10));
      if (rng.bernoulli(0.2)) r[kGpu] = 1;
      Pod p = rng.bernoulli(0.8) ? owned("p" + std::to_string(step), "ns", OwnerKind::kReplicaSet,
                                         owners[rng.below(3)])
                                 : owned("p" + std::to_string(step), "ns", OwnerKind::kNone, "");
      p.spec = make_simple_spec(r);
      const PodId id = st.add_pod(p);
      changed = nodes[rng.below(nodes.size())];
      st.assign(id, changed);
      pods.push_back(id);
    } else {
      const size_t j = rng.below(pods.size());
      changed = st.pod_node(pods[j]);
      if (action == 2) {
        st.unassign(pods[j]);
      } else {
        st.remove_pod(pods[j]);
      }
      pods[j] = pods.back();
      pods.pop_back();
    }
    for (NodeId n : nodes) {
      const uint64_t v = st.node_versions()[n];
      if (n == changed) {
        EXPECT_TRUE(seen_versions.insert(v).second) << "step " << step;
      } else {
        EXPECT_EQ(v, before[n]) << "step " << step;
      }
    }
    // Recount.
    std::map<std::pair<GroupId, NodeId>, int32_t> counts;
    std::vector<Resources> requested(st.node_slots());
    for (PodId p : pods) {
      const NodeId n = st.pod_node(p);
      requested[n] += st.pod(p).spec->request;
      if (st.pod_group(p) != kNoGroup) ++counts[{st.pod_group(p), n}];
    }
    for (NodeId n : nodes) {
      ASSERT_EQ(st.requested_of(n), requested[n]) << "step " << step;
      for (const char* o : owners) {
        const GroupId g = st.find_group("ns", OwnerKind::kReplicaSet, o);
        if (g == kNoGroup) continue;
        auto it = counts.find({g, n});
        ASSERT_EQ(st.group_count(g, n), it == counts.end() ? 0 : it->second) << "step " << step;
      }
    }
    for (const char* o : owners) {
      const GroupId g = st.find_group("ns", OwnerKind::kReplicaSet, o);
      if (g == kNoGroup) continue;
      std::map<NodeId, int32_t> listed;
      for (const auto& [n, c] : st.group_nodes(g)) {
        EXPECT_GT(c, 0);
        EXPECT_TRUE(listed.emplace(n, c).second) << "node listed twice";
      }
      size_t expected_size = 0;
      for (const auto& [key, c] : counts) {
        if (key.first != g) continue;
        EXPECT_EQ(listed[key.second], c) << "step " << step;
        ++expected_size;
      }
      EXPECT_EQ(listed.size(), expected_size);
    }
  }
}

}  // namespace
}  // namespace orrery
