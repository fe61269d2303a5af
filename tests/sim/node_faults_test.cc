// Node failure and recovery in the scenario simulator (events fail / recover / random-failures):
// every pod is accounted for exactly once in pods.csv with an outcome that agrees with what
// happened to it, no pod is bound to a node known to have failed, the controllers bring the
// deployment back to its replicas after recovery, and the summary's counters agree with pods.csv.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "core/error.h"
#include "policies/kube/policies.h"
#include "sim/simulation.h"

namespace orrery::sim {
namespace {

fw::PolicyRegistry kube_registry() {
  fw::PolicyRegistry r;
  kube::register_policies(r);
  return r;
}

// A service and a stream of jobs on six nodes. node-0 fails at 2 min and recovers at 6 min; every
// node also fails at random (mean 8 min up, 2 min down) until 25 min; all are recovered at 36 min.
const char* kScenario = R"(
seed: 5
duration: 40m
scheduler: kube-default
lifecycle: {bind: 5ms, startup: 2s, termination: 3s, node_failure: {detection: 20s, eviction: 30s}}
cluster: {nodes: [{name: node, count: 6, cpu: 8, memory: 16Gi}]}
workloads:
- deployment: {name: web, replicas: 18, requests: {cpu: 1, memory: 2Gi}}
- arrivals: {name: batch, process: constant, rate: 0.02, stop: 25m,
             job: {completions: 3, requests: {cpu: 2, memory: 1Gi}, work: 3m}}
events:
- {at: 2m, action: fail, nodes: [node-0]}
- {at: 6m, action: recover, nodes: [node-0]}
- {at: 1m, action: random-failures, nodes: [node], mtbf: 8m, mttr: 2m, until: 25m}
- {at: 36m, action: recover, nodes: [node]}
)";

// What the backend told its listeners: pods added, bound (where, when), deleted; the windows in
// which each node was tainted unreachable (its failure detected).
struct Watcher : fw::EventListener {
  explicit Watcher(SimBackend& b) : sim(b) { sim.add_listener(this); }
  void on_event(const fw::ClusterEvent& e) override {
    const Time now = sim.now_us();
    switch (e.kind) {
      case fw::EventKind::kPodAdded: added.insert(e.pod_serial); break;
      case fw::EventKind::kPodBound: binds.push_back({e.pod_serial, e.node, now}); break;
      case fw::EventKind::kPodDeleted: deleted.insert(e.pod_serial); break;
      case fw::EventKind::kNodeUpdated:
        if (sim.event_reason() == "NodeUnreachable") tainted[e.node].push_back({now, kForever});
        if (sim.event_reason() == "NodeReady") tainted[e.node].back().second = now;
        break;
      default: break;
    }
  }
  struct Bind {
    uint64_t serial;
    NodeId node;
    Time at;
  };
  SimBackend& sim;
  std::set<uint64_t> added, deleted;
  std::vector<Bind> binds;
  std::map<NodeId, std::vector<std::pair<Time, Time>>> tainted;
};

struct Row {
  std::string pod, owner, node, outcome;
  int restarts = 0;
};

std::vector<Row> parse_pods_csv(const std::string& csv) {
  std::vector<Row> rows;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (line.back() == ',') f.emplace_back();
    EXPECT_EQ(f.size(), 13u) << line;
    if (f.size() != 13) continue;
    rows.push_back({f[0], f[1], f[2], f[12], std::stoi(f[10])});
  }
  return rows;
}

bool terminal(const std::string& outcome) {
  return outcome != "Pending" && outcome != "Bound" && outcome != "Running";
}

