#include "sim/scenario.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "io/limits.h"
#include "util/distribution.h"

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

TEST(Scenario, DeploymentScaleDownOrder) {
  const std::string head = "cluster: {nodes: [{name: a, cpu: 1}]}\nduration: 1s\nworkloads:\n";
  EXPECT_EQ(parse_scenario(head + "- deployment: {name: x}\n", "s.yaml", "")
                .deployments.at(0)
                .scale_down_order,
            ScaleDownOrder::kExact);
  EXPECT_EQ(
      parse_scenario(head + "- deployment: {name: x, scaleDownOrder: logarithmic}\n", "s.yaml", "")
          .deployments.at(0)
          .scale_down_order,
      ScaleDownOrder::kLogarithmic);
  EXPECT_EQ(error_of(head + "- deployment: {name: x, scaleDownOrder: random}\n"),
            "s.yaml:4: workloads[0].deployment.scaleDownOrder: expected exact or logarithmic, got "
            "\"random\"");
}

TEST(Scenario, HpaPodRateMetric) {
  const std::string head = "cluster: {nodes: [{name: a, cpu: 1}]}\nduration: 1s\nworkloads:\n";
  const HpaSpec dflt =
      *parse_scenario(head + "- deployment: {name: x, hpa: {maxReplicas: 3}}\n", "s.yaml", "")
           .deployments.at(0)
           .hpa;
  EXPECT_EQ(dflt.metric, HpaSpec::Metric::kDemand);
  const HpaSpec h = *parse_scenario(head +
                                        "- deployment: {name: x, hpa: {maxReplicas: 3, metric: "
                                        "podRate, metricPeriod: 30s, metricNoise: 0.25}}\n",
                                    "s.yaml", "")
                         .deployments.at(0)
                         .hpa;
  EXPECT_EQ(h.metric, HpaSpec::Metric::kPodRate);
  EXPECT_EQ(h.metric_period, 30 * kSecond);
  EXPECT_DOUBLE_EQ(h.metric_noise, 0.25);
  EXPECT_EQ(error_of(head + "- deployment: {name: x, hpa: {maxReplicas: 3, metricNoise: 0.2}}\n"),
            "s.yaml:4: workloads[0].deployment.hpa.metricNoise: only with metric: podRate");
  EXPECT_EQ(error_of(head + "- deployment: {name: x, hpa: {maxReplicas: 3, metric: cpu}}\n"),
            "s.yaml:4: workloads[0].deployment.hpa.metric: expected demand or podRate");
  EXPECT_EQ(error_of(head + "- deployment: {name: x, hpa: {maxReplicas: 3, metric: podRate, "
                            "metricNoise: -1}}\n"),
            "s.yaml:4: workloads[0].deployment.hpa.metricNoise: expected a log-scale noise "
            "between 0 and 5");
  EXPECT_EQ(parse_scenario(head + "- deployment: {name: x, hpa: {maxReplicas: 3, metric: "
                                  "podRate, metricWindow: 2m}}\n",
                           "s.yaml", "")
                .deployments.at(0)
                .hpa->metric_window,
            120 * kSecond);
  EXPECT_EQ(error_of(head + "- deployment: {name: x, hpa: {maxReplicas: 3, metricWindow: 1m}}\n"),
            "s.yaml:4: workloads[0].deployment.hpa.metricWindow: only with metric: podRate");
  EXPECT_EQ(error_of(head + "- deployment: {name: x, hpa: {maxReplicas: 3, metric: podRate, "
                            "metricWindow: 2h}}\n"),
            "s.yaml:4: workloads[0].deployment.hpa.metricWindow: expected a window between 0s "
            "and 1h");
}

