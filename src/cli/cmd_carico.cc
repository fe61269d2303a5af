// CARICO's processes and tools:
//   orrery aggregator --listen HOST:PORT [--metrics-listen HOST:PORT]
//                     [--tls-cert-file F --tls-private-key-file F [--client-ca-file F]]
//                     [--insecure]
//   orrery agent --aggregator HOST:PORT --node NAME [--source proc|replay:FILE] [--hz 10]
//                [--ca-file F [--cert-file F --key-file F]] [--insecure]
//   orrery carico status --aggregator HOST:PORT [-o json]
//                        [--ca-file F [--cert-file F --key-file F]]
//   orrery repro carico --out DIR [--quick]
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/sweep_flags.h"
#include "core/error.h"
#include "experiments/carico/repro.h"
#include "io/json.h"
#include "obs/log.h"
#include "policies/carico/proc_source.h"
#include "policies/carico/replay_source.h"
#include "policies/carico/rpc/client.h"
#include "policies/carico/rpc/processes.h"

namespace orrery::cli {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) {
  g_stop = true;
}

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
}

void set_level(const std::string& level) {
  try {
    obs::set_log_level(obs::parse_level(level));
  } catch (const std::invalid_argument&) {
    throw InputError("--log-level: expected debug, info, warn or error, got \"" + level + "\"");
  }
}

// --ca-file, --cert-file, --key-file of a client of the aggregator.
void add_client_tls(CLI::App* app, carico::rpc::ClientTls& tls) {
  app->add_option("--ca-file", tls.ca_file,
                  "TLS: the CA (PEM) that signed the aggregator's certificate");
  app->add_option("--cert-file", tls.cert_file, "Mutual TLS: this client's certificate (PEM)");
  app->add_option("--key-file", tls.key_file, "Mutual TLS: this client's private key (PEM)");
}

int status(const std::string& target, const std::string& output,
           const carico::rpc::ClientTls& tls) {
  if (output != "table" && output != "json")
    throw InputError("-o: expected json (or table, the default), got \"" + output + "\"");
  carico::rpc::split_host_port(target, "--aggregator");
  carico::rpc::AggregatorClient client(target, tls);
  std::string error;
  auto rows = client.table(std::chrono::milliseconds(2000), &error);
  if (!rows) {
    std::cerr << "orrery: error: cannot reach the CARICO aggregator at " << target << ": " << error
              << "\n";
    return 1;
  }
  if (output == "json") {
    Json nodes = Json::array();
    for (const auto& r : *rows)
      nodes.push_back({{"node", r.node},
                       {"pod_capacity", r.status.pod_capacity},
                       {"capacity", r.status.capacity},
                       {"pods", r.status.pods},
                       {"age_s", r.age_s}});
    std::cout << Json{{"nodes", nodes}}.dump() << "\n";
    return 0;
  }
  std::cout << fmt::format("{:<24} {:>12} {:>10} {:>6} {:>8}\n", "NODE", "POD-CAPACITY", "CAPACITY",
                           "PODS", "AGE");
  for (const auto& r : *rows)
    std::cout << fmt::format("{:<24} {:>12.2f} {:>10.3f} {:>6} {:>7.1f}s\n", r.node,
                             r.status.pod_capacity, r.status.capacity, r.status.pods, r.age_s);
  return 0;
}

// `orrery aggregator`: the CARICO aggregation server.
void register_aggregator(CLI::App& root, CommandTable& table) {
  auto o = std::make_shared<carico::rpc::AggregatorProcessOptions>();
  auto level = std::make_shared<std::string>("info");
  CLI::App* app = root.add_subcommand(
      "aggregator", "CARICO aggregation server (gRPC): merges node subspaces, serves capacities");
  app->add_option("--listen", o->listen, "HOST:PORT to serve gRPC on (port 0: any)")->required();
  app->add_option("--metrics-listen", o->metrics_listen,
                  "HOST:PORT to serve Prometheus metrics on (GET /metrics)");
  app->add_option("--log-level", *level, "debug, info, warn or error");
  app->add_option("--tls-cert-file", o->server.tls.cert_file,
                  "Serve gRPC over TLS with this PEM certificate");
  app->add_option("--tls-private-key-file", o->server.tls.key_file, "Its PEM private key");
  app->add_option("--client-ca-file", o->server.tls.client_ca_file,
                  "Require agent certificates signed by this CA (mutual TLS)");
  app->add_flag("--insecure", o->insecure,
                "Allow plaintext gRPC on a non-loopback --listen address");
  table.push_back({app, [o, level] {
                     set_level(*level);
                     install_stop_handlers();
                     return carico::rpc::run_aggregator(*o, g_stop);
                   }});
}

