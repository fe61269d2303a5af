#include "policies/carico/plugin.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "framework/handle.h"
#include "framework/runtime.h"
#include "io/distribution_reader.h"

namespace orrery::carico {

CaricoCapacity::CaricoCapacity(const CapacityFeed* feed, fw::Reservations* reservations,
                               PluginOptions options, const fw::Clock* clock)
    : feed_(feed), res_(reservations), opt_(options), clock_(clock) {
  res_->add_listener(this);
  const_cast<CapacityFeed*>(feed_)->on_update([this](NodeId n) {
    report_arrived(n);
    if (n < blocked_.size() && blocked_[n] && state_) {
      const auto a = available(*state_, n, last_now_);
      if (a && *a >= 1) nudge(n);
    }
  });
}

CaricoCapacity::~CaricoCapacity() { res_->remove_listener(this); }

std::optional<double> CaricoCapacity::available(const ClusterState& state, NodeId node,
                                                Time now_us) const {
  const auto c = feed_->capacity(state, node, now_us);
  if (!c || c->age_s * kSecond > opt_.stale_after) return std::nullopt;
  return c->pod_capacity - reserved(node);
}

size_t CaricoCapacity::filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                              fw::Rejections& rejections) {
  state_ = &cycle.state;
  last_now_ = cycle.now_us;
  if (blocked_.size() < cycle.state.node_slots()) blocked_.resize(cycle.state.node_slots());
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    const NodeId node = nodes[i];
    const auto c = feed_->capacity(cycle.state, node, cycle.now_us);
    Code code;
    if (!c) {
      code = kNoReport;
    } else if (c->age_s * kSecond > opt_.stale_after) {
      code = kStale;
    } else if (c->pod_capacity - reserved(node) < 1) {
      code = kNoCapacity;
    } else {
      blocked_[node] = 0;
      nodes[kept++] = node;
      continue;
    }
    blocked_[node] = 1;
    rejections.add(node, code, 0, false);
  }
  return kept;
}

void CaricoCapacity::describe(const ClusterState&, const fw::Rejection& r,
                              std::vector<std::string>* reasons) const {
  switch (r.code) {
    case kNoCapacity: reasons->push_back("node(s) had no CARICO capacity"); break;
    case kNoReport: reasons->push_back("node(s) had no CARICO report"); break;
    default: {
      char buf[96];
      std::snprintf(buf, sizeof buf, "node(s) had a stale CARICO report (older than %gs)",
                    to_seconds(opt_.stale_after));
      reasons->push_back(buf);
    }
  }
}

void CaricoCapacity::score(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
                           int64_t* scores) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto a = available(cycle.state, nodes[i], cycle.now_us);
    scores[i] = a ? static_cast<int64_t>(std::llround(std::max(0.0, *a) * 1000)) : 0;
  }
}

void CaricoCapacity::normalize(const fw::CycleContext&, std::span<const NodeId> nodes,
                               int64_t* scores) {
  int64_t hi = 0;
  for (size_t i = 0; i < nodes.size(); ++i) hi = std::max(hi, scores[i]);
  for (size_t i = 0; i < nodes.size(); ++i)
    scores[i] = hi > 0 ? scores[i] * fw::kMaxNodeScore / hi : 0;
}

fw::Status CaricoCapacity::reserve(const fw::CycleContext& cycle, NodeId node) {
  const uint64_t serial = cycle.state.pod_serial(cycle.pod_id);
  release(serial);  // a pod holds at most one
  fw::Reservation r;
  r.kind = fw::ReservationKind::kCapacity;
  r.node = node;
  r.holder = serial;
  r.pod = cycle.pod_id;
  r.owner = reinterpret_cast<uintptr_t>(this);
  const fw::ReservationId id = res_->add(r);
  held_[serial] = Held{id, node};
  if (reserved_.size() <= node) reserved_.resize(node + 1);
  ++reserved_[node];
  return fw::Status::ok();
}

void CaricoCapacity::unreserve(const fw::CycleContext& cycle, NodeId) {
  release(cycle.state.pod_serial(cycle.pod_id));
}

void CaricoCapacity::release(uint64_t serial) {
  auto it = held_.find(serial);
  if (it == held_.end()) return;
  const fw::ReservationId id = it->second.id;
  const NodeId node = it->second.node;
  held_.erase(it);
  --reserved_[node];
  res_->remove(id);  // on_released finds nothing left to do
}

void CaricoCapacity::on_released(const fw::Reservation& r) {
  if (r.kind != fw::ReservationKind::kCapacity || r.owner != reinterpret_cast<uintptr_t>(this))
    return;
  auto it = held_.find(r.holder);
  if (it == held_.end()) return;
  --reserved_[it->second.node];
  held_.erase(it);
}

void CaricoCapacity::on_event(const fw::ClusterEvent& e) {
  switch (e.kind) {
    case fw::EventKind::kPodRunning:
      if (clock_) {
        auto it = held_.find(e.pod_serial);
        if (it != held_.end()) it->second.running_at = e.time_us;
        break;
      }
      release(e.pod_serial);
      break;
    case fw::EventKind::kPodFinished:
    case fw::EventKind::kPodDeleted:
    case fw::EventKind::kPodBindFailed: release(e.pod_serial); break;
    default: break;
  }
}

void CaricoCapacity::report_arrived(NodeId node) {
  if (!clock_ || !state_ || held_.empty()) return;
  const Time now = clock_->now_us();
  const auto c = feed_->capacity(*state_, node, now);
  if (!c) return;
  const Time made = now - static_cast<Time>(c->age_s * kSecond);
  std::vector<uint64_t> done;
  for (const auto& [serial, h] : held_)
    if (h.node == node && h.running_at <= made) done.push_back(serial);
  for (uint64_t s : done) release(s);
}

void CaricoCapacity::nudge(NodeId node) {
  if (nudging_) return;
  nudging_ = true;
  blocked_[node] = 0;
  fw::Reservation r;
  r.kind = fw::ReservationKind::kCapacity;
  r.node = node;
  r.owner = 0;  // not ours: on_released ignores it
  res_->remove(res_->add(r));
  nudging_ = false;
}

void register_carico_plugins(fw::PluginRegistry& registry) {
  registry.add(kPluginName, [](const fw::PluginArgs& a) -> std::unique_ptr<fw::Plugin> {
    PluginOptions o;
    if (a.args.defined()) {
      a.args.expect_map();
      for (const std::string& k : a.args.keys())
        if (k != "staleAfter") a.args.child(k).fail("unknown field (expected staleAfter)");
      if (a.args.has("staleAfter")) o.stale_after = parse_duration(a.args.child("staleAfter"));
    }
    if (!a.handle || !a.handle->has_runtime())
      throw InputError(std::string(kPluginName) + " needs a runtime (it reads the CARICO capacity feed)");
    fw::Runtime& rt = a.handle->runtime();
    auto* feed = rt.services.find<CapacityFeed>();
    if (!feed)
      throw InputError(std::string(kPluginName) +
                       ": this runtime provides no CARICO capacity feed (simulated agents need "
                       "node telemetry; a real cluster needs the aggregator's address)");
    return std::make_unique<CaricoCapacity>(feed, &rt.reservations, o, &rt.clock);
  });
}

}  // namespace orrery::carico
