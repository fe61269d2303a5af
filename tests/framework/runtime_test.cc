// One engine, two worlds: the same policy, built from the same registry, runs on the real-time
// loop (wall clock) against a snapshot backend, as it runs on the simulator's virtual clock.
#include <gtest/gtest.h>

#include "builders.h"

#include "framework/realtime_loop.h"
#include "framework/runtime.h"
#include "framework/telemetry.h"
#include "policies/kube/policies.h"

namespace orrery::fw {
namespace {

using testing::node;
using testing::pod;

TEST(RealTimeRuntime, KubeDefaultFromTheRegistrySchedulesASnapshotOnTheWallClock) {
  ClusterState st;
  st.add_node(node("n0", 2000));
  st.add_node(node("n1", 2000));
  for (int i = 0; i < 6; ++i) st.add_pod(pod("p" + std::to_string(i), 500));
  SnapshotBackend backend(std::move(st));
  RealTimeLoop loop;
  Services services;
  Reservations reservations;
  Runtime rt{backend, loop, services, reservations};

  PolicyRegistry registry;
  kube::register_policies(registry);
  PolicyStats stats;
  PolicyContext ctx{rt, 1, "kube-default", {}, "", stats};
  std::unique_ptr<Component> policy = registry.create("kube-default", ctx);
  policy->start();
  // A pod created while the loop runs is scheduled too (the driver wakes on PodAdded).
  loop.after(20 * kMs, [&] { backend.create_pod(pod("late", 500)); });
  loop.after(200 * kMs, [&] { loop.stop(); });
  loop.run();

  const ClusterState& s = backend.state();
  for (PodId p : s.pods()) EXPECT_NE(s.pod_node(p), kNoNode) << s.pod(p).key();
  EXPECT_EQ(s.pod_count(), 7u);
  EXPECT_EQ(stats.scheduled(), 7u);
  EXPECT_EQ(s.requested(kCpu)[0] + s.requested(kCpu)[1], 3500);
}

TEST(Services, AWorldProvidesWhatItHasAndAPolicyAsksByType) {
  Services services;
  EXPECT_EQ(services.find<NodeTelemetry>(), nullptr);
  EXPECT_THROW(services.get<NodeTelemetry>("node telemetry"), std::runtime_error);
  struct Fake : NodeTelemetry {
    int64_t cpu_capacity_milli(NodeId) const override { return 4000; }
    int64_t cpu_demand_milli(NodeId) const override { return 0; }
    int64_t cpu_used_milli(NodeId) const override { return 1000; }
    int64_t memory_capacity(NodeId) const override { return 0; }
    int64_t memory_used(NodeId) const override { return 0; }
    double cpu_pressure(NodeId) const override { return 0; }
    int running_pods(NodeId) const override { return 0; }
    double cpu_seconds_total(NodeId) const override { return 0; }
    double cpu_stall_seconds_total(NodeId) const override { return 0; }
  } fake;
  services.provide<NodeTelemetry>(&fake);
  EXPECT_EQ(services.get<NodeTelemetry>("node telemetry").cpu_used_milli(0), 1000);
  services.withdraw<NodeTelemetry>();
  EXPECT_EQ(services.find<NodeTelemetry>(), nullptr);
}

}  // namespace
}  // namespace orrery::fw
