#include "sim/scenario.h"

#include <gtest/gtest.h>

#include "core/distribution.h"
#include "core/error.h"

namespace orrery::sim {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_scenario(text, "s.yaml", "");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const char* kGood = R"(
name: demo
seed: 42
duration: 10m
scheduler: {policy: fitall, args: {decision_latency: {base: 2ms}}}
lifecycle:
  bind: {dist: uniform, min: 10ms, max: 30ms}
  startup: 1s
  node_failure: {detection: 20s}
metrics: {sample_interval: 5s}
cluster:
  nodes:
  - {name: edge, count: 3, cpu: 4, memory: 4Gi, tier: edge, labels: {zone: a}}
  - name: cloud
    cpu: 22
    memory: 17Gi
    tier: cloud
    gpu: 2
    taints: [{key: cloud, effect: PreferNoSchedule}]
    constraints: [1, 4]
    speed: 2
workloads:
- deployment:
    name: A
    requests: {cpu: 1, memory: 950Mi}
    tolerations: [{key: cloud, operator: Exists}]
    usage: {cpu: 500m}
    hpa: {maxReplicas: 20, behavior: {scaleDown: {stabilizationWindowSeconds: 60}}}
- deployment:
    name: B
    replicas: 2
    template:
      metadata: {labels: {app: b}}
      spec:
        containers:
        - name: c
          resources: {requests: {cpu: 2, memory: 1900Mi}}
    hpa: {minReplicas: 2, maxReplicas: 10}
- demand_cycles: {deployments: [A, B], cycles: 4, period: 90s, mean: 1.2, sd: 0.4}
- job: {name: j, at: 30s, completions: 4, parallelism: 2, requests: {cpu: 500m}, work: 20s}
- arrivals:
    name: burst
    process: poisson
    rate: 0.5
    count: 10
    job: {requests: {cpu: 100m}, work: {dist: lognormal, median: 5s, sigma: 0.5}}
events:
- {at: 100s, action: fail, nodes: [edge-1]}
- {at: 200s, action: add, group: {name: extra, cpu: 8, memory: 8Gi}}
)";

TEST(Scenario, ParsesEverySection) {
  Scenario s = parse_scenario(kGood, "s.yaml", "");
  EXPECT_EQ(s.name, "demo");
  EXPECT_EQ(s.seed, 42u);
  EXPECT_EQ(s.duration, 600 * kSecond);
  ASSERT_EQ(s.schedulers.size(), 1u);
  EXPECT_EQ(s.schedulers[0].policy, "fitall");
  EXPECT_TRUE(s.schedulers[0].args.defined());
  EXPECT_EQ(s.lifecycle.bind.kind, Dist::Kind::kUniform);
  EXPECT_EQ(s.lifecycle.bind.b, 30000);
  EXPECT_EQ(s.lifecycle.startup.a, 1e6);
  EXPECT_EQ(s.lifecycle.failure_detection, 20 * kSecond);
  EXPECT_EQ(s.sample_interval, 5 * kSecond);
  ASSERT_EQ(s.node_groups.size(), 2u);
  EXPECT_EQ(s.node_groups[0].node_names(),
            (std::vector<std::string>{"edge-0", "edge-1", "edge-2"}));
  EXPECT_EQ(s.node_groups[1].node_names(), (std::vector<std::string>{"cloud"}));
  const Node& cloud = s.node_groups[1].tmpl;
  EXPECT_EQ(cloud.capacity[kCpu], 22000);
  EXPECT_EQ(cloud.capacity[kGpu], 2);
  EXPECT_EQ(cloud.capacity[kPods], 110);
  EXPECT_EQ(cloud.taints.size(), 1u);
  EXPECT_EQ(cloud.annotations.get(std::string_view("orrery.io/constraints")), "1,4");
  EXPECT_EQ(s.node_groups[1].speed, 2.0);
  ASSERT_EQ(s.deployments.size(), 2u);
  EXPECT_EQ(s.deployments[0].tmpl.spec->request[kCpu], 1000);
  EXPECT_EQ(s.deployments[0].tmpl.spec->tolerations.size(), 1u);
  EXPECT_EQ(s.deployments[0].tmpl.exec.cpu->a, 500);
  EXPECT_EQ(s.deployments[0].hpa->max_replicas, 20);
  EXPECT_EQ(s.deployments[0].hpa->down.stabilization, 60 * kSecond);
  EXPECT_EQ(s.deployments[1].replicas, 2);
  EXPECT_EQ(s.deployments[1].tmpl.spec->request[kMemory], 1900LL << 20);
  ASSERT_EQ(s.demand_cycles.size(), 1u);
  EXPECT_EQ(s.demand_cycles[0].spec.cycles, 4);
  EXPECT_EQ(s.demand_cycles[0].basis, DemandCyclesDef::Basis::kEdge);
  ASSERT_EQ(s.jobs.size(), 1u);
  EXPECT_EQ(s.jobs[0].at, 30 * kSecond);
  EXPECT_EQ(s.jobs[0].spec.parallelism, 2);
  ASSERT_EQ(s.arrivals.size(), 1u);
  EXPECT_EQ(s.arrivals[0].interval.kind, Dist::Kind::kExponential);
  EXPECT_DOUBLE_EQ(s.arrivals[0].interval.a, 2e6);
  EXPECT_EQ(s.arrivals[0].job.tmpl.exec.work->kind, Dist::Kind::kLognormal);
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_EQ(s.events[1].group.name, "extra");
}