TEST(Scenario, DemandCycleStalls) {
  const std::string head =
      "cluster: {nodes: [{name: a, cpu: 8}]}\nduration: 1s\nworkloads:\n- deployment: {name: "
      "x, hpa: {maxReplicas: 3}}\n- demand_cycles: {deployments: [x], mean: 0.5";
  const auto st = parse_scenario(head +
                                     ", stalls: {after: 12m, every: 200s, minLength: 30s, "
                                     "maxLength: 100s, depth: 0.3}}\n",
                                 "s.yaml", "")
                      .demand_cycles.at(0)
                      .spec.stalls;
  EXPECT_EQ(st.after, 720 * kSecond);
  EXPECT_EQ(st.every, 200 * kSecond);
  EXPECT_EQ(st.min_length, 30 * kSecond);
  EXPECT_EQ(st.max_length, 100 * kSecond);
  EXPECT_DOUBLE_EQ(st.depth, 0.3);
  EXPECT_EQ(error_of(head + ", stalls: {maxLength: 10s}}\n"),
            "s.yaml:5: workloads[1].demand_cycles.stalls: stalls needs every (the mean time "
            "between episodes)");
  EXPECT_EQ(error_of(head + ", stalls: {every: 1m, minLength: 20s, maxLength: 10s}}\n"),
            "s.yaml:5: workloads[1].demand_cycles.stalls.maxLength: expected maxLength >= "
            "minLength");
  EXPECT_EQ(error_of(head + ", stalls: {every: 1m, maxLength: 10s, depth: 2}}\n"),
            "s.yaml:5: workloads[1].demand_cycles.stalls.depth: expected the load's factor "
            "during a stall, between 0 and 1");
  EXPECT_EQ(error_of(head + ", stalls: {every: 1m, maxLength: 10s, deep: 0}}\n"),
            "s.yaml:5: workloads[1].demand_cycles.stalls.deep: unknown field \"deep\"; expected "
            "one of: after, every, minLength, maxLength, depth");
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
  EXPECT_EQ(
      error_of("cluster: {nodes: [{name: a, cpu: 1}]}\nwrkloads: []\n"),
      "s.yaml:2: wrkloads: unknown field \"wrkloads\" (did you mean \"workloads\"?); expected "
      "one of: name, description, seed, duration, scheduler, schedulers, policies, "
      "lifecycle, metrics, cluster, workloads, events");
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

// Issue 11: unknown keys anywhere, duplicate keys and resource names Kubernetes would reject are
// errors with FILE:LINE and the closest known name (each of these used to be accepted silently).
TEST(ScenarioStrict, UnknownKeysAnywhereAreErrorsWithASuggestion) {
  const std::string head = "duration: 1m\ncluster: {nodes: [{name: n, cpu: 4, memory: 4Gi}]}\n";
  EXPECT_EQ(error_of("duration: 1m\ncluster:\n  nodes:\n  - {name: n, cpus: 4}\n"),
            "s.yaml:4: cluster.nodes[0].cpus: unknown field \"cpus\" (did you mean \"cpu\"?); "
            "expected one of: name, count, cpu, memory, pods, gpu, ephemeral-storage, resources, "
            "allocatable, labels, annotations, taints, tier, constraints, speed, unschedulable");
  // In a pod template, keys are checked against the Kubernetes types.
  EXPECT_EQ(
      error_of(head + "workloads:\n- job:\n    name: j\n    work: 1s\n    template:\n      spec:\n"
                      "        bogusField: 1\n        containers: [{name: c}]\n"),
      "s.yaml:9: workloads[0].job.template.spec.bogusField: unknown field \"bogusField\" in "
      "PodSpec");
  EXPECT_EQ(
      error_of(head + "workloads:\n- job:\n    name: j\n    work: 1s\n    template:\n      spec:\n"
                      "        containers:\n        - name: c\n          resoures: {}\n"),
      "s.yaml:11: workloads[0].job.template.spec.containers[0].resoures: unknown field "
      "\"resoures\" in Container (did you mean \"resources\"?)");
  EXPECT_EQ(error_of(head +
                     "workloads:\n- job:\n    name: j\n    work: 1s\n    template:\n      spec:\n"
                     "        containers: [{name: c}]\n        affinity:\n          nodeAffinity:\n"
                     "            requiredDuringSchedulingIgnoredDuringExecution:\n"
                     "              nodeSelectorTerms: [{matchExpresions: []}]\n"),
            "s.yaml:13: workloads[0].job.template.spec.affinity.nodeAffinity."
            "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpresions: "
            "unknown field \"matchExpresions\" in NodeSelectorTerm (did you mean "
            "\"matchExpressions\"?)");
  EXPECT_EQ(error_of(head + "workloads:\n- jbo: {name: j, work: 1s}\n"),
            "s.yaml:4: workloads[0].jbo: unknown workload \"jbo\" (did you mean \"job\"?); "
            "expected deployment, job, arrivals, trace or demand_cycles");
  EXPECT_EQ(error_of(head + "workloads:\n- job: {name: j, work: 1s, completion: 3}\n"),
            "s.yaml:4: workloads[0].job.completion: unknown field \"completion\" (did you mean "
            "\"completions\"?); expected one of: template, requests, limits, labels, annotations, "
            "priority, priorityClassName, schedulerName, tolerations, nodeSelector, affinity, "
            "topologySpreadConstraints, constraints, namespace, usage, work, name, at, "
            "completions, parallelism, backoffLimit");
  // Fields of Kubernetes types orrery does not read are accepted; those kube-scheduler would read
  // are reported as not modelled.
  const Scenario s = parse_scenario(head +
                                        "workloads:\n- job:\n    name: j\n    work: 1s\n"
                                        "    template:\n      spec:\n        restartPolicy: Never\n"
                                        "        nodeName: n\n        containers: [{name: c, "
                                        "image: busybox}]\n",
                                    "s.yaml", "");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0],
            "s.yaml:10: workloads[0].job.template.spec.nodeName: not modelled: nodeName is "
            "ignored (the scheduler places every pod)");
}

