// orrery's cpp-httplib servers (the extender, `serve`'s /healthz+/metrics, the aggregator's
// /metrics) are built here so every one gets limits and, when asked, TLS:
//
//   max_body_bytes     request bodies beyond it are refused with 413 before they are read
//   read/write timeout a connection that sends nothing (or cannot take the reply) for that long
//                      is closed — a request trickling its headers in cannot hold a thread for
//                      longer than read_timeout per stalled read
//   idle_timeout       a keep-alive connection idle that long is closed; at most
//                      keep_alive_max requests per connection
//   threads            connections served at once; max_queued more wait for a thread; beyond
//                      that the accept loop stops accepting (the kernel backlog holds the rest),
//                      so connections cannot pile up in memory without bound
//   TLS                cert + key (PEM, chain allowed), TLS 1.2 or later; with a client CA every
//                      client must present a certificate it signed (mutual TLS)
#pragma once

#include <httplib.h>

#include <array>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "net/server_options.h"

namespace orrery::net {

// A thread pool whose queue is bounded: enqueue() blocks while `max_queued` tasks wait.
class BoundedPool : public httplib::TaskQueue {
 public:
  BoundedPool(size_t threads, size_t max_queued);
  ~BoundedPool() override;
  void enqueue(std::function<void()> fn) override;
  void shutdown() override;
  size_t queued() const;

 private:
  void work();
  const size_t max_queued_;
  mutable std::mutex mu_;
  std::condition_variable has_work_, has_room_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::thread> threads_;
  bool stop_ = false;
};

// A server (an SSLServer when tls.enabled()) with `limits` applied. `flags` names the TLS flags
// in errors: {cert, key, client CA}. Throws InputError when a file cannot be read or the
// certificate and key do not load or match (the message names the file, never its content).
// Sets SIGPIPE to ignored for the process (a peer hanging up mid-TLS-write must not kill it).
std::unique_ptr<httplib::Server> make_http_server(const ServerTls& tls, const HttpLimits& limits,
                                                  const std::array<std::string, 3>& flags = {
                                                      "--tls-cert-file", "--tls-private-key-file",
                                                      "--client-ca-file"});

// The limits applied to an existing server (make_http_server does this).
void apply_limits(httplib::Server& server, const HttpLimits& limits);

}  // namespace orrery::net