TEST(Scenario, DurationDefaultsToTheDemandCycles) {
  std::string text = kGood;
  text.replace(text.find("duration: 10m\n"), 14, "");
  Scenario s = parse_scenario(text, "s.yaml", "");
  EXPECT_EQ(s.duration, 360 * kSecond);
}

TEST(Scenario, ErrorsNameFileLineAndField) {
  EXPECT_EQ(error_of("cluster: {nodes: [{name: a, cpu: 1}]}\nworkloads:\n- deployment: {name: x, "
                     "replicas: many}\nduration: 1s\n"),
            "s.yaml:3: workloads[0].deployment.replicas: expected an integer, got \"many\"");
  EXPECT_EQ(error_of("cluster:\n  nodes:\n  - {name: a, cpu: lots}\n"),
            "s.yaml:3: cluster.nodes[0].cpu: invalid quantity \"lots\": expected a number such "
            "as 100m, 1.5, 512Mi or 1e3");
  EXPECT_EQ(error_of("cluster: {nodes: [{name: a, cpu: 1}]}\nduration: soon\n"),
            "s.yaml:2: duration: expected a duration such as 90s, 500ms, 2m or a number of "
            "seconds, got \"soon\"");
  EXPECT_EQ(error_of("cluster: {nodes: [{name: a, cpu: 1}]}\nwrkloads: []\n"),
            "s.yaml:2: wrkloads: unknown field (expected one of: name, description, seed, "
            "duration, scheduler, schedulers, policies, lifecycle, metrics, cluster, workloads, "
            "events)");
  EXPECT_EQ(
      error_of("cluster: {nodes: [{name: a, cpu: 1}]}\nworkloads:\n- deployment: {name: x}\n"),
      "s.yaml:1: missing duration: deployments (and open-ended arrivals) run until stopped");
  EXPECT_EQ(error_of("cluster: {nodes: [{name: a, cpu: 1}]}\nlifecycle:\n  bind: {dist: gauss, "
                     "mean: 1s}\n"),
            "s.yaml:3: lifecycle.bind.dist: expected constant, uniform, normal, lognormal or "
            "exponential, got \"gauss\"");
  EXPECT_EQ(error_of("cluster: {nodes: [{name: a, cpu: 1}]}\nduration: 1m\nworkloads:\n"
                     "- demand_cycles: {deployments: [nope], mean: 1}\n"),
            "s.yaml:4: workloads[0].demand_cycles: deployments: no deployment named \"nope\"");
  // One deployment driven by two demand_cycles (their steps would interleave): an input error.
  const std::string two_drivers =
      "cluster: {nodes: [{name: a, cpu: 1}]}\nduration: 1m\nworkloads:\n"
      "- deployment: {name: A, requests: {cpu: 1}, hpa: {maxReplicas: 4}}\n"
      "- demand_cycles: {deployments: [A], mean: 1, cycles: 2, period: 30s}\n";
  EXPECT_EQ(error_of(two_drivers + "- demand_cycles: {deployments: [A], mean: 2, cycles: 2, "
                                   "period: 20s}\n"),
            "s.yaml:6: workloads[2].demand_cycles: deployments: \"A\" is already driven by the "
            "demand_cycles at s.yaml:5: workloads[1].demand_cycles");
  EXPECT_EQ(error_of("cluster: {nodes: [{name: a, cpu: 1}]}\nduration: 1m\nworkloads:\n"
                     "- deployment: {name: A, requests: {cpu: 1}, hpa: {maxReplicas: 4}}\n"
                     "- demand_cycles: {deployments: [A, A], mean: 1}\n"),
            "s.yaml:5: workloads[1].demand_cycles: deployments: \"A\" is already driven by this "
            "demand_cycles (listed twice)");
  EXPECT_EQ(error_of("cluster: {nodes: [{name: a, cpu: 1}, {name: a, cpu: 2}]}\n"),
            "s.yaml:1: cluster.nodes[1]: duplicate node name \"a\"");
  EXPECT_EQ(error_of("cluster: {nodes: [{name: a, cpu: 1}]}\nworkloads:\n- job: {name: j}\n"),
            "s.yaml:3: workloads[0].job: a job needs work (how long each pod runs at full speed)");
  EXPECT_EQ(error_of("cluster: {nodes: []}\n"), "s.yaml:1: cluster: the cluster has no nodes");
  EXPECT_EQ(error_of("cluster: {nodes: [{name: a, cpu: 1}]}\nworkloads:\n- trace: {file: "
                     "/nonexistent.tr}\n"),
            "s.yaml:3: workloads[0].trace.file: no such trace file: /nonexistent.tr");
}

