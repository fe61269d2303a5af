// LeaderElector timing against the fake API server: a renewal counts from before it was sent,
// never from when its reply was read, so a reply read late (a slow network, a paused or starved
// process) cannot stretch the right to act past the moment another replica may take the lease.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "k8s/fake_apiserver.h"
#include "k8s/k8s_test_util.h"
#include "k8s/leader.h"

namespace orrery::k8s {
namespace {

using Clock = std::chrono::steady_clock;
using testing::FakeApiServer;
using testing::LeaseUpdateFault;
using testing::wait_for;

TEST(LeaderElector, ARenewalCountsFromBeforeItWasSentNotFromItsLateReply) {
  FakeApiServer server;
  ClusterConfig c;
  parse_server_url(server.url(), "test", &c);
  ApiClient client(c);
  LeaderElectionConfig cfg;
  cfg.lease_namespace = "kube-system";
  cfg.lease_name = "l";
  cfg.identity = "a";
  cfg.lease_duration_ms = 3000;
  cfg.renew_deadline_ms = 1000;
  cfg.retry_period_ms = 100;
  std::atomic<int> changes{0};
  LeaderElector elector(client, cfg, [&](bool) { ++changes; });
  elector.start();
  ASSERT_TRUE(wait_for([&] { return elector.may_act(); }, testing::kPatientMs));

  // The next renewal is applied at once but its reply is held 1.5 s; every later one is refused.
  int updates = 0;
  server.set_lease_update_fault([&updates] {
    return updates++ == 0 ? LeaseUpdateFault{false, 1500} : LeaseUpdateFault{true, 0};
  });
  const size_t writes = server.lease_writes().size();
  ASSERT_TRUE(wait_for([&] { return server.lease_writes().size() > writes; }, testing::kPatientMs));
  const auto written = Clock::now();  // no earlier than the server applied the renewal
  const auto deadline = written + std::chrono::milliseconds(cfg.renew_deadline_ms);
  // Until well after the held reply was read: the elector may act on this renewal only until
  // renewDeadline after it was sent, which is before the server wrote it.
  int late_true = 0, samples = 0;
  while (Clock::now() < written + std::chrono::milliseconds(3500)) {
    const bool acting = elector.may_act();
    if (Clock::now() > deadline) {
      ++samples;
      late_true += acting;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_GT(samples, 0);
  EXPECT_EQ(late_true, 0) << "may_act() held past renewDeadline after the renewal was written "
                             "(timed from the late reply)";
  EXPECT_FALSE(elector.leading()) << "renewals refused: it stopped leading";
  EXPECT_GE(changes.load(), 2) << "became the leader, then stopped";
  elector.stop(false);
}

}  // namespace
}  // namespace orrery::k8s
