// CARICO under faults, with real gRPC on loopback (in-process servers and agent loops) and the
// simulator for the scheduling outcome:
//   - an aggregator outage: agents keep running; the scheduler's reports go stale and
//     CaricoCapacity filters the nodes (pods wait Pending, never placed on old numbers); after
//     the restart agents re-register and scheduling resumes — no pod lost, none bound twice
//   - an agent's clock jumping forward and backward: the aggregator ages reports by its own
//     receipt time, so the node neither freezes as "newest forever" nor is dropped, and the
//     agent's backoff does not wait out a backward jump
//   - TLS: an agent talks to a mutual-TLS aggregator; clients without the CA or a certificate
//     are refused; a silent connection is closed after the handshake timeout; the aggregator's
//     /metrics refuses oversized bodies (413)
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "framework/reservations.h"
#include "k8s/test_pki.h"
#include "net/socket_probe.h"
#include "obs/log.h"
#include "experiments/carico/evaluation.h"
#include "policies/carico/plugin.h"
#include "policies/carico/rpc/aggregator_feed.h"
#include "policies/carico/rpc/processes.h"
#include "policies/carico/rpc/server.h"
#include "scratch_dir.h"
#include "sim/scenario.h"
#include "sim/simulation.h"

// After Eigen (via the CARICO headers): glibc's <resolv.h>, which httplib pulls in, defines
// a macro `_res` that clashes with Eigen's parameter names.
#include <httplib.h>

