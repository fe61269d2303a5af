// fw::CycleObserver (framework/cycle_observer.h) with the simulator backend: a world that provides
// an observer in its Services sees every counted cycle of the framework's SchedulerDriver (the
// same decisions PolicyStats counts), the FitError message of a failed one, preemption victims,
// the queue after each run, and a planner's decisions; the policy code is unchanged.
#include <gtest/gtest.h>

#include "framework/cycle_observer.h"
#include "framework/runtime.h"
#include "policies/kube/policies.h"
#include "policies/kubedsm/policy.h"
#include "sim/sim_backend.h"
#include "sim/sim_clock.h"
#include "sim_test_util.h"

namespace orrery::sim {
namespace {

using namespace testing;

struct Recording : fw::CycleObserver {
  struct Cycle {
    uint64_t serial;
    bool scheduled;
    std::string profile, message;
    size_t victims;
  };
  std::vector<Cycle> cycles;
  std::vector<fw::QueueCounts> queues;
  std::vector<int64_t> planner_wall_ns;
  void on_cycle(const fw::CycleResult& r) override {
    cycles.push_back({r.outcome.serial, r.outcome.scheduled,
                      r.profile ? r.profile->scheduler_name : "<none>", r.outcome.message,
                      r.outcome.victims.size()});
  }
  void on_queue(const fw::QueueCounts& q) override { queues.push_back(q); }
  void on_planner_decision(int64_t wall_ns) override { planner_wall_ns.push_back(wall_ns); }
};

// A simulated world whose runtime offers `observer` (or nothing).
struct World {
  explicit World(fw::CycleObserver* observer) {
    if (observer) services.provide<fw::CycleObserver>(observer);
  }
  EventLoop loop;
  SimBackend sim{loop, 1};
  SimClock clock{loop};
  fw::Services services;
  fw::Reservations reservations;
  fw::Runtime rt{sim, clock, services, reservations};
  fw::PolicyStats stats;

  std::unique_ptr<fw::Component> policy(const std::string& name) {
    fw::PolicyRegistry reg;
    kube::register_policies(reg);
    kubedsm::register_policies(reg);
    fw::PolicyContext ctx{rt, 1, name, {}, "", stats};
    return reg.create(name, ctx);
  }
  uint64_t add_pod(const std::string& name, int64_t cpu, int32_t priority = 0) {
    auto spec = make_spec(cpu, kGi);
    spec->priority = priority;
    return sim.state().pod_serial(sim.create_pod(make_pod(name, spec), PodExtras{}));
  }
};

TEST(CycleObserver, SeesEveryCountedCycleOfTheSchedulerDriverWithItsFitError) {
  Recording seen;
  World w(&seen);
  w.sim.add_node(make_node("n0", 2000, 8 * kGi));
  w.sim.add_node(make_node("n1", 2000, 8 * kGi));
  auto policy = w.policy("kube-default");
  policy->start();
  for (int i = 0; i < 4; ++i) w.add_pod("p" + std::to_string(i), 1000);
  const uint64_t big = w.add_pod("big", 3000);
  w.loop.run_until(10 * kSecond);

  // One on_cycle per decision PolicyStats counted, with the same results.
  ASSERT_EQ(seen.cycles.size(), w.stats.decisions());
  size_t scheduled = 0;
  for (const auto& c : seen.cycles) {
    scheduled += c.scheduled;
    EXPECT_EQ(c.profile, "default-scheduler");
  }
  EXPECT_EQ(scheduled, w.stats.scheduled());
  EXPECT_EQ(scheduled, 4u);
  // The pod that fits nowhere failed with kube-scheduler's message.
  size_t big_failures = 0;
  for (const auto& c : seen.cycles) {
    if (c.serial != big) continue;
    ++big_failures;
    EXPECT_FALSE(c.scheduled);
    EXPECT_EQ(c.message.rfind("0/2 nodes are available: ", 0), 0u) << c.message;
    EXPECT_NE(c.message.find("Insufficient cpu"), std::string::npos) << c.message;
  }
  EXPECT_GE(big_failures, 1u);
  EXPECT_EQ(big_failures, w.stats.failed());
  // The queue after the last run: the big pod waits in the unschedulable queue.
  ASSERT_FALSE(seen.queues.empty());
  EXPECT_EQ(seen.queues.back().active, 0u);
  EXPECT_EQ(seen.queues.back().backoff + seen.queues.back().unschedulable, 1u);
}

TEST(CycleObserver, ReportsPreemptionVictims) {
  Recording seen;
  World w(&seen);
  w.sim.add_node(make_node("n0", 2000, 8 * kGi));
  auto policy = w.policy("kube-default");
  policy->start();
  w.add_pod("low", 2000, 0);
  w.loop.run_until(1 * kSecond);
  const uint64_t high = w.add_pod("high", 2000, 1000);
  w.loop.run_until(2 * kSecond);
  ASSERT_FALSE(seen.cycles.empty());
  const Recording::Cycle* first_high = nullptr;
  for (const auto& c : seen.cycles)
    if (c.serial == high && !first_high) first_high = &c;
  ASSERT_NE(first_high, nullptr);
  EXPECT_FALSE(first_high->scheduled);
  EXPECT_EQ(first_high->victims, 1u) << first_high->message;
}

TEST(CycleObserver, SeesAPlannersDecisions) {
  Recording seen;
  World w(&seen);
  Node edge = make_node("edge", 4000, 8 * kGi, 110, Tier::kEdge);
  w.sim.add_node(edge);
  w.sim.add_node(make_node("cloud", 16000, 32 * kGi, 110, Tier::kCloud));
  auto policy = w.policy("kubedsm");
  policy->start();
  for (int i = 0; i < 3; ++i) w.add_pod("s" + std::to_string(i), 1000);
  w.loop.run_until(30 * kSecond);
  EXPECT_GT(w.stats.decisions(), 0u);
  EXPECT_EQ(seen.planner_wall_ns.size(), w.stats.decisions());
  EXPECT_TRUE(seen.cycles.empty()) << "KubeDSM runs no framework cycle";
}

TEST(CycleObserver, AWorldWithoutAnObserverSchedulesTheSame) {
  Recording seen;
  World observed(&seen), plain(nullptr);
  for (World* w : {&observed, &plain}) {
    w->sim.add_node(make_node("n0", 2000, 8 * kGi));
    w->sim.add_node(make_node("n1", 4000, 8 * kGi));
  }
  auto a = observed.policy("kube-default");
  auto b = plain.policy("kube-default");
  a->start();
  b->start();
  for (World* w : {&observed, &plain})
    for (int i = 0; i < 7; ++i) w->add_pod("p" + std::to_string(i), 700 + 100 * i);
  observed.loop.run_until(10 * kSecond);
  plain.loop.run_until(10 * kSecond);
  EXPECT_EQ(observed.stats.scheduled(), plain.stats.scheduled());
  EXPECT_EQ(observed.stats.failed(), plain.stats.failed());
  for (PodId p : observed.sim.state().pods())
    EXPECT_EQ(observed.sim.state().pod_node(p), plain.sim.state().pod_node(p));
}

}  // namespace
}  // namespace orrery::sim