// `orrery agent`: the CARICO node agent.
void register_agent(CLI::App& root, CommandTable& table) {
  auto o = std::make_shared<carico::rpc::AgentProcessOptions>();
  auto source = std::make_shared<std::string>("proc");
  auto level = std::make_shared<std::string>("info");
  auto proc_root = std::make_shared<std::string>("/proc");
  auto cgroup_root = std::make_shared<std::string>("/sys/fs/cgroup");
  CLI::App* app = root.add_subcommand(
      "agent",
      "CARICO node agent: telemetry → local SVD → Pod-Capacity, reported to the aggregator");
  app->add_option("--aggregator", o->aggregator, "HOST:PORT of the aggregator")->required();
  app->add_option("--node", o->node, "This node's name (as the scheduler knows it)")->required();
  app->add_option("--source", *source, "proc (this machine's /proc) or replay:FILE (CSV)");
  app->add_option("--hz", o->agent.hz, "Polls per second (a report every 10 polls)")
      ->check(CLI::Range(0.1, 1000.0));
  app->add_option("--log-level", *level, "debug, info, warn or error");
  app->add_option("--proc-root", *proc_root, "Where the node's /proc is mounted (--source proc)");
  app->add_option("--cgroup-root", *cgroup_root, "Where the node's cgroup v2 tree is mounted");
  add_client_tls(app, o->tls);
  app->add_flag("--insecure", o->insecure, "Allow plaintext to a non-loopback aggregator");
  table.push_back({app, [o, source, level, proc_root, cgroup_root] {
                     set_level(*level);
                     carico::rpc::split_host_port(o->aggregator, "--aggregator");
                     if (o->node.empty() || o->node.size() > 253)
                       throw InputError("--node: expected a name of 1 to 253 characters");
                     std::unique_ptr<carico::TelemetrySource> src;
                     if (*source == "proc") {
                       src = std::make_unique<carico::ProcSource>(*proc_root, *cgroup_root);
                     } else if (source->rfind("replay:", 0) == 0 && source->size() > 7) {
                       src = std::make_unique<carico::ReplaySource>(source->substr(7));
                     } else {
                       throw InputError("--source: expected proc or replay:FILE, got \"" + *source +
                                        "\"");
                     }
                     install_stop_handlers();
                     return carico::rpc::run_agent(*o, *src, g_stop);
                   }});
}

// `orrery carico status`: the aggregator's per-node table.
void register_carico_status(CLI::App& root, CommandTable& table) {
  CLI::App* carico = root.add_subcommand("carico", "CARICO tools");
  carico->require_subcommand(1);
  auto target = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>("table");
  CLI::App* app = carico->add_subcommand("status", "The aggregator's per-node table");
  app->add_option("--aggregator", *target, "HOST:PORT of the aggregator")->required();
  app->add_option("-o,--output", *output, "json for {\"nodes\":[...]}");
  auto tls = std::make_shared<carico::rpc::ClientTls>();
  add_client_tls(app, *tls);
  table.push_back({app, [target, output, tls] { return status(*target, *output, *tls); }});
}

// `orrery repro carico`: the thesis' CARICO experiments.
void register_carico_repro(CLI::App& root, CommandTable& table) {
  CLI::App& repro = repro_command(root);
  auto o = std::make_shared<carico::ReproOptions>();
  CLI::App* app = repro.add_subcommand(
      "carico", "CARICO (thesis ch. 5): JCT vs pods, PCT tables, utilisation, isolation");
  app->add_option("--out", o->out_dir, "Output directory (report.html, summary.json)")->required();
  app->add_flag("--quick", o->quick, "Fewer experiments, one seed");
  app->add_option("--seeds", o->seeds, "Seeds per point (default 3, or 1 with --quick)")
      ->check(CLI::Range(1, 100));
  app->add_option("--threads", o->threads, "Simulations run in parallel (default 2)")
      ->check(CLI::Range(1, 256));
  auto sweep = std::make_shared<SweepFlags>();
  add_sweep_flags(app, sweep.get());
  table.push_back({app, [app, o, sweep] {
                     o->distribution = sweep_distribution(app, *sweep);
                     const carico::ReproResult r = carico::run_repro(*o);
                     return print_repro_result(r);
                   }});
}

}  // namespace

void register_carico(CLI::App& root, CommandTable& table) {
  register_aggregator(root, table);
  register_agent(root, table);
  register_carico_status(root, table);
  register_carico_repro(root, table);
}

}  // namespace orrery::cli