namespace orrery::carico {
namespace {

using SteadyClock = std::chrono::steady_clock;
using orrery::testing::ScratchDir;

bool eventually(const std::function<bool()>& done, double limit_s = 10) {
  const auto end = SteadyClock::now() + std::chrono::duration<double>(limit_s);
  while (SteadyClock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

// A node whose readings never change (plausible, so every poll counts).
class SteadySource : public TelemetrySource {
 public:
  std::optional<RawSample> read(double, std::string*) override {
    RawSample s;
    s.cpu_util = 0.3;
    s.mem_util = 0.4;
    s.cpu_pressure = 0.05;
    s.pods = 2;
    return s;
  }
  std::string describe() const override { return "steady test source"; }
};

// An agent loop on its own thread (run_agent, the code of `orrery agent`), with a clock the test
// can jump.
struct AgentThread {
  std::atomic<bool> stop{false};
  std::atomic<double> offset_s{0};
  SteadySource source;
  std::thread thread;
  AgentThread(const std::string& target, const std::string& node, rpc::ClientTls tls = {}) {
    rpc::AgentProcessOptions o;
    o.aggregator = target;
    o.node = node;
    o.agent.hz = 50;  // a report every 0.2 s
    o.tls = tls;
    const auto t0 = SteadyClock::now();
    o.clock = [this, t0] {
      return std::chrono::duration<double>(SteadyClock::now() - t0).count() + offset_s.load();
    };
    thread = std::thread([this, o] { rpc::run_agent(o, source, stop); });
  }
  ~AgentThread() {
    stop = true;
    thread.join();
  }
};

std::optional<NodeRow> row(rpc::AggregatorServer& s, const std::string& node) {
  for (const NodeRow& r : s.core().table(rpc::mono_now_s()))
    if (r.node == node) return r;
  return std::nullopt;
}

// Fresh: listed, and its report younger than 1 s by the aggregator's clock.
bool fresh(rpc::AggregatorServer& s, const std::string& node) {
  auto r = row(s, node);
  return r && r->age_s < 1.0;
}

TEST(CaricoFaults, BackoffIsReadyAtOnceAfterTheClockWentBackwards) {
  rpc::Backoff b;
  b.failed(3600.0);
  EXPECT_FALSE(b.ready(3600.05));  // within the 100 ms delay
  EXPECT_TRUE(b.ready(3600.2));
  b.failed(3600.2);  // 200 ms now
  EXPECT_TRUE(b.ready(10.0)) << "a backward jump of an hour must not be waited out";
  b.succeeded();
  EXPECT_TRUE(b.ready(0.0));
}

TEST(CaricoFaults, AgentClockJumpsNeitherFreezeNorDropTheNode) {
  rpc::AggregatorServer server(2, nullptr);
  const int port = server.start("127.0.0.1:0");
  const std::string target = "127.0.0.1:" + std::to_string(port);
  AgentThread agent(target, "jumpy");
  ASSERT_TRUE(eventually([&] { return fresh(server, "jumpy"); }));
  for (const double jump : {+3600.0, -7200.0, +86400.0 * 365}) {
    agent.offset_s = agent.offset_s.load() + jump;
    const uint64_t merges = server.core().merges();
    // Keeps reporting: more merges, and the report stays fresh on the aggregator's clock.
    EXPECT_TRUE(eventually([&] {
      return server.core().merges() >= merges + 3 && fresh(server, "jumpy");
    })) << "after a jump of "
        << jump << " s";
  }
  // A backward jump while backing off from an outage: the agent re-registers at once after the
  // restart instead of waiting out the jump.
  server.shutdown();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // a few failed submits
  agent.offset_s = agent.offset_s.load() - 3600.0;
  rpc::AggregatorServer again(2, nullptr);
  ASSERT_EQ(again.start(target), port);
  EXPECT_TRUE(eventually([&] { return fresh(again, "jumpy"); }, 10))
      << "the agent did not re-register after a backward jump during its backoff";
}

TEST(CaricoFaults, AggregatorOutageMakesReportsStaleAndTheyRecoverAfterRestart) {
  std::vector<std::string> logs;
  std::mutex logs_mu;
  obs::set_log_sink([&](const std::string& l) {
    std::lock_guard<std::mutex> lock(logs_mu);
    logs.push_back(l);
  });
  auto server = std::make_unique<rpc::AggregatorServer>(2, nullptr);
  const int port = server->start("127.0.0.1:0");
  const std::string target = "127.0.0.1:" + std::to_string(port);
  AgentThread agent(target, "node-a");
  ASSERT_TRUE(eventually([&] { return fresh(*server, "node-a"); }));

  // The scheduler side: the feed (polled by hand here) and the plugin, staleAfter 500 ms.
  ClusterState state;
  Node nd;
  nd.name = "node-a";
  nd.allocatable[kPods] = 110;
  const NodeId node = state.add_node(nd);
  struct WallClock : fw::Clock {
    Time now_us() const override {
      return std::chrono::duration_cast<std::chrono::microseconds>(
                 SteadyClock::now().time_since_epoch())
          .count();
    }
    fw::TimerId at(Time, fw::TimerTarget*, uint64_t) override { return 1; }
    fw::TimerId at(Time, std::function<void()>) override { return 1; }
    void cancel(fw::TimerId) override {}
  } clock;
  rpc::AggregatorFeed feed(clock, target, state);
  fw::Reservations res;
  CaricoCapacity plugin(&feed, &res, PluginOptions{500 * kMs});
  feed.on_timer(0);
  ASSERT_TRUE(plugin.available(state, node, clock.now_us()));

  server->shutdown();  // the outage
  server.reset();
  feed.on_timer(0);  // fails: the rows are kept, their age keeps growing
  EXPECT_TRUE(eventually([&] { return !plugin.available(state, node, clock.now_us()); }, 5))
      << "an unreachable aggregator's old numbers were still used";
  auto c = feed.capacity(state, node, clock.now_us());
  ASSERT_TRUE(c);
  EXPECT_GT(c->age_s, 0.5);

  server = std::make_unique<rpc::AggregatorServer>(2, nullptr);  // the restart, empty
  ASSERT_EQ(server->start(target), port);
  EXPECT_TRUE(eventually([&] { return fresh(*server, "node-a"); }, 10))
      << "the agent did not re-register";
  feed.on_timer(0);
  EXPECT_TRUE(plugin.available(state, node, clock.now_us()));
  obs::set_log_sink(nullptr);
  std::string all;
  for (const auto& l : logs) all += l + "\n";
  EXPECT_NE(all.find("CARICO aggregator unreachable; node reports will go stale"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("CARICO aggregator reachable again"), std::string::npos) << all;
  EXPECT_NE(all.find("aggregator unreachable; retrying with backoff"), std::string::npos) << all;
}

// Counts binds per pod and the binds inside a time window.
struct BindCounter : fw::EventListener {
  const ClusterState& state;
  Time from, to;
  std::map<std::string, int> binds;
  int in_window = 0;
  Time last_bind = 0;
  BindCounter(const ClusterState& s, Time f, Time t) : state(s), from(f), to(t) {}
  void on_event(const fw::ClusterEvent& e) override {
    if (e.kind != fw::EventKind::kPodBound) return;
    ++binds[state.pod(e.pod).name];
    last_bind = std::max(last_bind, e.time_us);
    if (e.time_us >= from && e.time_us < to) ++in_window;
  }
};

TEST(CaricoFaults, SimulatedAggregatorOutageLosesNoPodAndBindsNoneTwice) {
  // 4 nodes; 40 pods at 0 s, 40 more at 30 s — inside the outage [20 s, 60 s). staleAfter 3 s.
  const std::string yaml =
      "name: carico-outage\nseed: 5\n"
      "lifecycle:\n  bind: {dist: uniform, min: 5ms, max: 50ms}\n"
      "  startup: {dist: uniform, min: 500ms, max: 2s}\n"
      "cluster:\n  nodes:\n  - {name: worker, count: 4, cpu: 4, memory: 8Gi}\n"
      "scheduler:\n  policy: carico\n  args:\n    carico:\n      stale_after: 3s\n"
      "      aggregator_outages: [{from: 20s, to: 60s}]\n"
      "workloads:\n"
      "- job:\n    name: early\n    completions: 40\n    parallelism: 40\n"
      "    usage: {cpu: 1, memory: 50Mi}\n    work: {dist: normal, mean: 5s, sd: 500ms}\n"
      "- job:\n    name: late\n    at: 30s\n    completions: 40\n    parallelism: 40\n"
      "    usage: {cpu: 1, memory: 50Mi}\n    work: {dist: normal, mean: 5s, sd: 500ms}\n";
  const sim::Scenario sc = sim::parse_scenario(yaml, "<outage>", ".");
  const fw::PolicyRegistry reg = evaluation_policies();
  sim::RunOptions opt;
  opt.wall_clock = false;
  sim::Simulation s(sc, reg, opt);
  // Stale from 23 s (the last report before the outage is at most 3 s old by then, plus its
  // 50 ms delivery), until the outage ends at 60 s.
  BindCounter binds(s.backend().state(), 23100 * kMs, 60 * kSecond);
  s.backend().add_listener(&binds);
  s.run();
  s.backend().remove_listener(&binds);
  ASSERT_FALSE(s.incomplete());
  EXPECT_EQ(binds.binds.size(), 80u);  // no pod lost
  for (const auto& [pod, n] : binds.binds) EXPECT_EQ(n, 1) << pod << " bound " << n << " times";
  EXPECT_EQ(binds.in_window, 0) << "pods were placed on stale Pod-Capacity";
  // Scheduling resumed as soon as reports came back (the driver wakes on the plugin's nudge),
  // not at the queue's 5-minute unschedulable flush.
  EXPECT_GE(binds.last_bind, 60 * kSecond);
  EXPECT_LT(binds.last_bind, 120 * kSecond);
  // Every pod finished: the recorder's CSV has 80 Succeeded rows.
  std::istringstream csv(s.recorder().pods_csv());
  std::string line;
  int succeeded = 0;
  while (std::getline(csv, line))
    succeeded += line.size() > 9 && line.rfind(",Succeeded") == line.size() - 10;
  EXPECT_EQ(succeeded, 80);
  // The same scenario through `orrery sim`: the summary counts the fault.
  ScratchDir d("carico-outage");
  const std::string file = d.write("outage.yaml", yaml);
  ASSERT_EQ(WEXITSTATUS(std::system((std::string(ORRERY_BIN) + " sim " + file + " --out " +
                                     d.path("out") + " >/dev/null 2>&1")
                                        .c_str())),
            0);
  std::ifstream in(d.path("out/summary.json"));
  const auto sum = nlohmann::json::parse(in);
  EXPECT_EQ(sum["scheduler"]["carico_aggregator_restarts"], 1) << sum.dump();
  EXPECT_GT(sum["scheduler"]["carico_reports_lost"].get<int>(), 0);
}

// ---------------------------------------------------------------- TLS and limits

class CaricoTls : public ::testing::Test, protected orrery::k8s::testing::TlsMaterial {
 protected:
  void SetUp() override {
    std::signal(SIGPIPE, SIG_IGN);
    namespace pki = orrery::k8s::testing;
    static_cast<pki::TlsMaterial&>(*this) =
        pki::write_tls_files(dir, "carico-aggregator", "carico-agent");
  }
  ScratchDir dir{"carico-tls"};
};

TEST_F(CaricoTls, AgentTalksToAMutualTlsAggregatorAndOthersAreRefused) {
  std::vector<std::string> logs;
  std::mutex mu;
  obs::set_log_sink([&](const std::string& l) {
    std::lock_guard<std::mutex> lock(mu);
    logs.push_back(l);
  });
  rpc::AggregatorServer server(2, nullptr);
  rpc::AggregatorServerOptions so;
  so.tls = {cert, key, ca_file};
  const int port = server.start("127.0.0.1:0", so);
  const std::string target = "127.0.0.1:" + std::to_string(port);
  {
    AgentThread good(target, "tls-node", {ca_file, client_cert, client_key});
    EXPECT_TRUE(eventually([&] { return fresh(server, "tls-node"); }));
  }
  std::string err;
  rpc::AggregatorClient no_cert(target, {ca_file, "", ""});
  EXPECT_FALSE(no_cert.table(std::chrono::milliseconds(2000), &err))
      << "mutual TLS let a client without a certificate in";
  rpc::AggregatorClient plain(target);
  EXPECT_FALSE(plain.table(std::chrono::milliseconds(2000), &err))
      << "plaintext was served on the TLS port";
  rpc::AggregatorClient with_cert(target, {ca_file, client_cert, client_key});
  auto rows = with_cert.table(std::chrono::milliseconds(30000), &err);  // loaded machines
  ASSERT_TRUE(rows) << err;
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].node, "tls-node");
  obs::set_log_sink(nullptr);
  const std::string key_body = key_pem.substr(key_pem.find('\n') + 1, 40);
  for (const auto& l : logs) EXPECT_EQ(l.find(key_body), std::string::npos) << l;
}

TEST_F(CaricoTls, SilentConnectionIsClosedAfterTheHandshakeTimeout) {
  rpc::AggregatorServer server(2, nullptr);
  rpc::AggregatorServerOptions so;
  so.tls = {cert, key, ""};
  so.handshake_timeout_ms = 300;
  const int port = server.start("127.0.0.1:0", so);
  orrery::testing::RawConnection silent(port), garbage(port);
  ASSERT_TRUE(silent.connected() && garbage.connected());
  garbage.send_text("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_TRUE(silent.closed_by_server_within(15000));
  EXPECT_TRUE(garbage.closed_by_server_within(15000));
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int run(const std::string& cmd) {
  return WEXITSTATUS(std::system(cmd.c_str()));
}

TEST_F(CaricoTls, ProcessesUseTlsAndRefusePlaintextOffLoopback) {
  const std::string bin = ORRERY_BIN;
  const std::string alog = dir.path("agg.log");
  // The aggregator process with TLS, and its /metrics with the body limit.
  std::atomic<bool> stop{false};
  std::atomic<int> grpc_port{0}, metrics_port{0};
  rpc::AggregatorProcessOptions ao;
  ao.listen = "127.0.0.1:0";
  ao.metrics_listen = "127.0.0.1:0";
  ao.server.tls = {cert, key, ""};
  ao.on_ready = [&](int g, int m) {
    grpc_port = g;
    metrics_port = m;
  };
  std::thread agg([&] { rpc::run_aggregator(ao, stop); });
  ASSERT_TRUE(eventually([&] { return metrics_port > 0; }));
  httplib::Client m("127.0.0.1", metrics_port);
  auto big = m.Post("/metrics", std::string(100 * 1024, 'x'), "text/plain");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  auto ok = m.Get("/metrics");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  // `orrery carico status` with the CA reaches it; without, exit 1.
  const std::string target = "127.0.0.1:" + std::to_string(grpc_port.load());
  EXPECT_EQ(run(bin + " carico status --aggregator " + target + " --ca-file " + ca_file +
                " -o json >" + dir.path("status.json") + " 2>&1"),
            0)
      << slurp(dir.path("status.json"));
  EXPECT_EQ(run(bin + " carico status --aggregator " + target + " 2>" + dir.path("e1")), 1);
  stop = true;
  agg.join();
  // Plaintext off loopback needs --insecure; a bad key is a clear error without its content.
  EXPECT_EQ(run(bin + " aggregator --listen 0.0.0.0:0 2>" + dir.path("e2")), 1);
  EXPECT_NE(slurp(dir.path("e2")).find("--listen: refusing plaintext CARICO aggregator on 0.0.0.0"),
            std::string::npos)
      << slurp(dir.path("e2"));
  EXPECT_EQ(run(bin + " agent --aggregator carico.example:7070 --node n --source proc 2>" +
                dir.path("e3")),
            1);
  EXPECT_NE(slurp(dir.path("e3")).find("--ca-file"), std::string::npos) << slurp(dir.path("e3"));
  EXPECT_EQ(run(bin + " aggregator --listen 127.0.0.1:0 --tls-cert-file " + key +
                " --tls-private-key-file " + cert + " 2>" + dir.path("e4")),
            1);
  const std::string e4 = slurp(dir.path("e4"));
  EXPECT_NE(e4.find("--tls-cert-file: " + key), std::string::npos) << e4;
  EXPECT_EQ(e4.find(key_pem.substr(key_pem.find('\n') + 1, 40)), std::string::npos) << e4;
}

}  // namespace
}  // namespace orrery::carico