TEST(Distribution, ParsesDurationsAndSamplesDeterministically) {
  EXPECT_EQ(parse_duration_text("90s", "x"), 90 * kSecond);
  EXPECT_EQ(parse_duration_text("1.5", "x"), 1500 * kMs);
  EXPECT_EQ(parse_duration_text("250ms", "x"), 250 * kMs);
  EXPECT_EQ(parse_duration_text("2m", "x"), 120 * kSecond);
  EXPECT_EQ(parse_duration_text("1h", "x"), 3600 * kSecond);
  EXPECT_EQ(parse_duration_text("7us", "x"), 7);
  EXPECT_THROW(parse_duration_text("-1s", "x"), InputError);
  EXPECT_THROW(parse_duration_text("1d", "x"), InputError);
  Rng a(3), b(3);
  Dist u = Dist::uniform(10, 20), n = Dist::normal(5, 100), l = Dist::lognormal(100, 0.5);
  double sum = 0;
  for (int i = 0; i < 2000; ++i) {
    const double x = u.sample(a);
    EXPECT_EQ(x, u.sample(b));
    EXPECT_GE(x, 10);
    EXPECT_LT(x, 20);
    EXPECT_GE(n.sample(a), 0);  // truncated at 0
    n.sample(b);
    sum += l.sample(a);
    l.sample(b);
  }
  EXPECT_NEAR(sum / 2000, l.mean(), l.mean() * 0.1);
  EXPECT_EQ(Dist::constant(4).sample(a), 4);
}

}  // namespace
}  // namespace orrery::sim
