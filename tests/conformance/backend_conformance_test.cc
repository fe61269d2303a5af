// BackendConformance: the event contracts of framework/backend.h, one table run against every
// ClusterBackend: the simulator (sim::SimBackend), the static snapshot (fw::SnapshotBackend) and
// the Kubernetes API backend (k8s::ApiBackend) against the fake API server (tests/k8s), where
// every action is a real HTTP call confirmed by a watch event. Each contract drives the backend only through
// the seam (bind, delete_pod, create_pod, update_pod, Refusals) and asserts on the events every
// listener sees and on the state they leave; the scheduler contract runs fw::Scheduler itself,
// so its bind-failure forgetting, backoff and retry are exercised on every world.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/node.h"
#include "core/pod.h"
#include "framework/backend.h"
#include "framework/realtime_loop.h"
#include "k8s/api_backend.h"
#include "k8s/fake_apiserver.h"
#include "k8s/k8s_test_util.h"
#include "framework/scheduler.h"
#include "plugins/register.h"
#include "sim/event_loop.h"
#include "sim/sim_backend.h"

namespace orrery::fw {
namespace {

Node node(const std::string& name) {
  Node n;
  n.name = name;
  n.labels.set("kubernetes.io/hostname", name);
  n.allocatable[kCpu] = 4000;
  n.allocatable[kMemory] = int64_t{8} << 30;
  n.allocatable[kPods] = 110;
  n.capacity = n.allocatable;
  return n;
}

Pod pod(const std::string& name, int64_t milli_cpu = 500) {
  Resources r;
  r[kCpu] = milli_cpu;
  r[kMemory] = int64_t{256} << 20;
  Pod p;
  p.name = name;
  p.spec = make_simple_spec(r);
  return p;
}

// One world behind the seam, with the few test-only hooks a contract needs to set up a cluster.
class World {
 public:
  virtual ~World() = default;
  virtual ClusterBackend& backend() = 0;
  // Delivers what is pending (advancing the world's time as far as needed).
  virtual void settle() = 0;
  virtual void set_refusals(Refusals r) = 0;
  virtual NodeId add_node(Node n) = 0;
  // A pod already running on `node` (set up without going through the scheduler).
  virtual PodId add_running_pod(Pod p, NodeId node) = 0;
  // Advances the world's clock to t (the scheduler's backoff is measured in it).
  virtual void advance_to(int64_t t) = 0;
  // False where a change of a pod's requests re-creates it (the API: no in-place resize here).
  virtual bool resizes_in_place() const { return true; }
};

class SimWorld : public World {
 public:
  SimWorld() : sim_(loop_, 1, lifecycle()) {}
  ClusterBackend& backend() override { return sim_; }
  void settle() override { loop_.run_until(); }
  void set_refusals(Refusals r) override { sim_.set_refusals(std::move(r)); }
  NodeId add_node(Node n) override { return sim_.add_node(std::move(n)); }
  PodId add_running_pod(Pod p, NodeId n) override {
    p.node_name = sim_.state().node(n).name;
    const PodId id = sim_.create_pod(std::move(p), sim::PodExtras{});
    loop_.run_until();
    return id;
  }
  void advance_to(int64_t t) override { loop_.run_until(std::max(t, loop_.now())); }

 private:
  static sim::Lifecycle lifecycle() {
    sim::Lifecycle lc;
    lc.api = Dist::constant(10 * kMs);
    lc.bind = Dist::constant(20 * kMs);
    lc.startup = Dist::constant(kSecond);
    lc.termination = Dist::constant(2 * kSecond);
    return lc;
  }
  sim::EventLoop loop_;
  sim::SimBackend sim_;
};

class SnapshotWorld : public World {
 public:
  SnapshotWorld() : snap_(ClusterState{}) {}
  ClusterBackend& backend() override { return snap_; }
  void settle() override {}
  void set_refusals(Refusals r) override { snap_.set_refusals(std::move(r)); }
  NodeId add_node(Node n) override { return snap_.state().add_node(std::move(n)); }
  PodId add_running_pod(Pod p, NodeId n) override {
    p.node_name = snap_.state().node(n).name;
    p.phase = PodPhase::kRunning;
    return snap_.state().add_pod(std::move(p));
  }
  void advance_to(int64_t t) override { snap_.set_now_us(std::max(t, snap_.now_us())); }

