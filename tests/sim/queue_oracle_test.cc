// The queue oracle: every scenario runs twice, with the scheduling queue's hints
// (args.queue: hints, the default) and with the brute-force requeue-all mode that retries every
// waiting pod with a full scheduling cycle on every event (framework/queue.h). Both share one
// queue semantics, so every output file must be identical byte for byte: a hint that is not
// conservative, or an equivalence class that puts pods together which a filter tells apart, lets
// a requeue-all retry succeed where the hints mode never tried, and the runs differ.
//
// Nothing is excluded or normalised: requeue-all retries that fail count for nothing (no
// decision, no simulated time, no event), so even summary.json's counters agree.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "framework/config.h"
#include "io/k8s_objects.h"
#include "plugins/podtopologyspread/pod_topology_spread.h"
#include "policies/kube/policies.h"
#include "scratch_dir.h"
#include "sim/simulation.h"

namespace orrery::sim {
namespace {

using Files = std::map<std::string, std::string>;  // file name → contents

// PodTopologySpread that wrongly ignores assigned pods (a pod placed in the least-loaded domain
// can lower the skew for others).
class SpreadIgnoringAssignedPods : public plugins::PodTopologySpread {
 public:
  fw::QueueingHint queueing_hint(const fw::QueueEvent& e, const ClusterState& st,
                                 const fw::PodClassKey& waiting) const override {
    if (e.kind == fw::QueueEvent::kPodAssigned) return fw::QueueingHint::kSkip;
    return PodTopologySpread::queueing_hint(e, st, waiting);
  }
};

// Rejects every node for web pods whose name ends in an even digit: it reads the pod's name, so
// pods of one spec differ for it. `truthful` says so (class_salt: a class per pod); otherwise it
// claims to read the spec only.
class EvenNamesWait : public fw::Plugin {
 public:
  explicit EvenNamesWait(bool truthful) : truthful_(truthful) {}
  std::string_view name() const override { return "EvenNamesWait"; }
  uint32_t extension_points() const override { return fw::kFilter; }
  size_t filter(const fw::CycleContext& c, NodeId* nodes, size_t n,
                fw::Rejections& rejections) override {
    const char last = c.pod.name.back();
    if (!c.pod.name.starts_with("web-") || (last - '0') % 2 != 0) return n;
    for (size_t i = 0; i < n; ++i) rejections.add(nodes[i], 0, 0, true);
    return 0;
  }
  uint64_t class_salt(const ClusterState& st, PodId pod) const override {
    return truthful_ ? Plugin::class_salt(st, pod) : 0;
  }