TEST(NodeFaults, EveryPodAccountedOnceNoBindToAFailedNodeReplicasRestored) {
  const Scenario sc = parse_scenario(kScenario, "s.yaml", "");
  fw::PolicyRegistry reg = kube_registry();
  RunOptions opt;
  opt.wall_clock = false;
  Simulation sim(sc, reg, opt);
  Watcher w(sim.backend());
  sim.run();

  // Failures happened, on several nodes, and pods were evicted.
  size_t windows = 0;
  for (const auto& [node, ws] : w.tainted) windows += ws.size();
  EXPECT_GE(w.tainted.size(), 3u);
  EXPECT_GE(windows, 4u);

  const std::vector<Row> rows = parse_pods_csv(sim.recorder().pods_csv());
  const Json s = sim.summary();
  // Every pod created is one row, once.
  EXPECT_EQ(rows.size(), w.added.size());
  EXPECT_EQ(rows.size(), s["pods"]["count"].get<size_t>());
  std::set<std::string> names;
  for (const Row& r : rows) EXPECT_TRUE(names.insert(r.pod).second) << r.pod << " twice";
  // Outcomes agree with the summary's counters and with the pods' fates: a deleted pod has a
  // terminal outcome, a live one does not.
  std::map<std::string, size_t> outcomes;
  for (const Row& r : rows) ++outcomes[r.outcome];
  EXPECT_EQ(Json(outcomes), s["pods"]["outcomes"]);
  EXPECT_GT(outcomes["Evicted"], 10u);
  size_t terminal_rows = 0;
  for (const Row& r : rows) terminal_rows += terminal(r.outcome);
  // (finished pods are removed at once: lifecycle gc is 0)
  EXPECT_EQ(terminal_rows, w.deleted.size());
  EXPECT_EQ(rows.size() - terminal_rows, sim.backend().state().pod_count());

  // No pod is bound twice, and none is bound to a node while its failure is known (tainted).
  std::set<uint64_t> bound;
  for (const Watcher::Bind& b : w.binds) {
    EXPECT_TRUE(bound.insert(b.serial).second) << "pod serial " << b.serial << " bound twice";
    for (const auto& [from, to] : w.tainted[b.node]) {
      EXPECT_FALSE(b.at > from && b.at < to)
          << "bound to " << sim.backend().state().node(b.node).name << " at " << to_seconds(b.at)
          << " s, unreachable from " << to_seconds(from) << " s to " << to_seconds(to) << " s";
    }
  }

  // After the recovery the deployment is back to its replicas, all running on live nodes.
  const ClusterState& st = sim.backend().state();
  ReplicaSet* web = sim.deployment("web");
  ASSERT_NE(web, nullptr);
  ASSERT_EQ(web->active_pods().size(), 18u);
  uint32_t restarts = 0;
  for (PodId p : web->active_pods()) {
    EXPECT_EQ(sim.backend().stage(p), PodStage::kRunning);
    EXPECT_FALSE(sim.backend().node_failed(st.pod_node(p)));
    restarts += sim.backend().restarts(p);
  }
  // Each evicted web pod was replaced once: the replicas' restart counts add up to them.
  size_t web_evicted = 0, web_running = 0;
  for (const Row& r : rows) {
    if (r.owner != "web") continue;
    web_evicted += r.outcome == "Evicted";
    web_running += r.outcome == "Running";
  }
  EXPECT_EQ(restarts, web_evicted);
  EXPECT_EQ(web_running, 18u);
  // Every job finished with its three successful pods.
  EXPECT_EQ(s["jobs"]["unfinished"], 0);
  EXPECT_EQ(s["jobs"]["failed"], 0);
  EXPECT_EQ(outcomes["Succeeded"], 3 * s["jobs"]["count"].get<size_t>());
}

TEST(NodeFaults, RandomFailuresAreSeeded) {
  fw::PolicyRegistry reg = kube_registry();
  auto pods = [&](uint64_t seed) {
    Scenario sc = parse_scenario(kScenario, "s.yaml", "");
    RunOptions opt;
    opt.wall_clock = false;
    opt.seed = seed;
    Simulation sim(sc, reg, opt);
    sim.run();
    return sim.recorder().pods_csv();
  };
  EXPECT_EQ(pods(5), pods(5));
  EXPECT_NE(pods(5), pods(6));
}

TEST(NodeFaults, RandomFailureEventsAreChecked) {
  auto error = [](const std::string& event) {
    try {
      parse_scenario(
          "duration: 1m\ncluster: {nodes: [{name: a, cpu: 1}]}\nevents:\n- " + event + "\n",
          "s.yaml", "");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("{at: 0s, action: random-failures, nodes: [a], mttr: 1m}"),
            "s.yaml:4: events[0]: action random-failures needs mtbf (a duration)");
  EXPECT_EQ(error("{at: 0s, action: random-failures, nodes: [a], mtbf: 0s, mttr: 1m}"),
            "s.yaml:4: events[0].mtbf: expected a duration > 0");
  EXPECT_EQ(error("{at: 5m, action: random-failures, nodes: [a], mtbf: 1m, mttr: 1m, until: 1m}"),
            "s.yaml:4: events[0].until: expected a time after at");
  EXPECT_NE(error("{at: 0s, action: fail, nodes: [a], mtbf: 1m}").find("unknown field \"mtbf\""),
            std::string::npos);
  EXPECT_NE(error("{at: 0s, action: explode, nodes: [a]}")
                .find("expected fail, recover, remove, add or random-failures"),
            std::string::npos);
}

}  // namespace
}  // namespace orrery::sim
