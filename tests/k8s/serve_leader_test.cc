// Leader election of `orrery serve` replicas against the fake API server, as kube-scheduler's:
// a standby takes over a frozen leader's lease; a leader that lost it exits (code 1) instead of
// acting on a stale cache; and no request that acts on the cluster leaves a replica after its
// renew deadline, even one decided before the process was paused (SIGSTOP) and resumed
// (SIGCONT) after the takeover. Each replica has a bearer token of its own, so the fake tells
// their requests apart.
//
// Waits are deadlines on observable conditions, generous for a loaded 2-core machine
// (scripts/stress-tests.sh); the properties stay strict: no double bind, no conflicting bind, no
// acting request from a replica that no longer holds the lease.
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <map>

#include "core/rng.h"
#include "k8s/fake_apiserver.h"
#include "k8s/k8s_test_util.h"
#include "k8s/process.h"
#include "scratch_dir.h"

namespace orrery::k8s {
namespace {

using testing::FakeApiServer;
using testing::make_node;
using testing::make_pod;
using testing::Process;
using testing::wait_for;

constexpr int kLong =
    testing::kPatientMs;  // ms: a deadline no healthy run comes near, even under load

class ServeLeaderTest : public ::testing::Test {
 protected:
  void start_server(int bind_delay_ms) {
    testing::FakeApiServerOptions o;  // no token required: each replica's is recorded
    o.bookmark_interval_ms = 200;
    o.bind_delay_ms = bind_delay_ms;
    server = std::make_unique<FakeApiServer>(o);
    std::ofstream(dir.path("sched.yaml")) << "apiVersion: kubescheduler.config.k8s.io/v1\n"
                                             "kind: KubeSchedulerConfiguration\n"
                                             "profiles:\n- schedulerName: orrery\n"
                                             "  deterministic: true\n";
    for (const std::string id : {"a", "b"})
      std::ofstream(dir.path(id + ".kubeconfig"))
          << testing::token_kubeconfig(server->url(), "token-" + id);
  }
  void add_nodes(int n) {
    for (int i = 0; i < n; ++i) {
      char name[16];
      std::snprintf(name, sizeof name, "n%03d", i);
      server->add("nodes", make_node(name, "16", "64Gi", "500"));
    }
  }
  void add_pods(int n) {
    for (int i = 0; i < n; ++i, ++pods) {
      char name[16];
      std::snprintf(name, sizeof name, "p%04d", pods);
      server->add("pods", make_pod("default", name, std::to_string(50 + 50 * rng.below(4)) + "m",
                                   std::to_string(64 * (1 + rng.below(4))) + "Mi"));
    }
  }
  std::unique_ptr<Process> replica(const std::string& id, int metrics_port = 0) {
    const auto a = testing::leader_elected_serve(
        ORRERY_BIN, dir.path(id + ".kubeconfig"), dir.path("sched.yaml"), id,
        {"--metrics-listen", "127.0.0.1:" + std::to_string(metrics_port), "--backoff-max-ms",
         "500"});
    return std::make_unique<Process>(a, dir.path(id + ".log"));
  }
  std::string holder() const {
    auto l = server->get("leases", "kube-system/orrery");
    return l ? l->at("spec").value("holderIdentity", "") : std::string();
  }
  int bound_pods() const {
    int n = 0;
    for (const auto& p : server->list("pods")) n += !p["spec"].value("nodeName", "").empty();
    return n;
  }
  static bool ready(int port) {
    httplib::Client http("127.0.0.1", port);
    auto r = http.Get("/readyz");
    return r && r->status == 200;
  }
  // Every pod bound exactly once, and no bind refused (no replica tried to bind a bound pod).
  void expect_each_pod_bound_once_without_conflicts() {
    std::map<std::string, int> ok;
    int conflicts = 0;
    for (const auto& b : server->binds()) {
      ok[b.pod] += b.status == 201;
      conflicts += b.status != 201;
    }
    EXPECT_EQ(static_cast<int>(ok.size()), pods) << "every pod was bound";
    for (const auto& [pod, n] : ok) EXPECT_EQ(n, 1) << pod << " bound " << n << " times";
    EXPECT_EQ(conflicts, 0) << "no replica tried to bind an already bound pod";
  }
  // The server's seq of the first Lease write that named `id` the holder (0: none).
  uint64_t first_lease_write_by(const std::string& id) const {
    for (const auto& w : server->lease_writes())
      if (w.holder == id) return w.seq;
    return 0;
  }

