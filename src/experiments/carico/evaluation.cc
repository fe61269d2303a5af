#include "experiments/carico/evaluation.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/rng.h"
#include "policies/carico/policy.h"
#include "policies/kube/policies.h"
#include "sim/event_loop.h"
#include "sim/scenario.h"
#include "sim/simulation.h"
#include "util/stats.h"

namespace orrery::carico {
namespace {

// Samples the server's response time every 100 ms while the jobs run (§5.5).
class LatencyProbe : public sim::EventTarget {
 public:
  LatencyProbe(sim::Simulation& s, NodeId node, uint64_t seed)
      : s_(s), node_(node), rng_(Rng::derive(seed, "carico/latency")) {}
  void start() { s_.loop().at(s_.loop().now() + 100 * kMs, this, 0); }
  void handle(const sim::Event&) override {
    const auto& t = s_.backend();
    const double cap = static_cast<double>(t.cpu_capacity_milli(node_));
    const double slow = std::max(1.0, static_cast<double>(t.cpu_demand_milli(node_)) / cap);
    // With jobs: only while they run (they start at 5 s); without: the whole run (pristine).
    const bool jobs_started = s_.loop().now() >= 5 * kSecond;
    const bool jobs_running = s_.jobs().open() > 0;
    if (!with_jobs || jobs_running) samples.push_back(3.0 * slow * std::exp(0.2 * rng_.normal()));
    if (!with_jobs || !jobs_started || jobs_running)
      s_.loop().at(s_.loop().now() + 100 * kMs, this, 0);
  }
  std::vector<double> samples;
  bool with_jobs = true;

 private:
  sim::Simulation& s_;
  NodeId node_;
  Rng rng_;
};

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> f;
  std::string cur;
  for (char c : line) {
    if (c == ',') {
      f.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  f.push_back(cur);
  return f;
}

}  // namespace

PctStats pct_stats(std::vector<double> v) {
  PctStats s;
  s.count = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / v.size();
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.sd = v.size() > 1 ? std::sqrt(ss / (v.size() - 1)) : 0;
  auto q = [&](double p) {  // linear interpolation (numpy's default, as pandas' describe())
    const double pos = p * (v.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(v.size() - 1, lo + 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - lo);
  };
  s.min = v.front();
  s.p25 = q(0.25);
  s.p50 = q(0.5);
  s.p75 = q(0.75);
  s.p99 = q(0.99);
  s.max = v.back();
  return s;
}

std::string scenario_yaml(const RunSpec& r) {
  const bool kube = r.scheduler != "carico";
  std::ostringstream y;
  y << "name: carico-eval\nseed: " << r.seed << "\n"
    << "lifecycle:\n  bind: {dist: uniform, min: 5ms, max: 50ms}\n"
    << "  startup: {dist: uniform, min: 500ms, max: 4s}\n"
    << "cluster:\n  nodes:\n  - {name: worker, count: 19, cpu: 4, memory: 8Gi}\n"
    << "scheduler: " << r.scheduler << "\n"
    << (r.server ? (r.pi_pods + r.sklearn_pods > 0 ? "duration: 900s\n" : "duration: 60s\n") : "")
    << "workloads:\n";
  if (r.server) {
    y << "- deployment:\n    name: server\n    replicas: 1\n"
      << "    nodeSelector: {kubernetes.io/hostname: worker-0}\n"
      << (kube ? "    requests: {cpu: 100m, memory: 100Mi}\n" : "")
      << "    usage: {cpu: 100m, memory: 100Mi}\n";
  }
  const std::string at = r.server ? "    at: 5s\n" : "";
  if (r.pi_pods > 0) {
    y << "- job:\n    name: pi-2000\n"
      << at << "    completions: " << r.pi_pods << "\n    parallelism: " << r.pi_pods << "\n"
      << (kube ? "    requests: {cpu: " + r.pi_cpu_request + "}\n" : "")
      << "    usage: {cpu: 1, memory: 50Mi}\n"
      << "    work: {dist: normal, mean: 5s, sd: 500ms}\n";
  }
  if (r.sklearn_pods > 0) {
    y << "- job:\n    name: sklearn\n"
      << at << "    completions: " << r.sklearn_pods << "\n    parallelism: " << r.sklearn_pods
      << "\n";
    if (kube) {
      y << "    requests: {memory: " << r.sklearn_mem_request;
      if (!r.sklearn_cpu_request.empty()) y << ", cpu: " << r.sklearn_cpu_request;
      y << "}\n";
    }
    y << "    usage: {cpu: 3, memory: {dist: uniform, min: 550Mi, max: 700Mi}}\n"
      << "    work: {dist: normal, mean: 25s, sd: 3s}\n";
  }
  return y.str();
}

fw::PolicyRegistry evaluation_policies() {
  fw::PolicyRegistry r;
  kube::register_policies(r);
  register_policies(r);
  return r;
}

RunResult run_once(const RunSpec& spec) {
  const sim::Scenario sc = sim::parse_scenario(scenario_yaml(spec), "<carico-eval>", ".");
  const fw::PolicyRegistry reg = evaluation_policies();
  sim::RunOptions opt;
  opt.wall_clock = false;
  sim::Simulation s(sc, reg, opt);
  std::unique_ptr<LatencyProbe> probe;
  if (spec.server) {
    const auto node = s.backend().state().find_node("worker-0");
    probe = std::make_unique<LatencyProbe>(s, *node, spec.seed);
    probe->with_jobs = spec.pi_pods + spec.sklearn_pods > 0;
    probe->start();
  }
  s.run();
  RunResult out;
  out.incomplete = s.incomplete();
  std::istringstream csv(s.recorder().pods_csv());
  std::string line;
  std::getline(csv, line);
  std::vector<double> pi, sk;
  while (std::getline(csv, line)) {
    const auto f = split_csv(line);
    if (f.size() < 13) continue;
    if (f[12] == "OOMKilled") ++out.oom_kills;
    if (f[9].empty() || f[12] != "Succeeded") continue;
    const double pct = std::stod(f[9]);
    if (f[0].rfind("pi-2000", 0) == 0) pi.push_back(pct);
    if (f[0].rfind("sklearn", 0) == 0) sk.push_back(pct);
  }
  out.pi = pct_stats(pi);
  out.sklearn = pct_stats(sk);
  Time first = kForever, last = 0;
  for (const auto& j : s.jobs().records()) {
    first = std::min(first, j.arrival);
    last = std::max(last, j.finish);
  }
  out.jct_s = first == kForever ? 0 : to_seconds(last - first);
  const Json sum = s.summary();
  out.cpu_util_mean = sum["utilization"]["cpu_mean"].get<double>();
  out.mem_util_mean = sum["utilization"]["mem_mean"].get<double>();
  if (probe) out.latency_ms = probe->samples;
  return out;
}

}  // namespace orrery::carico
