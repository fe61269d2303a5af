// The CARICO Aggregation Server as a gRPC service (thesis §4.3, Fig. 4.10): Submit enqueues the
// agent's subspace, records its report and returns the latest global subspace at once; one
// background thread merges the queue (AggregatorCore::drain); Table serves the per-node table.
// Malformed requests are answered INVALID_ARGUMENT and logged; requests larger than
// kMaxMessageBytes are refused by gRPC (RESOURCE_EXHAUSTED). shutdown() stops accepting calls,
// finishes those in flight and joins the merge thread.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "net/server_options.h"
#include "obs/metrics.h"
#include "policies/carico/aggregator_core.h"

namespace grpc {
class Server;
}

namespace orrery::carico::rpc {

// Transport and limits of the gRPC server (docs/RELIABILITY.md, "Server limits and security").
struct AggregatorServerOptions {
  net::ServerTls tls;                 // TLS when cert_file is set; mutual TLS with client_ca_file
  int handshake_timeout_ms = 10'000;  // a connection that has not finished its TLS/HTTP2
                                      // handshake by then is closed
  int max_connection_idle_ms = 300'000;  // idle connections closed (clients reconnect)
  int max_concurrent_streams = 64;       // calls in flight per connection
  int max_threads = 16;                  // gRPC's thread quota for this server
};

class AggregatorServer {
 public:
  // `metrics` may be null.
  AggregatorServer(int rank, obs::Registry* metrics);
  ~AggregatorServer();
  // Binds HOST:PORT (port 0: an ephemeral port). Returns the bound port; throws
  // std::runtime_error when it cannot listen.
  int start(const std::string& listen, const AggregatorServerOptions& options = {});
  void shutdown();
  AggregatorCore& core() { return core_; }

 private:
  class Service;
  void merge_loop();
  AggregatorCore core_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  std::thread merger_;
  std::atomic<bool> stop_{false};
  obs::Counter* merges_ = nullptr;
};

// Seconds on a monotonic clock (ages in the table).
double mono_now_s();

}  // namespace orrery::carico::rpc
