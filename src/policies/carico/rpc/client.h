// Clients of the aggregator: the agent's Submit (with reconnection backoff) and the table reader
// used by `orrery carico status` and the scheduler's AggregatorFeed.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "policies/carico/aggregator_core.h"
#include "policies/carico/subspace.h"

namespace orrery::carico::rpc {

class Channel;  // wraps the gRPC channel and stub (client.cc)

// TLS towards the aggregator: the CA that signed its certificate and, for mutual TLS, this
// client's certificate and key (PEM files). No CA file: plaintext.
struct ClientTls {
  std::string ca_file, cert_file, key_file;
  bool enabled() const { return !ca_file.empty(); }
};

class AggregatorClient {
 public:
  // Throws InputError when a TLS file cannot be read (naming --ca-file, --cert-file, --key-file).
  explicit AggregatorClient(const std::string& target, const ClientTls& tls = {});
  ~AggregatorClient();
  // One Submit with `deadline`. nullopt (with *error) on failure; the caller backs off.
  std::optional<Subspace> submit(const std::string& node, const Subspace& local,
                                 const NodeStatus& status, std::chrono::milliseconds deadline,
                                 std::string* error);
  std::optional<std::vector<NodeRow>> table(std::chrono::milliseconds deadline, std::string* error);

 private:
  std::unique_ptr<Channel> ch_;
};

// Exponential backoff: 100 ms doubling to 5 s, reset on success. A wait longer than the current
// delay means the clock went backwards: ready at once rather than after the jump.
class Backoff {
 public:
  bool ready(double now_s) const { return now_s >= next_s_ || next_s_ - now_s > delay_s_; }
  void failed(double now_s) {
    delay_s_ = delay_s_ == 0 ? 0.1 : std::min(5.0, delay_s_ * 2);
    next_s_ = now_s + delay_s_;
  }
  void succeeded() { delay_s_ = 0, next_s_ = 0; }
  double delay_s() const { return delay_s_; }

 private:
  double delay_s_ = 0, next_s_ = 0;
};

}  // namespace orrery::carico::rpc
