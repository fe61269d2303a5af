#include "policies/carico/rpc/aggregator_feed.h"

#include "obs/log.h"
#include "policies/carico/rpc/client.h"

namespace orrery::carico::rpc {

AggregatorFeed::AggregatorFeed(fw::Clock& clock, const std::string& target,
                               const ClusterState& state, Time poll_interval, const ClientTls& tls)
    : clock_(clock),
      state_(state),
      interval_(poll_interval),
      client_(std::make_unique<AggregatorClient>(target, tls)) {}

AggregatorFeed::~AggregatorFeed() { clock_.cancel(timer_); }

void AggregatorFeed::start() { timer_ = clock_.after(0, this, 0); }

void AggregatorFeed::on_timer(uint64_t) {
  std::string error;
  auto rows = client_->table(std::chrono::milliseconds(300), &error);
  const Time now = clock_.now_us();
  if (!rows) {
    if (!failing_) obs::warn("CARICO aggregator unreachable; node reports will go stale", {{"error", error}});
    failing_ = true;
  } else {
    if (failing_) obs::info("CARICO aggregator reachable again");
    failing_ = false;
    for (const NodeRow& r : *rows) {
      Row& row = rows_[r.node];
      row.c = {r.status.pod_capacity, r.status.capacity, r.status.pods, r.age_s};
      row.fetched = now;
      if (auto id = state_.find_node(r.node)) updated(*id);
    }
  }
  timer_ = clock_.after(interval_, this, 0);
}

std::optional<NodeCapacity> AggregatorFeed::capacity(const ClusterState& state, NodeId node,
                                                     Time now_us) const {
  auto it = rows_.find(state.node(node).name);
  if (it == rows_.end()) return std::nullopt;
  NodeCapacity c = it->second.c;
  c.age_s += to_seconds(std::max<Time>(0, now_us - it->second.fetched));
  return c;
}

}  // namespace orrery::carico::rpc
