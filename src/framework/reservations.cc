#include "framework/reservations.h"

#include <algorithm>

namespace orrery::fw {

ReservationId Reservations::add(Reservation r) {
  const ReservationId id = next_id_++;
  const Key key{r.holder, id};
  by_key_.emplace(key, std::move(r));
  key_of_.emplace(id, key);
  ++version_;
  return id;
}

void Reservations::remove(ReservationId id) {
  auto it = key_of_.find(id);
  if (it == key_of_.end()) return;
  auto r = by_key_.find(it->second);
  const Reservation gone = std::move(r->second);
  if (gone.kind == ReservationKind::kNomination) {
    auto n = nomination_of_.find(gone.holder);
    if (n != nomination_of_.end() && n->second == id) nomination_of_.erase(n);
  }
  by_key_.erase(r);
  key_of_.erase(it);
  ++version_;
  if (gone.kind != ReservationKind::kNomination)
    for (Listener* l : std::vector<Listener*>(listeners_)) l->on_released(gone);
}

void Reservations::remove_owned(ReservationKind kind, uint64_t owner) {
  std::vector<ReservationId> drop;
  for (const auto& [key, r] : by_key_)
    if (r.kind == kind && r.owner == owner) drop.push_back(key.second);
  for (ReservationId id : drop) remove(id);
}

void Reservations::nominate(uint64_t serial, PodId pod, NodeId node, int32_t priority) {
  clear_nomination(serial);
  Reservation r;
  r.kind = ReservationKind::kNomination;
  r.node = node;
  r.holder = serial;
  r.pod = pod;
  r.priority = priority;
  nomination_of_[serial] = add(std::move(r));
}

NodeId Reservations::nominated_node(uint64_t serial) const {
  auto it = nomination_of_.find(serial);
  if (it == nomination_of_.end()) return kNoNode;
  return by_key_.at(key_of_.at(it->second)).node;
}

void Reservations::clear_nomination(uint64_t serial) {
  auto it = nomination_of_.find(serial);
  if (it != nomination_of_.end()) remove(it->second);
}

const Reservation* Reservations::nomination(uint64_t serial) const {
  auto it = nomination_of_.find(serial);
  return it == nomination_of_.end() ? nullptr : &by_key_.at(key_of_.at(it->second));
}

std::vector<uint64_t> Reservations::nominations_on(NodeId node, int32_t below) const {
  std::vector<uint64_t> out;
  for (const auto& [serial, id] : nomination_of_) {  // std::map: ascending serials
    const Reservation& r = by_key_.at(key_of_.at(id));
    if (r.node == node && r.priority < below) out.push_back(serial);
  }
  return out;
}

void Reservations::remove_listener(Listener* l) {
  listeners_.erase(std::remove(listeners_.begin(), listeners_.end(), l), listeners_.end());
}

void Reservations::forget_pod(uint64_t serial) {
  std::vector<ReservationId> drop;
  for (auto it = by_key_.lower_bound({serial, 0}); it != by_key_.end() && it->first.first == serial;
       ++it)
    drop.push_back(it->first.second);
  for (ReservationId id : drop) remove(id);
}

void Reservations::forget_node(NodeId node) {
  std::vector<ReservationId> drop;
  for (const auto& [key, r] : by_key_)
    if (r.node == node) drop.push_back(key.second);
  for (ReservationId id : drop) remove(id);
}

void Reservations::apply(ClusterState& st, uint64_t serial, int32_t priority, NodeId only_node,
                         Applied* applied) const {
  for (const auto& [key, r] : by_key_) {
    if (r.holder == serial && serial != 0) continue;
    if (r.priority < priority) continue;
    if (only_node != kNoNode && r.node != only_node) continue;
    if (!st.node_alive(r.node)) continue;
    if (r.pod != kNoPod) {
      if (!st.pod_alive(r.pod) || st.pod_serial(r.pod) != r.holder) continue;
      if (st.pod_node(r.pod) != kNoNode) continue;
      st.assign(r.pod, r.node);
      applied->pods.push_back(r.pod);
    } else if (r.spec) {
      st.hold_room(r.node, *r.spec);
      applied->held.push_back({r.node, r.spec.get()});
    }
  }
}

void Reservations::release(ClusterState& st, const Applied& applied) {
  for (auto it = applied.held.rbegin(); it != applied.held.rend(); ++it)
    st.release_room(it->first, *it->second);
  for (auto it = applied.pods.rbegin(); it != applied.pods.rend(); ++it) st.unassign(*it);
}

}  // namespace orrery::fw
