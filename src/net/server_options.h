// Options of orrery's servers, without the HTTP library: limits and TLS files (what each means:
// net/http_server.h; the defaults per server: docs/RELIABILITY.md).
#pragma once

#include <cstddef>
#include <string>

namespace orrery::net {

struct HttpLimits {
  size_t max_body_bytes = 64 * 1024;
  int read_timeout_s = 10;
  int write_timeout_s = 10;
  int idle_timeout_s = 5;
  int keep_alive_max = 100;
  int threads = 4;
  int max_queued = 64;
};

struct ServerTls {
  std::string cert_file;       // PEM certificate (chain); "" = plaintext
  std::string key_file;        // PEM private key
  std::string client_ca_file;  // PEM CA bundle; "" = no client certificates required
  bool enabled() const { return !cert_file.empty(); }
};

// The /healthz, /readyz and /metrics endpoints (GET only; kubelet probes and Prometheus):
// 64 KiB bodies, 5 s read, 10 s write, 5 s idle, 4 threads, 64 queued connections.
inline HttpLimits metrics_limits() {
  HttpLimits l;
  l.read_timeout_s = 5;
  return l;
}

}  // namespace orrery::net