 private:
  bool truthful_;
};

fw::SchedulerConfig with_even_names() {
  return fw::parse_scheduler_config(
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "profiles:\n"
      "- schedulerName: default-scheduler\n"
      "  plugins:\n"
      "    multiPoint:\n"
      "      enabled: [{name: EvenNamesWait}]\n",
      "<even-names>");
}

fw::PolicyRegistry registry() {
  fw::PolicyRegistry r;
  kube::register_policies(r);
  r.add("lying-spread", "test: PodTopologySpread skipping assigned pods",
        kube::framework_policy(
            [](fw::PluginRegistry& p) {
              p.add("PodTopologySpread", [](const fw::PluginArgs&) {
                return std::make_unique<SpreadIgnoringAssignedPods>();
              });
            },
            fw::default_scheduler_config));
  for (bool truthful : {true, false}) {
    r.add(truthful ? "even-names" : "lying-even-names", "test: even pod names never fit",
          kube::framework_policy(
              [truthful](fw::PluginRegistry& p) {
                p.add("EvenNamesWait", [truthful](const fw::PluginArgs&) {
                  return std::make_unique<EvenNamesWait>(truthful);
                });
              },
              with_even_names));
  }
  return r;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// 25 jobs of 3-15 tasks (0.5-3 s), one every 0.7 s: about 220 tasks for 4 one-slot workers.
std::string kSmallTraceText() {
  std::string out;
  uint64_t x = 88172645463325252ULL;
  auto next = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  const char* durations[] = {"1", "1", "2", "3", "0.5"};
  for (int j = 0; j < 25; ++j) {
    const int n = 3 + static_cast<int>(next() % 13);
    std::string line = std::to_string(j * 7 / 10) + "." + std::to_string(j * 7 % 10) + " " +
                       std::to_string(n) + " 1";
    for (int t = 0; t < n; ++t) line += std::string(" ") + durations[next() % 5];
    out += line + "\n";
  }
  return out;
}

// Runs `scenario` (with {QUEUE} replaced by the mode) and returns its output files.
Files run(const std::string& scenario, const std::string& mode, uint64_t seed,
          const orrery::testing::ScratchDir& dir) {
  const std::string text = replace_all(scenario, "{QUEUE}", mode);
  const Scenario sc = parse_scenario(text, "oracle.yaml", dir.root().string());
  RunOptions opt;
  opt.seed = seed;
  opt.wall_clock = false;
  const fw::PolicyRegistry reg = registry();
  Simulation sim(sc, reg, opt);
  sim.run();
  const std::string out = dir.path(mode + "-" + std::to_string(seed));
  sim.write_outputs(out);
  Files files;
  for (const auto& f : std::filesystem::directory_iterator(out)) {
    files[f.path().filename().string()] = orrery::read_text_file(f.path().string());
  }
  return files;
}

// The first line where two texts differ, for the failure message.
std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool ga = static_cast<bool>(std::getline(sa, la));
    const bool gb = static_cast<bool>(std::getline(sb, lb));
    if (!ga && !gb) return "no difference";
    if (!ga || !gb || la != lb) {
      return "line " + std::to_string(line) + ":\n  hints:       " + (ga ? la : "<end>") +
             "\n  requeue-all: " + (gb ? lb : "<end>");
    }
  }
}

struct Outcome {
  bool identical = true;
  Json summary;  // of the hints run
};

// Runs both modes for each seed; expects (or not) byte-identical outputs.
Outcome compare(const std::string& scenario, const std::vector<uint64_t>& seeds,
                const std::string& name, bool expect_identical = true) {
  orrery::testing::ScratchDir dir("queue-oracle-" + name);
  dir.write("small.tr", kSmallTraceText());
  Outcome result;
  for (uint64_t seed : seeds) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Files hints = run(scenario, "hints", seed, dir);
    const Files all = run(scenario, "requeue-all", seed, dir);
    EXPECT_EQ(hints.size(), all.size());
    EXPECT_GE(hints.size(), 4u);  // jobs.csv, pods.csv, summary.json, timeseries.csv
    for (const auto& [file, text] : hints) {
      auto it = all.find(file);
      const bool same = it != all.end() && it->second == text;
      if (!same) result.identical = false;
      if (expect_identical) {
        EXPECT_TRUE(same) << file << " differs at "
                          << first_difference(text, it == all.end() ? "" : it->second);
      }
    }
    result.summary = Json::parse(hints.at("summary.json"));
  }
  return result;
}

// An overloaded run: many failed attempts and pods still waiting at some point.
void expect_overloaded(const Json& s) {
  EXPECT_GT(s["scheduler"]["failed_attempts"].get<int64_t>(),
            s["scheduler"]["scheduled"].get<int64_t>() / 2);
  EXPECT_GT(s["pods"]["pending_p90_s"].get<double>(), 1.0);
}

TEST(QueueOracle, TraceReplayOnFewWorkers) {
  const std::string sc = R"(
name: oracle-trace
scheduler: {policy: kube-default, args: {queue: {QUEUE}}}
cluster:
  nodes:
  - {name: worker, count: 4, cpu: 1, memory: 1Gi, pods: 1}
workloads:
- trace: {file: small.tr}
)";
  expect_overloaded(compare(sc, {1, 2}, "trace").summary);
}

TEST(QueueOracle, TraceReplayWithDecisionLatency) {
  // A busy scheduler lets pods moved by several events wait in the active queue together.
  const std::string sc = R"(
name: oracle-trace-latency
scheduler:
  policy: kube-default
  args: {queue: {QUEUE}, decision_latency: {base: {dist: uniform, min: 1ms, max: 300ms}}}
lifecycle: {bind: 10ms, gc: 200ms}
cluster:
  nodes:
  - {name: worker, count: 3, cpu: 1, memory: 1Gi, pods: 1}
workloads:
- trace: {file: small.tr}
)";
  expect_overloaded(compare(sc, {3, 4}, "trace-latency").summary);
}

TEST(QueueOracle, PrioritiesAndPreemption) {
  const std::string sc = R"(
name: oracle-preemption
duration: 20m
scheduler:
  policy: kube-default
  args: {queue: {QUEUE}, decision_latency: {base: {dist: uniform, min: 1ms, max: 40ms}}}
lifecycle: {bind: 5ms, startup: {dist: uniform, min: 100ms, max: 2s}, termination: 3s, gc: 1s}
cluster:
  nodes:
  - {name: n, count: 5, cpu: 4, memory: 8Gi, pods: 12}
workloads:
- deployment: {name: low, replicas: 14, requests: {cpu: 1, memory: 1Gi}, priority: 0}
- deployment: {name: mid, replicas: 6, requests: {cpu: 1500m, memory: 2Gi}, priority: 50}
- arrivals:
    name: hi
    process: poisson
    rate: 0.05
    job: {completions: 3, parallelism: 3, requests: {cpu: 2, memory: 1Gi}, priority: 100,
          work: {dist: exponential, mean: 60s}}
- arrivals:
    name: batch
    process: poisson
    rate: 0.2
    job: {completions: 2, requests: {cpu: 500m, memory: 512Mi}, priority: 10,
          work: {dist: uniform, min: 5s, max: 90s}}
)";
  const Outcome o = compare(sc, {11, 12}, "preemption");
  expect_overloaded(o.summary);
  EXPECT_GT(o.summary["pods"]["outcomes"]["Preempted"].get<int>(), 10);
}

