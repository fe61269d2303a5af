#include "framework/node_tree.h"

#include <algorithm>

namespace orrery::fw {

ZoneKey zone_key(const Node& node) {
  static const StrId kBetaZone = intern("failure-domain.beta.kubernetes.io/zone");
  static const StrId kZone = intern("topology.kubernetes.io/zone");
  static const StrId kBetaRegion = intern("failure-domain.beta.kubernetes.io/region");
  static const StrId kRegion = intern("topology.kubernetes.io/region");
  ZoneKey k;
  auto zone = node.labels.get(kBetaZone);
  if (!zone) zone = node.labels.get(kZone);
  auto region = node.labels.get(kBetaRegion);
  if (!region) region = node.labels.get(kRegion);
  k.zone = zone.value_or(kNoStr);
  k.region = region.value_or(kNoStr);
  return k;
}

void NodeTree::add(NodeId id, ZoneKey zone) {
  for (Zone& z : zones_) {
    if (!(z.key == zone)) continue;
    if (std::find(z.nodes.begin(), z.nodes.end(), id) != z.nodes.end()) return;
    z.nodes.push_back(id);
    ++num_nodes_;
    return;
  }
  zones_.push_back({zone, {id}});
  ++num_nodes_;
}

bool NodeTree::remove(NodeId id, ZoneKey zone) {
  for (size_t i = 0; i < zones_.size(); ++i) {
    Zone& z = zones_[i];
    if (!(z.key == zone)) continue;
    auto it = std::find(z.nodes.begin(), z.nodes.end(), id);
    if (it == z.nodes.end()) return false;
    z.nodes.erase(it);
    if (z.nodes.empty()) zones_.erase(zones_.begin() + static_cast<std::ptrdiff_t>(i));
    --num_nodes_;
    return true;
  }
  return false;
}

void NodeTree::update(NodeId id, ZoneKey old_zone, ZoneKey new_zone) {
  if (old_zone == new_zone) return;
  remove(id, old_zone);  // whether or not it was there, as upstream
  add(id, new_zone);
}

std::vector<NodeId> NodeTree::list() const {
  std::vector<NodeId> out;
  out.reserve(num_nodes_);
  for (size_t index = 0; out.size() < num_nodes_; ++index) {
    bool any = false;
    for (const Zone& z : zones_) {
      if (index >= z.nodes.size()) continue;
      out.push_back(z.nodes[index]);
      any = true;
    }
    if (!any) break;  // cannot happen: num_nodes_ counts the zones' nodes
  }
  return out;
}

std::vector<NodeId> NodeTree::zone_nodes(ZoneKey zone) const {
  for (const Zone& z : zones_)
    if (z.key == zone) return z.nodes;
  return {};
}

const std::vector<NodeId>& NodeOrder::get(const ClusterState& st) {
  if (built_ && epoch_ == st.node_epoch()) return list_;
  bool changed = !built_;
  for (NodeId id = 0; id < in_tree_.size(); ++id) {
    if (in_tree_[id] && !st.node_alive(id)) {
      tree_.remove(id, zone_of_[id]);
      in_tree_[id] = 0;
      changed = true;
    }
  }
  in_tree_.resize(st.node_slots(), 0);
  zone_of_.resize(st.node_slots());
  for (NodeId id : st.nodes()) {  // ascending ids: the order nodes were added
    const ZoneKey k = zone_key(st.node(id));
    if (!in_tree_[id]) {
      tree_.add(id, k);
      in_tree_[id] = 1;
      zone_of_[id] = k;
      changed = true;
    } else if (!(zone_of_[id] == k)) {
      tree_.update(id, zone_of_[id], k);
      zone_of_[id] = k;
    }
  }
  if (changed) list_ = tree_.list();
  built_ = true;
  epoch_ = st.node_epoch();
  return list_;
}

}  // namespace orrery::fw
