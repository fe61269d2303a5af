// The scheduler extender on loopback: filter + prioritize for one pod over 500 nodes, as
// kube-scheduler calls it (one keep-alive connection, requests back to back). Reports the
// latency of the pair (p50, p99 in µs, as counters) and the throughput (pairs per second).
//   NodeNames: nodeCacheCapable: true (names only; the view holds 500 nodes and 2,000 pods)
//   Nodes:     nodeCacheCapable: false (500 full Node objects in every request)
#include <benchmark/benchmark.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "framework/config.h"
#include "io/k8s_objects.h"
#include "k8s/extender.h"
#include "plugins/register.h"

namespace {

using nlohmann::json;
using namespace orrery;

json node_json(int i) {
  const std::string name = "node-" + std::to_string(i);
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", name},
            {"resourceVersion", "1"},
            {"labels",
             {{"kubernetes.io/hostname", name},
              {"topology.kubernetes.io/zone", "z" + std::to_string(i % 3)}}}}},
          {"status",
           {{"allocatable", {{"cpu", "16"}, {"memory", "64Gi"}, {"pods", "110"}}},
            {"capacity", {{"cpu", "16"}, {"memory", "64Gi"}, {"pods", "110"}}}}}};
}

json pod_json(const std::string& name, const std::string& node, int cpu_m) {
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec",
             {{"containers",
               {{{"name", "c"},
                 {"image", "app"},
                 {"resources",
                  {{"requests", {{"cpu", std::to_string(cpu_m) + "m"}, {"memory", "1Gi"}}}}}}}}}},
            {"status", {{"phase", node.empty() ? "Pending" : "Running"}}}};
  if (!node.empty()) p["spec"]["nodeName"] = node;
  return p;
}

struct Fixture {
  Fixture() {
    json items = json::array();
    for (int i = 0; i < 500; ++i) items.push_back(node_json(i));
    for (int i = 0; i < 2000; ++i)
      items.push_back(pod_json("run-" + std::to_string(i), "node-" + std::to_string(i % 500),
                               100 + (i % 7) * 300));
    backend = std::make_unique<fw::SnapshotBackend>(
        build_cluster(parse_k8s_objects(json{{"kind", "List"}, {"items", items}}.dump(), "bench")));
    plugins::register_default_plugins(plugins);
    fw::SchedulerConfig cfg = fw::default_scheduler_config();
    cfg.profiles[0].scheduler_name = "orrery";
    ext = std::make_unique<k8s::Extender>(
        cfg, plugins, "", backend.get(),
        [this](const std::function<void()>& fn) {
          std::lock_guard<std::mutex> l(mu);
          fn();
        },
        nullptr);
    std::atomic<int> p{0};
    thread = std::thread([&] {
      k8s::serve_extender(
          *ext, {"127.0.0.1:0", "", 4}, [&](int port) { p = port; }, &stop);
    });
    while (p == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    port = p;
    json names = json::array();
    json nodes = json::array();
    for (int i = 0; i < 500; ++i) {
      names.push_back("node-" + std::to_string(i));
      nodes.push_back(node_json(i));
    }
    names_body = json{{"Pod", pod_json("web", "", 500)}, {"NodeNames", names}}.dump();
    nodes_body = json{{"Pod", pod_json("web", "", 500)}, {"Nodes", {{"items", nodes}}}}.dump();
  }
  ~Fixture() {
    stop = true;
    thread.join();
  }
  std::mutex mu;
  fw::PluginRegistry plugins;  // before the extender, which keeps a reference
  std::unique_ptr<fw::SnapshotBackend> backend;
  std::unique_ptr<k8s::Extender> ext;
  std::atomic<bool> stop{false};
  std::thread thread;
  int port = 0;
  std::string names_body, nodes_body;
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

void run(benchmark::State& state, bool names) {
  Fixture& f = fixture();
  httplib::Client c("127.0.0.1", f.port);
  c.set_keep_alive(true);
  c.set_tcp_nodelay(true);
  const std::string& body = names ? f.names_body : f.nodes_body;
  std::vector<double> us;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    auto a = c.Post("/filter", body, "application/json");
    auto b = c.Post("/prioritize", body, "application/json");
    const auto t1 = std::chrono::steady_clock::now();
    if (!a || !b || a->status != 200 || b->status != 200) state.SkipWithError("request failed");
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(us.begin(), us.end());
  if (!us.empty()) {
    state.counters["p50_us"] = us[us.size() / 2];
    state.counters["p99_us"] = us[std::min(us.size() - 1, us.size() * 99 / 100)];
  }
  state.SetItemsProcessed(state.iterations());
}

// The same pair without HTTP: the extender's own work (parse, evaluate, reply JSON).
void in_process(benchmark::State& state, bool names) {
  Fixture& f = fixture();
  const std::string& body = names ? f.names_body : f.nodes_body;
  for (auto _ : state) {
    auto a = f.ext->filter(body);
    auto b = f.ext->prioritize(body);
    if (a.status != 200 || b.status != 200) state.SkipWithError("request failed");
    benchmark::DoNotOptimize(a.body.data());
    benchmark::DoNotOptimize(b.body.data());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_ExtenderFilterPrioritize500NodeNames(benchmark::State& s) {
  run(s, true);
}
void BM_ExtenderFilterPrioritize500Nodes(benchmark::State& s) {
  run(s, false);
}
BENCHMARK(BM_ExtenderFilterPrioritize500NodeNames)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_ExtenderFilterPrioritize500Nodes)->Unit(benchmark::kMicrosecond)->UseRealTime();
void BM_ExtenderInProcess500NodeNames(benchmark::State& s) {
  in_process(s, true);
}
void BM_ExtenderInProcess500Nodes(benchmark::State& s) {
  in_process(s, false);
}
BENCHMARK(BM_ExtenderInProcess500NodeNames)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ExtenderInProcess500Nodes)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