TEST(ScenarioStrict, DuplicateKeysAreErrorsNamingBothLines) {
  EXPECT_EQ(error_of("duration: 1m\nduration: 2m\ncluster: {nodes: [{name: n, cpu: 1}]}\n"),
            "s.yaml:2: duration: duplicate key \"duration\" (first given at line 1)");
  EXPECT_EQ(error_of("duration: 1m\ncluster:\n  nodes:\n  - name: n\n    cpu: 1\n    cpu: 2\n"),
            "s.yaml:6: cluster.nodes[0].cpu: duplicate key \"cpu\" (first given at line 5)");
  EXPECT_EQ(error_of("duration: 1m\ncluster: {nodes: [{name: n, cpu: 1}]}\nworkloads:\n"
                     "- job: {name: j, work: 1s, requests: {cpu: 1, cpu: 2}}\n"),
            "s.yaml:4: workloads[0].job.requests.cpu: duplicate key \"cpu\" (first given at line "
            "4)");
}

TEST(ScenarioStrict, ResourceNamesFollowKubernetesRules) {
  const std::string head = "duration: 1m\ncluster: {nodes: [{name: n, cpu: 4, memory: 4Gi}]}\n";
  // The issue's typo: it used to become an extended resource no node has, so every pod stayed
  // Pending while the run exited 0.
  EXPECT_EQ(error_of(head + "workloads:\n- job: {name: j, work: 1s, requests: {cpu: 1, memroy: "
                            "1Gi}}\n"),
            "s.yaml:4: workloads[0].job.requests.memroy: invalid resource name \"memroy\": must "
            "be a standard resource for containers (cpu, memory, ephemeral-storage, "
            "hugepages-<size>) or an extended resource with a domain prefix such as "
            "example.com/foo (did you mean \"memory\"?)");
  EXPECT_NE(
      error_of(head + "workloads:\n- job:\n    name: j\n    work: 1s\n    template:\n      spec:\n"
                      "        containers: [{name: c, resources: {limits: {memroy: 1Gi}}}]\n")
          .find("s.yaml:9: workloads[0].job.template.spec.containers[0].resources.limits."
                "memroy: invalid resource name \"memroy\""),
      std::string::npos);
  EXPECT_NE(error_of("duration: 1m\ncluster: {nodes: [{name: n, cpu: 4, resources: {gpus: 1}}]}\n")
                .find("s.yaml:2: cluster.nodes[0].resources.gpus: invalid resource name \"gpus\""),
            std::string::npos);
  // Domain-prefixed extended resources and hugepages are accepted.
  EXPECT_EQ(error_of("duration: 1m\ncluster: {nodes: [{name: n, cpu: 4, resources: "
                     "{example.com/fpga: 2, hugepages-2Mi: 1Gi}}]}\nworkloads:\n- job: {name: j, "
                     "work: 1s, requests: {cpu: 1, example.com/fpga: 1, hugepages-2Mi: 4Mi}}\n"),
            "");
}