 private:
  SnapshotBackend snap_;
};

// The real-cluster world: ApiBackend over HTTP against the fake API server. Refusals become the
// server's answers (409 on bind, 429 on eviction, with the refusal's message); the refusal
// functions see no state (the server decides, as a real one would). The clock is the wall clock.
class ApiWorld : public World {
 public:
  ApiWorld() {
    k8s::testing::FakeApiServerOptions o;
    o.bookmark_interval_ms = 50;
    server_ = std::make_unique<k8s::testing::FakeApiServer>(o);
    k8s::ClusterConfig cfg;
    k8s::parse_server_url(server_->url(), "conformance", &cfg);
    client_ = std::make_unique<k8s::ApiClient>(cfg);
    k8s::ApiBackendOptions opt;
    opt.backoff.initial_ms = 20;
    opt.backoff.max_ms = 200;
    opt.eviction_attempts = 2;
    opt.eviction_backoff_ms = 10;
    backend_ = std::make_unique<k8s::ApiBackend>(*client_, loop_, opt);
    backend_->add_listener(&counter_);
    backend_->start();
    k8s::testing::run_until(loop_, [&] { return backend_->synced(); });
  }
  ~ApiWorld() override {
    client_->interrupt();
    backend_->stop(true);
    backend_->remove_listener(&counter_);
  }
  ClusterBackend& backend() override { return *backend_; }
  // Until no call is in flight and the watch has been quiet for 100 ms.
  void settle() override {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    uint64_t last = counter_.events;
    auto quiet_since = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() < deadline) {
      loop_.run_for(5 * 1000);
      if (counter_.events != last || backend_->in_flight() > 0) {
        last = counter_.events;
        quiet_since = std::chrono::steady_clock::now();
      } else if (std::chrono::steady_clock::now() - quiet_since > std::chrono::milliseconds(100)) {
        return;
      }
    }
  }
  void set_refusals(Refusals r) override {
    static const ClusterState none;
    auto bind = r.bind;
    auto remove = r.remove;
    server_->set_bind_refusal_message([bind](const std::string&, const std::string&) {
      return bind ? bind(none, kNoPod, kNoNode) : std::string();
    });
    server_->set_eviction_refusal(
        [remove](const std::string&) { return remove ? remove(none, kNoPod) : std::string(); });
  }
  NodeId add_node(Node n) override {
    server_->add("nodes", k8s::testing::make_node(n.name, "4", "8Gi", "110"));
    settle();
    return backend_->state().find_node(n.name).value_or(kNoNode);
  }
  PodId add_running_pod(Pod p, NodeId n) override {
    const std::string ns = p.ns.empty() ? "default" : p.ns;
    nlohmann::json obj = k8s::testing::make_pod(
        ns, p.name, std::to_string(p.spec->request[kCpu]) + "m",
        std::to_string(p.spec->request[kMemory] >> 20) + "Mi");
    obj["spec"]["nodeName"] = backend_->state().node(n).name;
    obj["status"]["phase"] = "Running";
    server_->add("pods", obj);
    settle();
    return backend_->state().find_pod(ns, p.name).value_or(kNoPod);
  }
  void advance_to(int64_t t) override {
    while (loop_.now_us() < t) loop_.run_for(std::min<int64_t>(t - loop_.now_us(), 20 * 1000));
  }
  bool resizes_in_place() const override { return false; }

 private:
  struct Counter : EventListener {
    void on_event(const ClusterEvent&) override { ++events; }
    uint64_t events = 0;
  };
  std::unique_ptr<k8s::testing::FakeApiServer> server_;
  RealTimeLoop loop_;
  std::unique_ptr<k8s::ApiClient> client_;
  std::unique_ptr<k8s::ApiBackend> backend_;
  Counter counter_;
};

struct Seen {
  EventKind kind;
  uint64_t serial;
  NodeId node;
  std::string reason;
};

class Recorder : public EventListener {
 public:
  void on_event(const ClusterEvent& e) override {
    seen.push_back({e.kind, e.pod_serial, e.node, std::string(e.reason)});
  }
  // The kinds seen for one pod, in order.
  std::vector<EventKind> kinds(uint64_t serial) const {
    std::vector<EventKind> out;
    for (const Seen& s : seen)
      if (s.serial == serial) out.push_back(s.kind);
    return out;
  }
  const Seen* first(EventKind k) const {
    for (const Seen& s : seen)
      if (s.kind == k) return &s;
    return nullptr;
  }
  std::vector<Seen> seen;
};

using Factory = std::function<std::unique_ptr<World>()>;
struct Param {
  std::string name;
  Factory make;
};
void PrintTo(const Param& p, std::ostream* os) {
  *os << p.name;
}

class Contract : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    world = GetParam().make();
    n0 = world->add_node(node("n0"));
    n1 = world->add_node(node("n1"));
    world->backend().add_listener(&rec);
  }
  void TearDown() override { world->backend().remove_listener(&rec); }
  ClusterState& state() { return world->backend().state(); }
  // Creates a pending pod through the seam and returns its id from the confirming PodAdded.
  PodId create(const std::string& name) {
    world->backend().create_pod(pod(name));
    world->settle();
    auto id = state().find_pod("default", name);
    EXPECT_TRUE(id.has_value()) << name << " was not created";
    return *id;
  }

  std::unique_ptr<World> world;
  Recorder rec;
  NodeId n0 = kNoNode, n1 = kNoNode;
};