const char* kSpread = R"(
name: oracle-spread
duration: 15m
scheduler: {policy: kube-default, args: {queue: {QUEUE}}}
lifecycle: {bind: 2ms, startup: 1s, gc: 500ms}
cluster:
  nodes:
  - {name: a, count: 3, cpu: 4, memory: 8Gi, labels: {topology.kubernetes.io/zone: a}}
  - {name: b, count: 2, cpu: 4, memory: 8Gi, labels: {topology.kubernetes.io/zone: b}}
  - {name: c, count: 1, cpu: 8, memory: 16Gi, labels: {topology.kubernetes.io/zone: c}}
  - {name: nolabel, count: 1, cpu: 8, memory: 8Gi}
workloads:
- deployment:
    name: web
    replicas: 18
    requests: {cpu: 1, memory: 1Gi}
    labels: {app: web}
    topologySpreadConstraints:
    - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,
       labelSelector: {matchLabels: {app: web}}}
- deployment:
    name: api
    replicas: 10
    requests: {cpu: 500m, memory: 512Mi}
    labels: {app: api}
    topologySpreadConstraints:
    - {maxSkew: 2, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule,
       labelSelector: {matchLabels: {app: api}}}
    - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,
       labelSelector: {matchLabels: {app: api}}, minDomains: 4}
- arrivals:
    name: burst
    process: poisson
    rate: 0.3
    job:
      completions: 4
      parallelism: 4
      requests: {cpu: 1, memory: 1Gi}
      labels: {app: web}
      work: {dist: exponential, mean: 40s}
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,
         labelSelector: {matchLabels: {app: web}}}
events:
- {at: 5m, action: add, group: {name: d, count: 1, cpu: 4, memory: 8Gi,
   labels: {topology.kubernetes.io/zone: d}}}
- {at: 9m, action: remove, nodes: [b-1]}
)";

// Zone b has room for small pods only: big pods wait until small ones raise b's count (an
// assigned pod lowers the skew for pods of another class).
const char* kSpreadByAssignedPods = R"(
name: oracle-spread-assigned
duration: 10m
scheduler: {policy: {POLICY}, args: {queue: {QUEUE}}}
lifecycle: {bind: 2ms, startup: 1s}
cluster:
  nodes:
  - {name: a, count: 2, cpu: 8, memory: 8Gi, labels: {topology.kubernetes.io/zone: a}}
  - {name: b, count: 1, cpu: 600m, memory: 8Gi, labels: {topology.kubernetes.io/zone: b}}
workloads:
- deployment:
    name: big
    replicas: 6
    requests: {cpu: 1, memory: 1Gi}
    labels: {app: web}
    topologySpreadConstraints:
    - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,
       labelSelector: {matchLabels: {app: web}}}
- arrivals:
    name: small
    process: constant
    rate: 0.03
    job:
      completions: 1
      requests: {cpu: 100m, memory: 100Mi}
      labels: {app: web}
      work: 2m
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,
         labelSelector: {matchLabels: {app: web}}}
)";

TEST(QueueOracle, TopologySpread) {
  const Outcome o = compare(kSpread, {5, 6}, "spread");
  expect_overloaded(o.summary);
  const std::string sc = replace_all(kSpreadByAssignedPods, "{POLICY}", "kube-default");
  const Outcome p = compare(sc, {5}, "spread-assigned");
  EXPECT_GT(p.summary["pods"]["bound"].get<int>(), 10);
}

