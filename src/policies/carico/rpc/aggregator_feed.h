// The CapacityFeed of a real process (`orrery serve`): polls the aggregator's Table every
// `poll_interval` on the runtime's clock (a unary call with a short deadline) and answers the
// plugin from the latest table, matching nodes by name. A report's age is the aggregator's age
// plus the time since the poll, so an unreachable aggregator makes every node stale in
// staleAfter rather than freezing old numbers.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "framework/clock.h"
#include "policies/carico/capacity_feed.h"
#include "policies/carico/rpc/client.h"

namespace orrery::carico::rpc {

class AggregatorFeed : public CapacityFeed, public fw::TimerTarget {
 public:
  AggregatorFeed(fw::Clock& clock, const std::string& target, const ClusterState& state,
                 Time poll_interval = 500 * kMs, const ClientTls& tls = {});
  ~AggregatorFeed() override;
  void start();
  std::optional<NodeCapacity> capacity(const ClusterState& state, NodeId node,
                                       Time now_us) const override;
  void on_timer(uint64_t tag) override;

 private:
  fw::Clock& clock_;
  const ClusterState& state_;
  Time interval_;
  std::unique_ptr<AggregatorClient> client_;
  struct Row {
    NodeCapacity c;
    Time fetched = 0;
  };
  std::map<std::string, Row, std::less<>> rows_;
  fw::TimerId timer_ = fw::kNoTimer;
  bool failing_ = false;
};

}  // namespace orrery::carico::rpc