TEST_P(Contract, CreateIsConfirmedByPodAdded) {
  const PodId p = create("web-1");
  const Seen* added = rec.first(EventKind::kPodAdded);
  ASSERT_NE(added, nullptr);
  EXPECT_EQ(added->serial, state().pod_serial(p));
  EXPECT_EQ(state().pod_node(p), kNoNode);
  EXPECT_EQ(state().pod(p).phase, PodPhase::kPending);
}

TEST_P(Contract, BindIsConfirmedByPodBoundOnThatNode) {
  const PodId p = create("web-1");
  const uint64_t serial = state().pod_serial(p);
  state().assign(p, n1);  // assume, as a scheduler does
  world->backend().bind(p, n1);
  world->settle();
  const Seen* bound = rec.first(EventKind::kPodBound);
  ASSERT_NE(bound, nullptr);
  EXPECT_EQ(bound->serial, serial);
  EXPECT_EQ(bound->node, n1);
  EXPECT_EQ(state().pod_node(p), n1);
  EXPECT_EQ(rec.first(EventKind::kPodBindFailed), nullptr);
}

TEST_P(Contract, RefusedBindIsPodBindFailedWithTheReasonAndTheAssumptionUndone) {
  const PodId p = create("web-1");
  world->set_refusals({[](const ClusterState&, PodId, NodeId) {
                         return std::string("Operation cannot be fulfilled: already assigned");
                       },
                       nullptr});
  state().assign(p, n0);
  world->backend().bind(p, n0);
  world->settle();
  const Seen* failed = rec.first(EventKind::kPodBindFailed);
  ASSERT_NE(failed, nullptr);
  // The world may add its own context (the API: the HTTP status) around the refusal's message.
  EXPECT_NE(failed->reason.find("Operation cannot be fulfilled: already assigned"), std::string::npos)
      << failed->reason;
  EXPECT_EQ(rec.first(EventKind::kPodBound), nullptr);
  EXPECT_EQ(state().pod_node(p), kNoNode) << "the backend unassigns a pod whose bind failed";
  EXPECT_EQ(state().requested(kCpu)[n0], 0);
}

TEST_P(Contract, DeleteOfARunningPodIsTerminatingThenDeleted) {
  const PodId p = world->add_running_pod(pod("db-0"), n0);
  const uint64_t serial = state().pod_serial(p);
  rec.seen.clear();
  bool terminating_seen_with_flag = false;
  struct Probe : EventListener {
    ClusterState* st;
    bool* flag;
    void on_event(const ClusterEvent& e) override {
      if (e.kind == EventKind::kPodTerminating)
        *flag = st->pod_alive(e.pod) && st->pod(e.pod).terminating &&
                st->pod_node(e.pod) != kNoNode;  // it still holds its node
    }
  } probe;
  probe.st = &state();
  probe.flag = &terminating_seen_with_flag;
  world->backend().add_listener(&probe);
  world->backend().delete_pod(p, "scaled down");
  world->settle();
  world->backend().remove_listener(&probe);
  EXPECT_EQ(rec.kinds(serial),
            (std::vector<EventKind>{EventKind::kPodTerminating, EventKind::kPodDeleted}));
  EXPECT_TRUE(terminating_seen_with_flag);
  EXPECT_FALSE(state().find_pod("default", "db-0").has_value());
  EXPECT_EQ(state().requested(kCpu)[n0], 0);
}

TEST_P(Contract, DeleteOfAPendingPodIsDeleted) {
  const PodId p = create("job-1");
  const uint64_t serial = state().pod_serial(p);
  rec.seen.clear();
  world->backend().delete_pod(p, "cancelled");
  world->settle();
  EXPECT_EQ(rec.kinds(serial), std::vector<EventKind>{EventKind::kPodDeleted});
}

TEST_P(Contract, RefusedDeleteIsPodDeleteFailedAndThePodStays) {
  const PodId p = world->add_running_pod(pod("db-0"), n0);
  const uint64_t serial = state().pod_serial(p);
  world->set_refusals({nullptr, [](const ClusterState&, PodId) {
                         return std::string(
                             "Cannot evict pod as it would violate the pod's "
                             "disruption budget.");
                       }});
  rec.seen.clear();
  world->backend().delete_pod(p, "preempted");
  world->settle();
  EXPECT_EQ(rec.kinds(serial), std::vector<EventKind>{EventKind::kPodDeleteFailed});
  EXPECT_NE(rec.first(EventKind::kPodDeleteFailed)->reason.find("disruption budget"),
            std::string::npos);
  ASSERT_TRUE(state().pod_alive(p));
  EXPECT_FALSE(state().pod(p).terminating);
  EXPECT_EQ(state().pod_node(p), n0);
}