TEST(QueueOracle, NodeFailureAndRecovery) {
  const std::string sc = R"(
name: oracle-node-events
duration: 25m
scheduler: {policy: kube-default, args: {queue: {QUEUE}}}
lifecycle: {startup: 2s, termination: 5s, node_failure: {detection: 20s, eviction: 40s}}
cluster:
  nodes:
  - {name: node, count: 4, cpu: 4, memory: 8Gi}
workloads:
- deployment: {name: web, replicas: 14, requests: {cpu: 1, memory: 2Gi}}
- arrivals:
    name: report
    process: poisson
    rate: 0.05
    job: {completions: 4, requests: {cpu: 2, memory: 1Gi}, work: {dist: uniform, min: 30s, max: 3m}}
events:
- {at: 3m, action: fail, nodes: [node-1]}
- {at: 6m, action: fail, nodes: [node-2]}
- {at: 8m, action: recover, nodes: [node-1]}
- {at: 12m, action: add, group: {name: big, count: 1, cpu: 8, memory: 16Gi}}
- {at: 14m, action: recover, nodes: [node-2]}
- {at: 18m, action: remove, nodes: [node-0]}
)";
  const Outcome o = compare(sc, {3, 4}, "nodes");
  expect_overloaded(o.summary);
  EXPECT_GT(o.summary["pods"]["outcomes"]["Evicted"].get<int>(), 0);
}

TEST(QueueOracle, TaintsAndNodeAffinity) {
  const std::string sc = R"(
name: oracle-taints
duration: 15m
scheduler:
  policy: kube-default
  args: {queue: {QUEUE}, decision_latency: {base: 5ms, per_node: 100us}}
lifecycle: {startup: 1s, gc: 2s, node_failure: {detection: 30s, eviction: 60s}}
cluster:
  nodes:
  - {name: gpu, count: 2, cpu: 8, memory: 16Gi, gpu: 1, labels: {kind: gpu},
     taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}
  - {name: edge, count: 3, cpu: 2, memory: 4Gi, tier: edge, labels: {kind: edge}}
  - {name: cloud, count: 2, cpu: 4, memory: 8Gi, tier: cloud, labels: {kind: cloud}}
  - {name: cordoned, count: 1, cpu: 8, memory: 8Gi, unschedulable: true}
workloads:
- deployment:
    name: edge-app
    replicas: 8
    requests: {cpu: 500m, memory: 1Gi}
    nodeSelector: {orrery.io/tier: edge}
- deployment:
    name: any
    replicas: 10
    requests: {cpu: 1, memory: 1Gi}
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions: [{key: kind, operator: In, values: [cloud, gpu]}]
- arrivals:
    name: train
    process: poisson
    rate: 0.03
    job: {completions: 2, requests: {cpu: 2, memory: 2Gi, nvidia.com/gpu: 1},
          tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}],
          work: {dist: uniform, min: 30s, max: 2m}}
- arrivals:
    name: tolerant
    process: poisson
    rate: 0.2
    job: {completions: 3, requests: {cpu: 1, memory: 512Mi},
          tolerations: [{key: nvidia.com/gpu, operator: Exists}],
          work: {dist: exponential, mean: 30s}}
events:
- {at: 4m, action: fail, nodes: [cloud-0]}
- {at: 7m, action: recover, nodes: [cloud-0]}
- {at: 9m, action: add, group: {name: cloud2, count: 1, cpu: 4, memory: 8Gi, labels: {kind: cloud}}}
)";
  expect_overloaded(compare(sc, {9, 10}, "taints").summary);
}

// The oracle is not blind: a hint that misses a helpful event, or a class that merges pods a
// filter tells apart, makes the two modes differ.
TEST(QueueOracle, DetectsAHintThatIsNotConservative) {
  const std::string sc = replace_all(kSpreadByAssignedPods, "{POLICY}", "lying-spread");
  EXPECT_FALSE(compare(sc, {5}, "lying-spread", false).identical);
}

const char* kEvenNames = R"(
name: oracle-even-names
duration: 2m
scheduler: {policy: {POLICY}, args: {queue: {QUEUE}}}
cluster:
  nodes:
  - {name: n, cpu: 1, memory: 1Gi}
workloads:
- job: {name: blocker, requests: {cpu: 1}, priority: 10, work: 10s}
- deployment: {name: web, replicas: 2, requests: {cpu: 1}}
)";

TEST(QueueOracle, DetectsAClassThatMergesPodsAFilterTellsApart) {
  // web-0 never fits; when the blocker finishes, web-0 is tried first and fails. If that failure
  // stands for web-1 too, web-1 waits; the requeue-all probe of web-1 places it.
  const Outcome truthful =
      compare(replace_all(kEvenNames, "{POLICY}", "even-names"), {1}, "even-names");
  EXPECT_GE(truthful.summary["pods"]["bound"].get<int>(), 2);  // the blocker and web-1
  EXPECT_FALSE(
      compare(replace_all(kEvenNames, "{POLICY}", "lying-even-names"), {1}, "lying-even", false)
          .identical);
}

}  // namespace
}  // namespace orrery::sim