  orrery::testing::ScratchDir dir{"k8s_serve_leader"};
  std::unique_ptr<FakeApiServer> server;
  Rng rng{3};
  int pods = 0;
};

TEST_F(ServeLeaderTest, TwoReplicasHandOverTheLeaseWithoutDoubleBinds) {
  start_server(0);
  add_nodes(20);
  add_pods(40);
  auto a = replica("a");
  ASSERT_TRUE(wait_for([&] { return bound_pods() == 40; }, kLong)) << a->output();
  EXPECT_EQ(holder(), "a");
  auto b = replica("b");
  // The leader freezes (cannot renew); b takes over once the lease expires.
  a->signal(SIGSTOP);
  add_pods(30);
  ASSERT_TRUE(wait_for([&] { return bound_pods() == 70; }, kLong)) << b->output();
  EXPECT_EQ(holder(), "b");
  EXPECT_GE(server->get("leases", "kube-system/orrery")->at("spec").value("leaseTransitions", 0),
            1);
  // a comes back, finds the lease lost and exits as kube-scheduler does; b binds the rest.
  a->signal(SIGCONT);
  EXPECT_EQ(a->wait(kLong), 1) << a->output();
  EXPECT_NE(a->output().find("leader election lost; exiting"), std::string::npos) << a->output();
  add_pods(20);
  ASSERT_TRUE(wait_for([&] { return bound_pods() == 90; }, kLong)) << b->output();
  expect_each_pod_bound_once_without_conflicts();
  b->signal(SIGTERM);
  EXPECT_EQ(b->wait(kLong), 0) << b->output();
  EXPECT_EQ(holder(), "") << "released on SIGTERM";
}

// The leader is frozen (SIGSTOP) in the middle of a burst of binds — binds applied, in flight
// and queued in its workers — and stays frozen past its renew deadline; the standby takes over
// and binds the rest; then the old leader is resumed (SIGCONT). From the fake's request log: no
// bind of the old leader was applied after the standby's first Lease write, and the old leader
// sent no request that acts on the cluster after it resumed (a request abandoned with its body
// unsent is not one: the server never acts on it). The old leader exits 1.
TEST_F(ServeLeaderTest, ALeaderPausedMidBurstAndResumedAfterATakeoverSendsNothingThatActs) {
  start_server(40);  // 4 workers at 40 ms a bind: ~100 binds/s, so a burst lasts seconds
  add_nodes(20);
  const int port_b = testing::free_port();
  auto a = replica("a");
  ASSERT_TRUE(wait_for([&] { return holder() == "a"; }, kLong)) << a->output();
  auto b = replica("b", port_b);
  ASSERT_TRUE(wait_for([&] { return ready(port_b); }, kLong)) << b->output();
  add_pods(400);
  ASSERT_TRUE(wait_for([&] { return bound_pods() >= 60; }, kLong)) << a->output();
  a->signal(SIGSTOP);
  const int bound_at_pause = bound_pods();
  ASSERT_LT(bound_at_pause, 400) << "the pause did not land mid-burst";

  ASSERT_TRUE(wait_for([&] { return holder() == "b" && bound_pods() == 400; }, 2 * kLong))
      << bound_pods() << " bound\n"
      << b->output();
  const uint64_t takeover = first_lease_write_by("b");
  ASSERT_GT(takeover, 0u);
  const size_t responses_before_resume = server->responses().size();

  a->signal(SIGCONT);
  add_pods(20);  // new work the resumed replica must leave alone
  EXPECT_EQ(a->wait(kLong), 1) << a->output();
  EXPECT_NE(a->output().find("leader election lost; exiting"), std::string::npos) << a->output();
  ASSERT_TRUE(wait_for([&] { return bound_pods() == 420; }, kLong)) << b->output();

  int binds_by_a = 0, binds_by_b = 0;
  for (const auto& bind : server->binds()) {
    if (bind.auth == "Bearer token-a") {
      ++binds_by_a;
      EXPECT_LT(bind.seq, takeover) << bind.pod << ": a bind of the paused leader was applied "
                                    << "after the standby had taken the lease";
    }
    binds_by_b += bind.auth == "Bearer token-b";
  }
  EXPECT_GE(binds_by_a, 60);
  EXPECT_GT(binds_by_b, 0);
  const auto responses = server->responses();
  int abandoned = 0;
  for (size_t i = responses_before_resume; i < responses.size(); ++i) {
    const auto& r = responses[i];
    if (r.auth != "Bearer token-a" || r.path.find("/leases") != std::string::npos) continue;
    EXPECT_FALSE(r.complete) << "the resumed replica sent " << r.method << " " << r.path << " ("
                             << r.status << ")";
    abandoned += !r.complete;
  }
  std::cerr << "pause: " << bound_at_pause << " bound at SIGSTOP, binds by a=" << binds_by_a
            << " by b=" << binds_by_b << ", requests a abandoned after SIGCONT=" << abandoned
            << "\n";
  expect_each_pod_bound_once_without_conflicts();
  b->signal(SIGTERM);
  EXPECT_EQ(b->wait(kLong), 0) << b->output();
}

}  // namespace
}  // namespace orrery::k8s
