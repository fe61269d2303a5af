// The long-running CARICO processes behind `orrery aggregator` and `orrery agent`. Both stop
// cleanly when `stop` becomes true (the CLI sets it from SIGTERM/SIGINT).
//
//   run_aggregator  the gRPC AggregatorServer on `listen`, plus Prometheus metrics over HTTP on
//                   `metrics_listen` (cpp-httplib; GET /metrics) when given
//   run_agent       polls its TelemetrySource at `hz`, runs the NodeAgent pipeline and submits
//                   every batch's subspace and report; an unreachable aggregator is logged and
//                   retried with backoff (100 ms doubling to 5 s) while polling goes on, and
//                   the next successful Submit re-registers the node (a restarted aggregator
//                   learns it again)
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "policies/carico/agent.h"
#include "policies/carico/rpc/client.h"
#include "policies/carico/rpc/server.h"
#include "policies/carico/telemetry_source.h"

namespace orrery::carico::rpc {

struct AggregatorProcessOptions {
  std::string listen;
  std::string metrics_listen;  // "" = none
  int rank = 2;
  AggregatorServerOptions server;  // TLS and limits of the gRPC server
  bool insecure = false;           // allow plaintext gRPC on a non-loopback address
  // Called once both servers listen, with the bound gRPC and metrics ports.
  std::function<void(int grpc_port, int metrics_port)> on_ready;
};
int run_aggregator(const AggregatorProcessOptions& o, const std::atomic<bool>& stop);

struct AgentProcessOptions {
  std::string aggregator;
  std::string node;
  AgentOptions agent;
  ClientTls tls;          // TLS towards the aggregator (--ca-file, --cert-file, --key-file)
  bool insecure = false;  // allow plaintext to a non-loopback aggregator
  // Seconds on the agent's clock (default: a monotonic clock from start). Tests inject jumps;
  // the aggregator never reads the agent's clock (it ages reports by its own receipt time).
  std::function<double()> clock;
};
int run_agent(const AgentProcessOptions& o, TelemetrySource& source, const std::atomic<bool>& stop);

// "HOST:PORT" → (host, port); throws InputError naming `flag` when malformed.
std::pair<std::string, int> split_host_port(const std::string& text, const std::string& flag);

}  // namespace orrery::carico::rpc
