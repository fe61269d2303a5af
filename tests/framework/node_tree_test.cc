// The node tree (upstream pkg/scheduler/backend/cache/node_tree_test.go: TestNodeTree_AddNode,
// _RemoveNode, _UpdateNode, _List, TestNodeTreeMultiOperations), NodeOrder's snapshot-list rules,
// and node sampling over the interleaved list.
#include "framework/node_tree.h"

#include <gtest/gtest.h>

#include <map>

#include "framework/scheduler.h"
#include "plugins/register.h"

namespace orrery::fw {
namespace {

const char* kBetaRegion = "failure-domain.beta.kubernetes.io/region";
const char* kBetaZone = "failure-domain.beta.kubernetes.io/zone";

// upstream's allNodes: node-i is NodeId i.
std::vector<Node> all_nodes() {
  std::vector<Node> out(11);
  for (int i = 0; i < 11; ++i) out[i].name = "node-" + std::to_string(i);
  auto set = [&](int i, const char* region, const char* zone) {
    if (region) out[i].labels.set(kBetaRegion, region);
    if (zone) out[i].labels.set(kBetaZone, zone);
  };
  set(1, "region-1", nullptr);
  set(2, nullptr, "zone-2");
  set(3, "region-1", "zone-2");
  set(4, "region-1", "zone-2");
  set(5, "region-1", "zone-3");
  set(6, "region-2", "zone-2");
  set(7, "region-2", "zone-2");
  set(8, "region-2", "zone-2");
  set(9, "region-2", "zone-2");
  out[9].labels.set("topology.kubernetes.io/region", "region-2");
  out[9].labels.set("topology.kubernetes.io/zone", "zone-2");
  set(10, "region-2", "zone-3");
  return out;
}

ZoneKey key(const char* region, const char* zone) {
  return {region ? intern(region) : kNoStr, zone ? intern(zone) : kNoStr};
}

using Tree = std::map<std::pair<std::string, std::string>, std::vector<NodeId>>;

// The tree as {(region, zone) → nodes}, checked against every zone the tree has.
void expect_tree(const NodeTree& t, const Tree& want) {
  size_t nodes = 0;
  for (const auto& [k, ids] : want) {
    nodes += ids.size();
    EXPECT_EQ(t.zone_nodes(key(k.first.empty() ? nullptr : k.first.c_str(),
                               k.second.empty() ? nullptr : k.second.c_str())),
              ids)
        << k.first << "/" << k.second;
  }
  EXPECT_EQ(t.size(), nodes);
  EXPECT_EQ(t.zone_count(), want.size());
}

NodeTree tree_of(const std::vector<Node>& nodes, std::vector<int> ids) {
  NodeTree t;
  for (int i : ids) t.add(static_cast<NodeId>(i), zone_key(nodes[i]));
  return t;
}

std::vector<int> range(int from, int to) {
  std::vector<int> v;
  for (int i = from; i < to; ++i) v.push_back(i);
  return v;
}

TEST(NodeTree, TestNodeTree_AddNode) {
  const auto n = all_nodes();
  expect_tree(tree_of(n, {0}), {{{"", ""}, {0}}});  // "single node no labels"
  expect_tree(tree_of(n, range(0, 4)),               // "mix of nodes with and without proper labels"
              {{{"", ""}, {0}},
               {{"region-1", ""}, {1}},
               {{"", "zone-2"}, {2}},
               {{"region-1", "zone-2"}, {3}}});
  // "mix of nodes with and without proper labels and some zones with multiple nodes"
  expect_tree(tree_of(n, range(0, 7)), {{{"", ""}, {0}},
                                        {{"region-1", ""}, {1}},
                                        {{"", "zone-2"}, {2}},
                                        {{"region-1", "zone-2"}, {3, 4}},
                                        {{"region-1", "zone-3"}, {5}},
                                        {{"region-2", "zone-2"}, {6}}});
  // "nodes also using deprecated zone/region label"
  expect_tree(tree_of(n, {9, 10}),
              {{{"region-2", "zone-2"}, {9}}, {{"region-2", "zone-3"}, {10}}});
  NodeTree twice = tree_of(n, {0, 0});  // adding a node twice keeps one
  EXPECT_EQ(twice.size(), 1u);
}

TEST(NodeTree, DeprecatedLabelsComeFirst) {
  Node n;
  n.labels.set(kBetaZone, "old");
  n.labels.set("topology.kubernetes.io/zone", "new");
  EXPECT_EQ(zone_key(n), key(nullptr, "old"));
  Node m;
  m.labels.set("topology.kubernetes.io/zone", "new");
  m.labels.set("topology.kubernetes.io/region", "r");
  EXPECT_EQ(zone_key(m), key("r", "new"));
}

TEST(NodeTree, TestNodeTree_RemoveNode) {
  const auto n = all_nodes();
  {  // "remove a single node with no labels"
    NodeTree t = tree_of(n, range(0, 7));
    EXPECT_TRUE(t.remove(0, zone_key(n[0])));
    expect_tree(t, {{{"region-1", ""}, {1}},
                    {{"", "zone-2"}, {2}},
                    {{"region-1", "zone-2"}, {3, 4}},
                    {{"region-1", "zone-3"}, {5}},
                    {{"region-2", "zone-2"}, {6}}});
  }
  {  // "remove a few nodes including one from a zone with multiple nodes"
    NodeTree t = tree_of(n, range(0, 7));
    for (int i = 1; i < 4; ++i) EXPECT_TRUE(t.remove(i, zone_key(n[i])));
    expect_tree(t, {{{"", ""}, {0}},
                    {{"region-1", "zone-2"}, {4}},
                    {{"region-1", "zone-3"}, {5}},
                    {{"region-2", "zone-2"}, {6}}});
  }
  {  // "remove all nodes"
    NodeTree t = tree_of(n, range(0, 7));
    for (int i = 0; i < 7; ++i) EXPECT_TRUE(t.remove(i, zone_key(n[i])));
    expect_tree(t, {});
  }
  {  // "remove non-existing node"
    NodeTree t;
    for (int i = 0; i < 5; ++i) EXPECT_FALSE(t.remove(i, zone_key(n[i])));
    expect_tree(t, {});
  }
}

TEST(NodeTree, TestNodeTree_UpdateNode) {
  const auto n = all_nodes();
  {  // "update a node without label": node-0 moves to region-1/zone-2, after 3 and 4
    NodeTree t = tree_of(n, range(0, 7));
    t.update(0, zone_key(n[0]), key("region-1", "zone-2"));
    expect_tree(t, {{{"region-1", ""}, {1}},
                    {{"", "zone-2"}, {2}},
                    {{"region-1", "zone-2"}, {3, 4, 0}},
                    {{"region-1", "zone-3"}, {5}},
                    {{"region-2", "zone-2"}, {6}}});
  }
  {  // "update the only existing node"
    NodeTree t = tree_of(n, {0});
    t.update(0, zone_key(n[0]), key("region-1", "zone-2"));
    expect_tree(t, {{{"region-1", "zone-2"}, {0}}});
  }
  {  // "update non-existing node": it is added
    NodeTree t = tree_of(n, {0});
    t.update(42, key(nullptr, nullptr), key("region-1", "zone-2"));
    expect_tree(t, {{{"", ""}, {0}}, {{"region-1", "zone-2"}, {42}}});
  }
}

TEST(NodeTree, TestNodeTree_List) {
  const auto n = all_nodes();
  EXPECT_TRUE(NodeTree().list().empty());                        // "empty tree"
  EXPECT_EQ(tree_of(n, {0}).list(), (std::vector<NodeId>{0}));  // "one node"
  EXPECT_EQ(tree_of(n, range(0, 4)).list(), (std::vector<NodeId>{0, 1, 2, 3}));  // "four nodes"
  EXPECT_EQ(tree_of(n, range(0, 9)).list(),  // "all nodes"
            (std::vector<NodeId>{0, 1, 2, 3, 5, 6, 4, 7, 8}));
}

TEST(NodeTree, TestNodeTreeMultiOperations) {
  const auto n = all_nodes();
  struct Case {
    const char* name;
    std::vector<int> add, remove;
    std::string ops;  // a = add, r = remove
    std::vector<NodeId> want;
  };
  const std::vector<Case> cases = {
      {"add and remove all nodes", range(2, 9), range(2, 9), "aaarrr", {}},
      {"add and remove some nodes", range(2, 9), range(2, 9), "aaar", {3, 4}},
      {"remove three nodes", range(2, 9), range(2, 9), "aaarrra", {5}},
      {"add more nodes to an exhausted zone", {4, 5, 6, 7, 8, 3}, {}, "aaaaaa", {4, 5, 6, 3, 7, 8}},
      {"remove zone and add new", {3, 4, 6, 7}, {3, 4}, "aaraar", {6, 7}},
  };
  for (const Case& c : cases) {
    NodeTree t;
    size_t a = 0, r = 0;
    for (char op : c.ops) {
      if (op == 'a') {
        t.add(c.add[a], zone_key(n[c.add[a]]));
        ++a;
      } else {
        t.remove(c.remove[r], zone_key(n[c.remove[r]]));
        ++r;
      }
    }
    EXPECT_EQ(t.list(), c.want) << c.name;
  }
}

// NodeOrder follows a ClusterState: adds in id order, removals, and the snapshot-list rule for
// zone changes.
Node zoned(const std::string& name, const std::string& zone) {
  Node n;
  n.name = name;
  if (!zone.empty()) n.labels.set("topology.kubernetes.io/zone", zone);
  n.allocatable[kCpu] = 1000;
  n.allocatable[kPods] = 110;
  return n;
}

TEST(NodeOrder, FollowsTheClusterState) {
  ClusterState st;
  for (int i = 0; i < 3; ++i) st.add_node(zoned("a" + std::to_string(i), "za"));  // 0 1 2
  for (int i = 0; i < 2; ++i) st.add_node(zoned("b" + std::to_string(i), "zb"));  // 3 4
  st.add_node(zoned("c0", "zc"));                                                   // 5
  NodeOrder order;
  EXPECT_EQ(order.get(st), (std::vector<NodeId>{0, 3, 5, 1, 4, 2}));
  // A zone change re-files the node but keeps the list until a node is added or removed.
  Node moved = st.node(0);
  moved.labels.set("topology.kubernetes.io/zone", "zc");
  st.update_node(0, moved);
  EXPECT_EQ(order.get(st), (std::vector<NodeId>{0, 3, 5, 1, 4, 2}));
  st.remove_node(4);
  // Tree: za {1, 2}, zb {3}, zc {5, 0}.
  EXPECT_EQ(order.get(st), (std::vector<NodeId>{1, 3, 5, 2, 0}));
  st.add_node(zoned("d0", ""));  // 6, a new group at the end
  EXPECT_EQ(order.get(st), (std::vector<NodeId>{1, 3, 5, 6, 2, 0}));
}

TEST(NodeOrder, WithoutZonesItIsTheOrderNodesWereAdded) {
  ClusterState st;
  for (int i = 0; i < 5; ++i) st.add_node(zoned("n" + std::to_string(i), ""));
  st.remove_node(2);
  NodeOrder order;
  EXPECT_EQ(order.get(st), st.nodes());
}

TEST(NodeOrder, SamplingWalksTheInterleavedList) {
  // 200 feasible nodes, zone A = ids 0-99, zone B = ids 100-199; percentageOfNodesToScore 50 → the
  // first cycle evaluates 100 nodes: the first 100 of the interleaved list (A0, B0, A1, B1, ...),
  // i.e. ids 0-49 and 100-149. The roomiest node, id 120 (zone B), is among them and wins; in id
  // order the first 100 nodes would all have been zone A.
  ClusterState st;
  for (int i = 0; i < 200; ++i) {
    Node n = zoned("n" + std::to_string(1000 + i), i < 100 ? "A" : "B");
    n.allocatable[kCpu] = i == 120 ? 8000 : 1000;
    st.add_node(n);
  }
  Pod p;
  p.name = "pod";
  Resources r;
  r[kCpu] = 500;
  p.spec = make_simple_spec(r);
  st.add_pod(p);
  SnapshotBackend backend(std::move(st));
  Scheduler s(backend, plugins::default_profiles(true, 50));
  auto outcomes = schedule_snapshot(s, backend);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_TRUE(outcomes[0].scheduled);
  EXPECT_EQ(outcomes[0].evaluated_nodes, 100);
  EXPECT_EQ(backend.state().node(outcomes[0].node).name, "n1120");
}

}  // namespace
}  // namespace orrery::fw