// Issue 11: absurd sizes fail while parsing, naming the field, before anything is allocated for
// them (a node group of 100 million nodes used to build 100 million names first).
TEST(ScenarioLimits, AbsurdCountsFailNamingTheField) {
  EXPECT_EQ(error_of("duration: 1m\ncluster:\n  nodes:\n  - {name: n, cpu: 4, count: 100000000}\n"),
            "s.yaml:4: cluster.nodes[0].count: too many: 100,000,000, more than the limit of "
            "1,000,000 nodes; pass --allow-large to lift it (docs/scenarios.md, Limits)");
  const std::string head = "duration: 1m\ncluster: {nodes: [{name: n, cpu: 4}]}\n";
  EXPECT_EQ(error_of(head + "workloads:\n- job: {name: j, work: 1s, completions: 99999999999}\n"),
            "s.yaml:4: workloads[0].job.completions: too many: 99,999,999,999, more than the "
            "limit of 10,000,000 pods; pass --allow-large to lift it (docs/scenarios.md, Limits)");
  // Simulated time x arrival rate: 100,000 h at 1,000 jobs/s.
  const std::string flood =
      "duration: 100000h\nmetrics: {sample_interval: 1h}\ncluster: {nodes: [{name: n, cpu: 4}]}\n"
      "workloads:\n- arrivals: {name: a, rate: 1000, job: {work: 1s}}\n";
  EXPECT_EQ(error_of(flood),
            "s.yaml:5: workloads[0].arrivals: pods this run would create (arrivals: rate x "
            "simulated time x completions): 360,000,000,000, more than the limit of 10,000,000 "
            "pods; pass --allow-large to lift it (docs/scenarios.md, Limits)");
  // The sum over workloads counts too.
  EXPECT_NE(error_of(head + "workloads:\n- job: {name: a, work: 1s, completions: 6000000}\n"
                            "- job: {name: b, work: 1s, completions: 5000000}\n")
                .find("s.yaml:4: workloads[0].job: pods this run would create"),
            std::string::npos);
  // 10,000 h sampled every second.
  EXPECT_NE(error_of("duration: 10000h\ncluster: {nodes: [{name: n, cpu: 4}]}\n")
                .find("time-series samples: 36,000,000, more than the limit of 10,000,000"),
            std::string::npos);
  // The type's own range holds even with --allow-large.
  allow_large_inputs(true);
  EXPECT_EQ(error_of(flood), "");
  EXPECT_EQ(error_of(head + "workloads:\n- job: {name: j, work: 1s, completions: 99999999999}\n"),
            "s.yaml:4: workloads[0].job.completions: expected an integer <= 2147483647, got "
            "99999999999");
  allow_large_inputs(false);
  // A run's own --duration is checked again when the simulation is set up.
  Scenario s = parse_scenario(head +
                                  "workloads:\n- arrivals: {name: a, rate: 1000, job: {work: "
                                  "1s}}\n",
                              "s.yaml", "");
  EXPECT_THROW(check_scenario_limits(s, 100000 * 3600 * kSecond), InputError);
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
