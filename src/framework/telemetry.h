// Per-node resource telemetry: the simulated counterpart of what a node agent reads from /proc
// (CPU and memory actually in use, CPU pressure). Policies that read telemetry (CARICO) depend on
// this narrow interface only, asked from the runtime's services (Services::get<NodeTelemetry>).
// The simulator (sim::SimBackend) implements it from its execution model; CARICO's node agents
// will implement it from /proc.
#pragma once

#include <cstdint>

#include "core/cluster_state.h"

namespace orrery::fw {

class NodeTelemetry {
 public:
  virtual ~NodeTelemetry() = default;
  virtual int64_t cpu_capacity_milli(NodeId node) const = 0;
  // Σ actual CPU demand of the pods running on the node (may exceed the capacity).
  virtual int64_t cpu_demand_milli(NodeId node) const = 0;
  // CPU the node actually delivers: min(demand, capacity); 0 while the node is down.
  virtual int64_t cpu_used_milli(NodeId node) const = 0;
  virtual int64_t memory_capacity(NodeId node) const = 0;
  virtual int64_t memory_used(NodeId node) const = 0;
  // Fraction of the demand that has to wait for a CPU: 1 - min(1, capacity / demand). The
  // analogue of PSI "cpu some" pressure for a processor-sharing node.
  virtual double cpu_pressure(NodeId node) const = 0;
  virtual int running_pods(NodeId node) const = 0;
  // Cumulative counters since the start (like /proc/stat and /proc/pressure/cpu "some" total):
  // core-seconds of CPU used, and seconds during which some CPU demand had to wait. A policy
  // sampling them every T gets exact averages over each window: Δcpu / T, Δstall / T.
  virtual double cpu_seconds_total(NodeId node) const = 0;
  virtual double cpu_stall_seconds_total(NodeId node) const = 0;
};

}  // namespace orrery::fw
