// The order in which the scheduler visits nodes when it samples them (findNodesThatPassFilters
// walks the snapshot's node list from nextStartNodeIndex), as upstream's node tree
// (pkg/scheduler/backend/cache/node_tree.go): nodes grouped by zone — region and zone labels,
// the deprecated failure-domain.beta.kubernetes.io ones first (utilnode.GetZoneKey) — zones in the
// order they first appeared, nodes of a zone in the order they were added, and the list
// interleaves the zones round-robin. On a cluster without zone labels (one group) it is the order
// nodes were added.
#pragma once

#include <cstdint>
#include <vector>

#include "core/cluster_state.h"

namespace orrery::fw {

// utilnode.GetZoneKey as a pair: kNoStr for a missing (or empty) label; both kNoStr is the ""
// group of nodes without zone labels.
struct ZoneKey {
  StrId region = kNoStr;
  StrId zone = kNoStr;
  bool operator==(const ZoneKey&) const = default;
};
ZoneKey zone_key(const Node& node);

// upstream nodeTree: addNode, removeNode, updateNode, list.
class NodeTree {
 public:
  void add(NodeId id, ZoneKey zone);  // no-op when the node is already in its zone
  bool remove(NodeId id, ZoneKey zone);  // false when not found
  // Re-files the node when its zone changed (removed, then added at the end of the new zone).
  void update(NodeId id, ZoneKey old_zone, ZoneKey new_zone);
  // Round-robin over the zones: the first node of every zone, then the second, ...
  std::vector<NodeId> list() const;
  size_t size() const { return num_nodes_; }
  size_t zone_count() const { return zones_.size(); }
  // The nodes of one zone in order (empty when the zone does not exist).
  std::vector<NodeId> zone_nodes(ZoneKey zone) const;

 private:
  struct Zone {
    ZoneKey key;
    std::vector<NodeId> nodes;
  };
  std::vector<Zone> zones_;  // in the order they appeared
  size_t num_nodes_ = 0;
};

// A scheduler's node list for a ClusterState (upstream's snapshot nodeInfoList): the tree's list,
// rebuilt when nodes were added or removed. A node whose zone changed is re-filed in the tree at
// once, but the list keeps its order until the next addition or removal, as upstream's
// UpdateSnapshot rebuilds the list only then. Changes are found through ClusterState::node_epoch
// (removals are applied before additions when several happened between two calls).
class NodeOrder {
 public:
  const std::vector<NodeId>& get(const ClusterState& st);

 private:
  NodeTree tree_;
  std::vector<ZoneKey> zone_of_;  // per NodeId in the tree
  std::vector<uint8_t> in_tree_;
  std::vector<NodeId> list_;
  uint64_t epoch_ = ~uint64_t{0};
  bool built_ = false;
};

}  // namespace orrery::fw
