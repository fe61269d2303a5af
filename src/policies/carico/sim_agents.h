// CARICO's node agents simulated inside any runtime that offers fw::NodeTelemetry (the
// simulator's execution model), as the CapacityFeed the plugin reads. No simulator header: the
// agents live on the runtime's clock and read the telemetry service only.
//
// Every 1/hz a timer polls every node through a NodeTelemetrySource (utilisation and pressure
// from cumulative counters, like /proc; memory from the node's usage) and feeds its NodeAgent.
// A node's reading adds the node's own idle load (`idle_cpu`, `idle_mem`: the OS and kubelet
// of a real node, which also gives an idle node a non-zero σ1) and seeded Gaussian noise
// (`noise`, one Rng stream per node). A completed batch submits the local subspace to one
// in-process AggregatorCore and gets the global subspace back; its report (Pod-Capacity, k,
// pods) reaches the scheduler `report_delay` later. A pod bound to a node opens that node's churn
// window (the container runtime's early warning of §4.2.4).
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/rng.h"
#include "framework/backend.h"
#include "framework/clock.h"
#include "framework/runtime.h"
#include "framework/telemetry.h"
#include "policies/carico/agent.h"
#include "policies/carico/aggregator_core.h"
#include "policies/carico/capacity_feed.h"

namespace orrery::carico {

// Telemetry of one node from fw::NodeTelemetry: CPU utilisation = Δcpu_seconds / (Δt·cores),
// pressure = Δstall_seconds / Δt, memory = used / capacity.
class NodeTelemetrySource : public TelemetrySource {
 public:
  NodeTelemetrySource(const fw::NodeTelemetry& t, NodeId node) : t_(t), node_(node) {}
  std::optional<RawSample> read(double now_s, std::string* problem) override;
  std::string describe() const override { return "simulated node telemetry"; }

 private:
  const fw::NodeTelemetry& t_;
  NodeId node_;
  double last_t_ = -1, last_cpu_ = 0, last_stall_ = 0;
};

// A fault: the aggregator is down during [from, to). Agents keep polling and serving their
// local model; their submits fail and their reports are lost (not buffered: only a node's
// latest report matters, and an old one replayed late would look fresh). The scheduler's
// reports go stale and CaricoCapacity filters the nodes as stale (pods wait Pending). At `to`
// the aggregator restarts empty (no global subspace) and agents re-register on their next
// report, as a restarted `orrery aggregator` does.
struct AggregatorOutage {
  Time from = 0, to = 0;
};

struct SimAgentOptions {
  AgentOptions agent;
  Time report_delay = 50 * kMs;
  double idle_cpu = 0.03, idle_mem = 0.10, noise = 0.005;
  std::vector<AggregatorOutage> aggregator_outages;
};

class SimulatedAgents : public CapacityFeed, public fw::TimerTarget, public fw::EventListener {
 public:
  SimulatedAgents(fw::Runtime& rt, const fw::NodeTelemetry& telemetry, SimAgentOptions options,
                  uint64_t seed);
  ~SimulatedAgents() override;
  void start();

  std::optional<NodeCapacity> capacity(const ClusterState& state, NodeId node,
                                       Time now_us) const override;
  void on_timer(uint64_t tag) override;
  void on_event(const fw::ClusterEvent& e) override;

  const AggregatorCore& aggregator() const { return *agg_; }
  // Reports lost to aggregator outages, and aggregator restarts.
  uint64_t lost_reports() const { return lost_reports_; }
  uint64_t aggregator_restarts() const { return restarts_; }
  const NodeAgent* agent(NodeId node) const {
    return node < nodes_.size() && nodes_[node] ? &nodes_[node]->agent : nullptr;
  }

 private:
  enum Tag : uint64_t { kPoll = 0, kDeliver = 1 };
  struct PerNode {
    PerNode(const fw::NodeTelemetry& t, NodeId n, const AgentOptions& o, Rng r)
        : source(t, n), agent(o), rng(r) {}
    NodeTelemetrySource source;
    NodeAgent agent;
    Rng rng;
    std::optional<NodeStatus> delivered;
    Time reported_at = 0;
  };
  struct Pending {
    Time at;
    NodeId node;
    NodeStatus status;
    Time made;
  };
  PerNode* ensure(NodeId node);
  void poll();
  bool aggregator_down(Time now);  // restarts the aggregator when an outage has ended

  fw::Runtime& rt_;
  const fw::NodeTelemetry& tel_;
  SimAgentOptions opt_;
  uint64_t seed_;
  std::unique_ptr<AggregatorCore> agg_;
  bool was_down_ = false;
  uint64_t lost_reports_ = 0, restarts_ = 0;
  std::vector<std::unique_ptr<PerNode>> nodes_;
  std::deque<Pending> pending_;
  Time period_;
};

}  // namespace orrery::carico
