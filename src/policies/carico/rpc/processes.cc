#include "policies/carico/rpc/processes.h"

#include <httplib.h>

#include <chrono>
#include <thread>

#include "core/error.h"
#include "net/http_server.h"
#include "net/transport_security.h"
#include "obs/log.h"
#include "obs/metrics.h"
#include "policies/carico/rpc/client.h"
#include "policies/carico/rpc/server.h"

namespace orrery::carico::rpc {

std::pair<std::string, int> split_host_port(const std::string& text, const std::string& flag) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    throw InputError(flag + ": expected HOST:PORT, got \"" + text + "\"");
  const std::string port = text.substr(colon + 1);
  if (port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5 ||
      std::stoi(port) > 65535)
    throw InputError(flag + ": port must be a number in [0, 65535], got \"" + port + "\"");
  std::string host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return {host, std::stoi(port)};
}

int run_aggregator(const AggregatorProcessOptions& o, const std::atomic<bool>& stop) {
  const std::string host = split_host_port(o.listen, "--listen").first;
  const net::ServerTls& tls = o.server.tls;
  if (tls.cert_file.empty() != tls.key_file.empty())
    throw InputError("--tls-cert-file and --tls-private-key-file go together");
  if (!tls.client_ca_file.empty() && !tls.enabled())
    throw InputError("--client-ca-file needs --tls-cert-file and --tls-private-key-file");
  net::check_server_plaintext("CARICO aggregator", "--listen", host, tls.enabled(), o.insecure);
  obs::Registry registry;
  AggregatorServer server(o.rank, &registry);
  int port = 0;
  try {
    port = server.start(o.listen, o.server);
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError(std::string("--listen: ") + e.what());
  }
  obs::info("aggregator listening", {{"address", o.listen},
                                     {"port", std::to_string(port)},
                                     {"tls", !tls.enabled()               ? "off"
                                             : tls.client_ca_file.empty() ? "on"
                                                                          : "mutual"}});
  auto owned_http = net::make_http_server({}, net::metrics_limits());
  httplib::Server& http = *owned_http;
  std::thread http_thread;
  int metrics_port = 0;
  if (!o.metrics_listen.empty()) {
    const auto [host, mport] = split_host_port(o.metrics_listen, "--metrics-listen");
    http.Get("/metrics", [&registry](const httplib::Request&, httplib::Response& res) {
      res.set_content(registry.exposition(), obs::kExpositionContentType);
    });
    metrics_port = mport == 0 ? http.bind_to_any_port(host) : (http.bind_to_port(host, mport) ? mport : -1);
    if (metrics_port <= 0) {
      server.shutdown();
      throw InputError("--metrics-listen: cannot listen on " + o.metrics_listen);
    }
    http_thread = std::thread([&http] { http.listen_after_bind(); });
    obs::info("metrics listening", {{"address", o.metrics_listen}, {"port", std::to_string(metrics_port)}});
  }
  if (o.on_ready) o.on_ready(port, metrics_port);
  while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  obs::info("aggregator shutting down");
  if (http_thread.joinable()) {
    http.stop();
    http_thread.join();
  }
  server.shutdown();
  obs::info("aggregator stopped", {{"merges", std::to_string(server.core().merges())}});
  return 0;
}

int run_agent(const AgentProcessOptions& o, TelemetrySource& source, const std::atomic<bool>& stop) {
  const std::string host = split_host_port(o.aggregator, "--aggregator").first;
  net::check_client_plaintext("CARICO agent", "--aggregator", host, o.tls.enabled(), o.insecure);
  AggregatorClient client(o.aggregator, o.tls);
  obs::info("agent starting", {{"node", o.node},
                               {"aggregator", o.aggregator},
                               {"hz", std::to_string(o.agent.hz)},
                               {"source", source.describe()},
                               {"tls", !o.tls.enabled()          ? "off"
                                       : o.tls.cert_file.empty() ? "on"
                                                                 : "mutual"}});
  NodeAgent agent(o.agent);
  Backoff backoff;
  bool connected = false;
  uint64_t bad_samples = 0;
  std::string last_problem;
  const auto period = std::chrono::duration<double>(1.0 / o.agent.hz);
  auto next = std::chrono::steady_clock::now();
  const auto t0 = next;
  while (!stop) {
    next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);
    const double now_s =
        o.clock ? o.clock()
                : std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string problem, skipped;
    std::optional<RawSample> s = source.read(now_s, &problem);
    const auto report = agent.poll(now_s, s, -1, &skipped);
    if (!s || !skipped.empty()) {
      const std::string why = s ? skipped : problem;
      // Priming is expected once; other problems are logged when they change, and counted.
      if (why.rfind("priming", 0) != 0) {
        ++bad_samples;
        if (why != last_problem)
          obs::warn("skipped a sample; serving the last good signal",
                    {{"node", o.node}, {"reason", why}, {"skipped_total", std::to_string(bad_samples)}});
        last_problem = why;
      }
    }
    // A report comes every batch, bad samples included (they repeat the last good one).
    if (const auto& send = report; send && backoff.ready(now_s)) {
      std::string error;
      const NodeStatus st{send->pod_capacity, send->capacity, send->pods};
      auto global = client.submit(o.node, send->local, st, std::chrono::milliseconds(500), &error);
      if (global) {
        agent.set_global(std::move(*global));
        if (!connected) obs::info("registered with the aggregator", {{"node", o.node}});
        connected = true;
        backoff.succeeded();
      } else {
        backoff.failed(now_s);
        if (connected || backoff.delay_s() >= 5.0 || backoff.delay_s() == 0.1)
          obs::warn("aggregator unreachable; retrying with backoff",
                    {{"node", o.node}, {"error", error}, {"retry_in_s", std::to_string(backoff.delay_s())}});
        connected = false;
      }
    }
    std::this_thread::sleep_until(next);
    if (std::chrono::steady_clock::now() > next + std::chrono::seconds(1))
      next = std::chrono::steady_clock::now();  // fell far behind (suspended): do not burst
  }
  obs::info("agent stopped", {{"node", o.node}});
  return 0;
}

}  // namespace orrery::carico::rpc