TEST_P(Contract, UpdateIsConfirmedByPodUpdatedAndChangesThePodInPlace) {
  const PodId p = create("infer-1");
  const uint64_t serial = state().pod_serial(p);
  rec.seen.clear();
  PodUpdate u;
  u.spec = [](PodSpec& s) {
    s.labels.set("tier", "gpu");
    s.containers.at(0).requests[kCpu] = 1500;
    s.containers.at(0).requests_set |= 1u << kCpu;
  };
  const bool in_place = world->backend().update_pod(p, u);
  world->settle();
  EXPECT_EQ(in_place, world->resizes_in_place());
  if (world->resizes_in_place()) {
    EXPECT_EQ(rec.kinds(serial), std::vector<EventKind>{EventKind::kPodUpdated});
    ASSERT_TRUE(state().pod_alive(p));
    EXPECT_EQ(state().pod_serial(p), serial);
  } else {  // re-created: the old pod is deleted, a new one with the change is added
    EXPECT_EQ(rec.kinds(serial).back(), EventKind::kPodDeleted);
  }
  auto now = state().find_pod("default", "infer-1");
  ASSERT_TRUE(now.has_value());
  EXPECT_EQ(state().pod(*now).spec->labels.get(std::string_view("tier")), "gpu");
  EXPECT_EQ(state().pod(*now).spec->request[kCpu], 1500);
}

TEST_P(Contract, UpdateOfAnAssignedPodRecountsItsRequests) {
  const PodId p = world->add_running_pod(pod("db-0", 500), n1);
  ASSERT_EQ(state().requested(kCpu)[n1], 500);
  PodUpdate u;
  u.spec = [](PodSpec& s) { s.containers.at(0).requests[kCpu] = 900; };
  world->backend().update_pod(p, u);
  world->settle();
  // In place: the node's requests follow; re-created: the new pod is pending, the node is free.
  EXPECT_EQ(state().requested(kCpu)[n1], world->resizes_in_place() ? 900 : 0);
}

// The scheduler on each world: a refused bind makes it forget its assumption (the node's room is
// free again), back off, and retry until the pod is bound.
TEST_P(Contract, SchedulerForgetsAFailedBindAndRetriesAfterBackoff) {
  fw::PluginRegistry reg;
  plugins::register_default_plugins(reg);
  auto profiles = plugins::build_profiles(fw::default_scheduler_config(), reg);
  for (auto& prof : profiles) prof->deterministic_ties = true;
  Scheduler sched(world->backend(), std::move(profiles));
  int refusals_left = 2;
  world->set_refusals({[&](const ClusterState&, PodId, NodeId) {
                         return refusals_left-- > 0 ? std::string("conflict") : std::string();
                       },
                       nullptr});
  const PodId p = create("web-1");
  const uint64_t serial = state().pod_serial(p);
  int attempts = 0;
  for (int round = 0; round < 20 && state().pod_node(p) == kNoNode; ++round) {
    while (auto o = sched.schedule_next()) {
      ++attempts;
      world->settle();
    }
    world->settle();
    if (state().pod_node(p) != kNoNode && rec.first(EventKind::kPodBound)) break;
    auto t = sched.next_wakeup_us();
    ASSERT_TRUE(t.has_value()) << "a pod whose bind failed must come back by itself";
    world->advance_to(*t);
  }
  EXPECT_EQ(attempts, 3);
  // (A world that runs pods goes on with PodRunning; the contract is the prefix.)
  std::vector<EventKind> kinds = rec.kinds(serial);
  kinds.resize(std::min<size_t>(kinds.size(), 4));
  EXPECT_EQ(kinds, (std::vector<EventKind>{EventKind::kPodAdded, EventKind::kPodBindFailed,
                                           EventKind::kPodBindFailed, EventKind::kPodBound}));
  ASSERT_NE(state().pod_node(p), kNoNode);
  // Only the final binding is counted: failed assumptions were forgotten.
  EXPECT_EQ(state().requested(kCpu)[n0] + state().requested(kCpu)[n1], 500);
}

INSTANTIATE_TEST_SUITE_P(
    BackendConformance, Contract,
    ::testing::Values(Param{"Simulator", [] { return std::make_unique<SimWorld>(); }},
                      Param{"Snapshot", [] { return std::make_unique<SnapshotWorld>(); }},
                      Param{"KubernetesApi", [] { return std::make_unique<ApiWorld>(); }}),
    [](const ::testing::TestParamInfo<Param>& i) { return i.param.name; });

}  // namespace
}  // namespace orrery::fw
