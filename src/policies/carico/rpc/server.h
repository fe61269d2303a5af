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

#include "obs/metrics.h"
#include "policies/carico/aggregator_core.h"

namespace grpc {
class Server;
}

namespace orrery::carico::rpc {

class AggregatorServer {
 public:
  // `metrics` may be null.
  AggregatorServer(int rank, obs::Registry* metrics);
  ~AggregatorServer();
  // Binds HOST:PORT (port 0: an ephemeral port). Returns the bound port; throws
  // std::runtime_error when it cannot listen.
  int start(const std::string& listen);
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
