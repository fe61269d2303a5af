#include "sim/sim_backend.h"

#include <gtest/gtest.h>

#include "sim/replicaset.h"
#include "sim_test_util.h"

namespace orrery::sim {
namespace {

using fw::ClusterEvent;
using fw::EventKind;
using namespace testing;

// Records every event and, optionally, binds each new pending pod to node 0 (a trivial scheduler).
struct Watcher : fw::EventListener {
  SimBackend& sim;
  bool bind_new = false;
  NodeId target = 0;
  std::vector<std::tuple<EventKind, Time, uint64_t, std::string>> seen;
  explicit Watcher(SimBackend& s, bool bind = false) : sim(s), bind_new(bind) {
    sim.add_listener(this);
  }
  ~Watcher() override { sim.remove_listener(this); }
  void on_event(const ClusterEvent& e) override {
    seen.emplace_back(e.kind, e.time_us, e.pod_serial, sim.event_reason());
    if (bind_new && e.kind == EventKind::kPodAdded && sim.state().pod_node(e.pod) == kNoNode) {
      sim.state().assign(e.pod, target);
      sim.bind(e.pod, target);
    }
  }
  Time time_of(EventKind k, uint64_t serial) const {
    for (const auto& [kind, t, s, r] : seen)
      if (kind == k && s == serial) return t;
    return -1;
  }
  std::string reason_of(EventKind k, uint64_t serial) const {
    for (const auto& [kind, t, s, r] : seen)
      if (kind == k && s == serial) return r;
    return "<none>";
  }
};

PodId create(SimBackend& sim, const std::string& name, std::shared_ptr<const PodSpec> spec,
             ExecSpec exec, const std::string& node = "") {
  Pod p = make_pod(name, std::move(spec));
  p.node_name = node;
  PodExtras x;
  x.exec = exec;
  return sim.create_pod(std::move(p), x);
}

TEST(SimBackend, PodLifecycleFollowsConfiguredDelays) {
  EventLoop loop;
  Lifecycle lc;
  lc.bind = Dist::constant(100 * kMs);
  lc.startup = Dist::constant(2 * kSecond);
  lc.gc = Dist::constant(30 * kSecond);
  SimBackend sim(loop, 1, lc);
  sim.add_node(make_node("n0", 4000, 8 * kGi));
  Watcher w(sim, /*bind=*/true);
  const PodId id = create(sim, "p", make_spec(1000, kGi), {1000, kGi, 5 * kSecond});
  const uint64_t serial = sim.state().pod_serial(id);
  loop.run_until();
  EXPECT_EQ(w.time_of(EventKind::kPodAdded, serial), 0);
  EXPECT_EQ(w.time_of(EventKind::kPodBound, serial), 100 * kMs);
  EXPECT_EQ(w.time_of(EventKind::kPodRunning, serial), 2100 * kMs);
  EXPECT_EQ(w.time_of(EventKind::kPodFinished, serial), 7100 * kMs);
  EXPECT_EQ(w.reason_of(EventKind::kPodFinished, serial), "Succeeded");
  EXPECT_EQ(w.time_of(EventKind::kPodDeleted, serial), 37100 * kMs);
  EXPECT_EQ(sim.state().pod_count(), 0u);
  EXPECT_EQ(sim.state().requested(kCpu)[0], 0);
}

// A pending pod changed through the seam (a KubCG-style image switch) runs with the execution
// profile registered for its new image; its new requests are what the node counts.
TEST(SimBackend, UpdatedPendingPodRunsAsItsNewImage) {
  EventLoop loop;
  SimBackend sim(loop, 1, Lifecycle{});
  sim.add_node(make_node("n0", 4000, 8 * kGi));
  sim.register_image_exec("train:cpu", {2000, kGi, 40 * kSecond});
  Watcher w(sim, /*bind=*/false);
  auto spec = make_spec(1000, kGi);
  auto with_image = std::make_shared<PodSpec>(*spec);
  with_image->containers.at(0).image = "train:gpu";
  with_image->finalize();
  const PodId id = create(sim, "job", with_image, {1000, kGi, 10 * kSecond});
  const uint64_t serial = sim.state().pod_serial(id);
  loop.run_until();
  fw::PodUpdate u;
  u.spec = [](PodSpec& s) {
    s.containers.at(0).image = "train:cpu";
    s.containers.at(0).requests[kCpu] = 2000;
  };
  EXPECT_TRUE(sim.update_pod(id, u));
  loop.run_until();
  EXPECT_EQ(w.time_of(EventKind::kPodUpdated, serial), 0);
  EXPECT_EQ(sim.exec(id).work, 40 * kSecond);
  sim.state().assign(id, 0);
  sim.bind(id, 0);
  EXPECT_EQ(sim.state().requested(kCpu)[0], 2000);
  loop.run_until();
  EXPECT_EQ(w.time_of(EventKind::kPodFinished, serial), 40 * kSecond);
}

TEST(SimBackend, GracefulDeletionHoldsResourcesUntilGone) {
  EventLoop loop;
  Lifecycle lc;
  lc.termination = Dist::constant(10 * kSecond);
  SimBackend sim(loop, 1, lc);
  sim.add_node(make_node("n0", 4000, 8 * kGi));
  Watcher w(sim, true);
  const PodId id = create(sim, "p", make_spec(1000, kGi), {1000, kGi, kForever});
  const uint64_t serial = sim.state().pod_serial(id);
  loop.run_until(5 * kSecond);
  ASSERT_EQ(sim.stage(id), PodStage::kRunning);
  sim.delete_pod(id, "test");
  loop.run_until(6 * kSecond);
  EXPECT_TRUE(sim.state().pod(id).terminating);
  EXPECT_EQ(sim.state().requested(kCpu)[0], 1000);  // still held during the grace period
  EXPECT_EQ(sim.cpu_used_milli(0), 0);              // but no longer working
  loop.run_until();
  EXPECT_EQ(w.time_of(EventKind::kPodDeleted, serial), 15 * kSecond);
  EXPECT_EQ(w.reason_of(EventKind::kPodDeleted, serial), "test");
  EXPECT_EQ(sim.state().requested(kCpu)[0], 0);
}

TEST(SimBackend, ProcessorSharingStretchesRunTimesByThetaP) {
  // KubCG eq. 4 with Θ_P = P: P identical pods that each want the whole node finish after P × τ.
  for (int p = 1; p <= 3; ++p) {
    EventLoop loop;
    SimBackend sim(loop, 1);
    sim.add_node(make_node("n0", 1000, 8 * kGi));
    Watcher w(sim);
    std::vector<uint64_t> serials;
    for (int i = 0; i < p; ++i) {
      PodId id =
          create(sim, "p" + std::to_string(i), make_spec(0, 0), {1000, 0, 10 * kSecond}, "n0");
      serials.push_back(sim.state().pod_serial(id));
    }
    loop.run_until();
    for (uint64_t s : serials) EXPECT_EQ(w.time_of(EventKind::kPodFinished, s), p * 10 * kSecond);
  }
}

TEST(SimBackend, TelemetryCountersIntegrateUsageAndPressure) {
  EventLoop loop;
  SimBackend sim(loop, 1);
  sim.add_node(make_node("n0", 2000, 8 * kGi));
  // 0–10 s: one pod using 1.5 cores; 10–20 s: plus one using 1 core (2.5 > 2: stalled, 2 used).
  create(sim, "a", make_spec(0, 0), {1500, kGi, 20 * kSecond}, "n0");
  loop.at(10 * kSecond, [&] { create(sim, "b", make_spec(0, 0), {1000, kGi, kForever}, "n0"); });
  loop.run_until(5 * kSecond);
  EXPECT_DOUBLE_EQ(sim.cpu_seconds_total(0), 7.5);
  EXPECT_EQ(sim.cpu_used_milli(0), 1500);
  EXPECT_DOUBLE_EQ(sim.cpu_pressure(0), 0.0);
  loop.run_until(15 * kSecond);
  EXPECT_DOUBLE_EQ(sim.cpu_seconds_total(0), 15 + 10);
  EXPECT_DOUBLE_EQ(sim.cpu_stall_seconds_total(0), 5);
  EXPECT_EQ(sim.cpu_demand_milli(0), 2500);
  EXPECT_EQ(sim.cpu_used_milli(0), 2000);
  EXPECT_DOUBLE_EQ(sim.cpu_pressure(0), 0.2);
  EXPECT_EQ(sim.memory_used(0), 2 * kGi);
  EXPECT_EQ(sim.running_pods(0), 2);
}

TEST(SimBackend, ProcessorSharingWithStaggeredStarts) {
  // KubCG Fig. 3(B): pod 2 starts 4 s after pod 1, both want the whole core, τ = 10 s. While both
  // run each gets half a core: pod 1 has 6 s left at t=4 and ends at 4 + 12 = 16; pod 2 has done
  // 6 s by then and runs alone for its last 4 s, ending at 20 (eqs 5–8 with Θ_2 = 2).
  EventLoop loop;
  SimBackend sim(loop, 1);
  sim.add_node(make_node("n0", 1000, 8 * kGi));
  Watcher w(sim);
  const PodId a = create(sim, "a", make_spec(0, 0), {1000, 0, 10 * kSecond}, "n0");
  const uint64_t sa = sim.state().pod_serial(a);
  uint64_t sb = 0;
  loop.at(4 * kSecond, [&] {
    sb = sim.state().pod_serial(create(sim, "b", make_spec(0, 0), {1000, 0, 10 * kSecond}, "n0"));
  });
  loop.run_until();
  EXPECT_EQ(w.time_of(EventKind::kPodFinished, sa), 16 * kSecond);
  EXPECT_EQ(w.time_of(EventKind::kPodFinished, sb), 20 * kSecond);
}

TEST(SimBackend, NoSlowdownBelowCapacityAndGpuPodsAreNotSlowed) {
  EventLoop loop;
  SimBackend sim(loop, 1);
  Node n = make_node("n0", 2000, 8 * kGi);
  n.capacity[kGpu] = n.allocatable[kGpu] = 1;
  sim.add_node(n);
  Watcher w(sim);
  std::vector<uint64_t> cpu_pods;
  for (int i = 0; i < 2; ++i) {
    cpu_pods.push_back(sim.state().pod_serial(
        create(sim, "c" + std::to_string(i), make_spec(0, 0), {1000, 0, 10 * kSecond}, "n0")));
  }
  loop.run_until();
  for (uint64_t s : cpu_pods) EXPECT_EQ(w.time_of(EventKind::kPodFinished, s), 10 * kSecond);

  // Now three CPU hogs (share 2/3) and one GPU pod that also uses a core.
  Resources gpu_req;
  gpu_req[kGpu] = 1;
  auto gpu_spec = make_simple_spec(gpu_req);
  const uint64_t g =
      sim.state().pod_serial(create(sim, "g", gpu_spec, {1000, 0, 10 * kSecond}, "n0"));
  std::vector<uint64_t> hogs;
  for (int i = 0; i < 3; ++i) {
    hogs.push_back(sim.state().pod_serial(
        create(sim, "h" + std::to_string(i), make_spec(0, 0), {1000, 0, 10 * kSecond}, "n0")));
  }
  const Time t0 = loop.now();
  loop.run_until();
  EXPECT_EQ(w.time_of(EventKind::kPodFinished, g), t0 + 10 * kSecond);
  for (uint64_t s : hogs) EXPECT_EQ(w.time_of(EventKind::kPodFinished, s), t0 + 15 * kSecond);
}

TEST(SimBackend, MemoryOverCapacityOomKillsTheWorstPod) {
  EventLoop loop;
  SimBackend sim(loop, 1);
  sim.add_node(make_node("n0", 4000, kGi));
  Watcher w(sim);
  // Burstable pods: oom_score_adj = 1000 - 1000 × request / capacity = 500.
  const PodId a = create(sim, "a", make_spec(100, 512 * kMi), {100, 700 * kMi, kForever}, "n0");
  const PodId b = create(sim, "b", make_spec(100, 512 * kMi), {100, 300 * kMi, kForever}, "n0");
  loop.run_until(kSecond);
  EXPECT_EQ(sim.memory_used(0), 1000 * kMi);
  // A BestEffort pod (adj 1000) using 100Mi pushes the node over: badness a = 683 + 500,
  // c = 97 + 1000, b = 292 + 500: the kernel kills a.
  const PodId c = create(sim, "c", make_spec(0, 0), {0, 100 * kMi, kForever}, "n0");
  const uint64_t sa = sim.state().pod_serial(a), sb = sim.state().pod_serial(b),
                 sc = sim.state().pod_serial(c);
  loop.run_until(2 * kSecond);
  EXPECT_EQ(w.reason_of(EventKind::kPodFinished, sa), "OOMKilled");
  EXPECT_EQ(w.reason_of(EventKind::kPodFinished, sb), "<none>");
  EXPECT_EQ(w.reason_of(EventKind::kPodFinished, sc), "<none>");
  EXPECT_EQ(sim.memory_used(0), 400 * kMi);
}

TEST(SimBackend, OomKilledDeploymentPodIsReplaced) {
  EventLoop loop;
  SimBackend sim(loop, 1);
  sim.add_node(make_node("n0", 4000, kGi));
  Watcher w(sim, true);
  PodTemplate t;
  t.spec = make_spec(100, 256 * kMi);
  t.exec.memory = Dist::constant(static_cast<double>(400 * kMi));  // underestimated request
  ReplicaSet rs(sim, "web", t, 3, 1);
  auto kills = [&] {
    int n = 0;
    for (const auto& [kind, time, serial, reason] : w.seen) n += reason == "OOMKilled";
    return n;
  };
  // 3 × 400Mi > 1Gi: the newest pod is killed (equal badness, latest started goes first).
  loop.run_until(kSecond);
  EXPECT_EQ(kills(), 1);
  EXPECT_EQ(rs.active_pods().size(), 2u);  // the third replica is in its crash-loop back-off
  // Replaced after 10 s, killed again; then after 20 s, and so on.
  loop.run_until(11 * kSecond);
  EXPECT_EQ(kills(), 2);
  loop.run_until(29 * kSecond);
  EXPECT_EQ(kills(), 2);
  loop.run_until(30 * kSecond);
  EXPECT_EQ(kills(), 3);
  EXPECT_EQ(rs.created(), 5u);
  EXPECT_EQ(rs.active_pods().size(), 2u);
}

TEST(SimBackend, KubeletAdmissionRejectsOvercommittedBindings) {
  EventLoop loop;
  SimBackend sim(loop, 1);
  sim.add_node(make_node("n0", 1000, kGi));
  Watcher w(sim);
  // A careless binder puts two 1-cpu pods on a 1-cpu node.
  const PodId a = create(sim, "a", make_spec(1000, 0), {});
  const PodId b = create(sim, "b", make_spec(1000, 0), {});
  loop.run_until(0);
  for (PodId p : {a, b}) {
    sim.state().assign(p, 0);
    sim.bind(p, 0);
  }
  const uint64_t sa = sim.state().pod_serial(a), sb = sim.state().pod_serial(b);
  loop.run_until();
  EXPECT_EQ(w.reason_of(EventKind::kPodFinished, sa), "<none>");
  EXPECT_EQ(w.reason_of(EventKind::kPodFinished, sb), "OutOfcpu");
  EXPECT_EQ(sim.stage(a), PodStage::kRunning);
}

TEST(SimBackend, BindingToARemovedNodeFails) {
  EventLoop loop;
  Lifecycle lc;
  lc.bind = Dist::constant(kSecond);
  SimBackend sim(loop, 1, lc);
  sim.add_node(make_node("n0", 1000, kGi));
  Watcher w(sim, true);
  const PodId a = create(sim, "a", make_spec(100, 0), {});
  const uint64_t sa = sim.state().pod_serial(a);
  loop.at(500 * kMs, [&] { sim.remove_node(0); });
  loop.run_until();
  EXPECT_EQ(w.time_of(EventKind::kPodBindFailed, sa), kSecond);
  EXPECT_EQ(sim.state().pod_node(a), kNoNode);
  EXPECT_EQ(sim.stage(a), PodStage::kPending);
}

TEST(SimBackend, NodeFailurePausesTaintsThenEvicts) {
  EventLoop loop;
  Lifecycle lc;
  lc.failure_detection = 40 * kSecond;
  lc.failure_eviction = 60 * kSecond;
  SimBackend sim(loop, 1, lc);
  sim.add_node(make_node("n0", 1000, kGi));
  sim.add_node(make_node("n1", 1000, kGi));
  Watcher w(sim);
  const PodId a = create(sim, "a", make_spec(0, 0), {1000, 0, 100 * kSecond}, "n0");
  const uint64_t sa = sim.state().pod_serial(a);
  loop.run_until(10 * kSecond);
  sim.fail_node(0);
  loop.run_until(49 * kSecond);
  EXPECT_TRUE(sim.state().node(0).taints.empty());
  EXPECT_NEAR(sim.execution().remaining(a, loop.now()), 90.0 * kSecond, 1.0);  // paused
  loop.run_until(51 * kSecond);
  ASSERT_EQ(sim.state().node(0).taints.size(), 2u);
  EXPECT_EQ(interned(sim.state().node(0).taints[0].key), "node.kubernetes.io/unreachable");
  loop.run_until();
  EXPECT_EQ(w.time_of(EventKind::kPodDeleted, sa), 110 * kSecond);
  EXPECT_EQ(w.reason_of(EventKind::kPodDeleted, sa), "node failure: evicted");
}

TEST(SimBackend, RecoveredNodeResumesWork) {
  EventLoop loop;
  SimBackend sim(loop, 1);
  sim.add_node(make_node("n0", 1000, kGi));
  Watcher w(sim);
  const PodId a = create(sim, "a", make_spec(0, 0), {1000, 0, 20 * kSecond}, "n0");
  const uint64_t sa = sim.state().pod_serial(a);
  loop.at(5 * kSecond, [&] { sim.fail_node(0); });
  loop.at(15 * kSecond, [&] { sim.recover_node(0); });
  loop.run_until();
  EXPECT_EQ(w.time_of(EventKind::kPodFinished, sa), 30 * kSecond);  // 10 s lost
}

}  // namespace
}  // namespace orrery::sim
