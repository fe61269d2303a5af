// The CaricoCapacity scheduler plugin (thesis §3.6, §4.4): Filter, Score and Reserve on the
// nodes' Pod-Capacity, read from the runtime's carico::CapacityFeed service.
//
//   Filter   removes nodes with Pod-Capacity − reserved < 1 ("node(s) had no CARICO capacity"),
//            nodes that never reported ("node(s) had no CARICO report") and nodes whose report is
//            older than staleAfter ("node(s) had a stale CARICO report (older than 3s)") — old
//            numbers are never used silently
//   Score    Pod-Capacity − reserved, normalised to 0–100 (100 for the largest)
//   Reserve  holds one pod of the node's Pod-Capacity in the runtime's fw::Reservations
//            (kind kCapacity, holder = the pod). Released when the pod leaves Pending (Running),
//            finishes, is deleted, fails to bind, or is unreserved by a later failed extension
//            point; any other removal of the reservation (e.g. the node going away) is noticed
//            through Reservations::Listener. With a clock, a pod that started Running keeps its
//            reservation until the node's first report made after it started: until then the
//            advertised Pod-Capacity does not include it, and releasing it at once would count
//            the pod nowhere (the "runaway train" of §2.3.10 in small)
//
// It reads no resource requests, so pods without requests are scheduled like any other.
// When a report makes a node usable again, the plugin releases a momentary capacity reservation
// on it so the scheduling queue retries waiting pods (capacity changes are not cluster events).
//
// Args (pluginConfig): staleAfter (duration, default 3s).
#pragma once

#include <map>
#include <vector>

#include "framework/clock.h"
#include "framework/plugin.h"
#include "framework/registry.h"
#include "framework/reservations.h"
#include "policies/carico/capacity_feed.h"

namespace orrery::carico {

inline constexpr const char* kPluginName = "CaricoCapacity";

struct PluginOptions {
  Time stale_after = 3 * kSecond;
};

class CaricoCapacity : public fw::Plugin, public fw::Reservations::Listener {
 public:
  // `feed` and `reservations` are the runtime's; neither may be null.
  CaricoCapacity(const CapacityFeed* feed, fw::Reservations* reservations,
                 PluginOptions options = {}, const fw::Clock* clock = nullptr);
  ~CaricoCapacity() override;

  std::string_view name() const override { return kPluginName; }
  uint32_t extension_points() const override { return fw::kFilter | fw::kScore | fw::kReserve; }
  size_t filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                fw::Rejections& rejections) override;
  void describe(const ClusterState& state, const fw::Rejection& r,
                std::vector<std::string>* reasons) const override;
  void score(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
             int64_t* scores) override;
  void normalize(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
                 int64_t* scores) override;
  fw::Status reserve(const fw::CycleContext& cycle, NodeId node) override;
  void unreserve(const fw::CycleContext& cycle, NodeId node) override;
  void on_event(const fw::ClusterEvent& event) override;
  uint64_t class_salt(const ClusterState&, PodId) const override { return 0; }
  void on_released(const fw::Reservation& r) override;

  int reserved(NodeId node) const {
    return node < reserved_.size() ? reserved_[node] : 0;
  }
  size_t reservations_held() const { return held_.size(); }
  // What the plugin would use for `node` now: Pod-Capacity − reserved, or nullopt (no/stale report).
  std::optional<double> available(const ClusterState& state, NodeId node, Time now_us) const;

 private:
  enum Code : uint16_t { kNoCapacity = 0, kNoReport = 1, kStale = 2 };
  void release(uint64_t serial);
  void nudge(NodeId node);

  const CapacityFeed* feed_;
  fw::Reservations* res_;
  PluginOptions opt_;
  struct Held {
    fw::ReservationId id;
    NodeId node;
    Time running_at = kForever;  // when the pod started running (held until a later report)
  };
  void report_arrived(NodeId node);
  const fw::Clock* clock_;
  std::map<uint64_t, Held> held_;  // pod serial → reservation
  std::vector<int> reserved_;                                      // per node
  std::vector<uint8_t> blocked_;  // per node: the last filter rejected it
  const ClusterState* state_ = nullptr;
  Time last_now_ = 0;
  bool nudging_ = false;
};

// Registers CaricoCapacity; its factory finds the CapacityFeed in the handle's runtime services
// and fails with a clear message when the world provides none.
void register_carico_plugins(fw::PluginRegistry& registry);

}  // namespace orrery::carico
