#include "experiments/kubcg/evaluation.h"

#include <algorithm>
#include <memory>

#include "framework/policy.h"
#include "policies/kubcg/policy.h"
#include "policies/kube/policies.h"
#include "sim/event_loop.h"
#include "sim/sim_backend.h"
#include "sim/sim_clock.h"

namespace orrery::kubcg {

const char* to_string(Case c) {
  switch (c) {
    case Case::kDCpu: return "D-CPU";
    case Case::kDGpu: return "D-GPU";
    case Case::kKCpu: return "K-CPU";
    case Case::kKCpuGpu: return "K-CPU+GPU";
  }
  return "?";
}

const std::vector<PaperNode>& paper_cluster() {
  static const std::vector<PaperNode> nodes = {
      {"node-1", 16, 0, ""},
      {"node-2", 16, 0, ""},
      {"node-3", 8, 1, "GeForce-GT-730"},
      {"node-4", 8, 1, "GeForce-GTX-1050-Ti"},
      {"node-5", 8, 1, "GeForce-GTX-1050-Ti"},
  };
  return nodes;
}

const std::vector<PaperImage>& paper_images() {
  // Per node: node-1, node-2, node-3, node-4, node-5.
  static const std::vector<PaperImage> images = {
      // scale: CPU5/GPU5 = 44/23.8 = 1.85; GPU3 (50) slower than CPU3–5 (45, 40, 44).
      {"scale", 5.50, 0.34, {60, 60, 45, 40, 44}, {0, 0, 50, 22, 23.8}},
      {"encode", 7.05, 0.36, {90, 90, 70, 62, 70}, {0, 0, 40, 18, 20}},
      // matrix: CPU5/GPU5 = 284/10 = 28.4.
      {"matrix", 1.02, 0.48, {320, 320, 300, 260, 284}, {0, 0, 40, 9, 10}},
      // tensorflow: fails on CPU1/CPU2 (after 5 s).
      {"tensorflow", 6.12, 0.77, {-5, -5, 240, 200, 240}, {0, 0, 150, 60, 65}},
  };
  return images;
}

namespace {

// kube-default from the kube policies' registry (this evaluation links them, not the catalog).
std::unique_ptr<fw::Component> kube_default(fw::PolicyContext& ctx) {
  fw::PolicyRegistry r;
  kube::register_policies(r);
  return r.create("kube-default", ctx);
}

constexpr int64_t kGiB = int64_t{1} << 30;
constexpr char kTfLabel[] = "orrery.io/tensorflow";

// The pods of one run, created at their arrival times; a failed run is re-created at once (a
// Job's retry) and keeps its arrival time.
class Workload : public sim::EventTarget, public fw::EventListener {
 public:
  Workload(sim::SimBackend& sim, Case c, const std::vector<Arrival>& arrivals)
      : sim_(sim), case_(c), arrivals_(arrivals), finish_(arrivals.size(), -1) {
    sim_.add_listener(this);
    for (size_t i = 0; i < arrivals.size(); ++i)
      sim_.loop().at(static_cast<Time>(arrivals[i].t_s * 1e6), this, 0, i);
  }
  ~Workload() override { sim_.remove_listener(this); }

  void handle(const sim::Event& e) override { create(static_cast<size_t>(e.a)); }

  void on_event(const fw::ClusterEvent& e) override {
    if (e.kind != fw::EventKind::kPodFinished) return;
    auto it = index_.find(e.pod_serial);
    if (it == index_.end()) return;
    const size_t i = it->second;
    const ClusterState& st = sim_.state();
    const std::string where =
        st.node(e.node).name + "/" + (st.pod(e.pod).spec->request[kGpu] > 0 ? "GPU" : "CPU");
    if (st.pod(e.pod).phase == PodPhase::kSucceeded) {
      finish_[i] = static_cast<double>(e.time_us) * 1e-6;
      ++placements_[where];
    } else {
      ++failed_;
      if (failed_ < 1000) sim_.loop().at(e.time_us, this, 0, i);  // retry
    }
  }

  RunResult result() const {
    RunResult r;
    r.pods = static_cast<int>(arrivals_.size());
    r.failed_runs = failed_;
    r.placements = placements_;
    double first = 1e300, last = 0, sum = 0;
    for (size_t i = 0; i < arrivals_.size(); ++i) {
      first = std::min(first, arrivals_[i].t_s);
      if (finish_[i] < 0) {
        r.complete = false;
        continue;
      }
      last = std::max(last, finish_[i]);
      sum += finish_[i] - arrivals_[i].t_s;
    }
    r.makespan_s = arrivals_.empty() ? 0 : last - first;
    r.mean_completion_s = arrivals_.empty() ? 0 : sum / static_cast<double>(arrivals_.size());
    return r;
  }

 private:
  void create(size_t i) {
    const PaperImage& im = paper_images()[arrivals_[i].image];
    auto spec = std::make_shared<PodSpec>();
    Container c;
    c.name = "main";
    const bool gpu = case_ == Case::kDGpu;
    c.image = gpu ? im.gpu_image() : im.cpu_image();
    c.requests[kCpu] = 500;
    c.requests[kMemory] = kGiB / 2;
    c.requests_set = (1u << kCpu) | (1u << kMemory);
    if (gpu) {
      c.requests[kGpu] = 1;
      c.limits[kGpu] = 1;
      c.requests_set |= 1u << kGpu;
    }
    spec->containers.push_back(std::move(c));
    if (case_ == Case::kKCpuGpu)
      spec->annotations.set("orrery.io/images", "cpu=" + im.cpu_image() + ",gpu=" + im.gpu_image());
    if ((case_ == Case::kDCpu || case_ == Case::kDGpu) && im.name == "tensorflow")
      spec->node_selector.set(kTfLabel, "true");
    spec->finalize();
    Pod p;
    p.ns = "default";
    p.name = im.name + "-" + std::to_string(i) + "-" + std::to_string(attempts_++);
    p.spec = std::move(spec);
    const PodId id = sim_.create_pod(std::move(p), sim::PodExtras{});
    index_[sim_.state().pod_serial(id)] = i;
  }

  sim::SimBackend& sim_;
  Case case_;
  const std::vector<Arrival>& arrivals_;
  std::vector<double> finish_;
  std::map<uint64_t, size_t> index_;
  std::map<std::string, int> placements_;
  int failed_ = 0;
  int attempts_ = 0;
};

// The simulated cluster: nodes, image execution profiles, lifecycle delays.
struct World {
  sim::EventLoop loop;
  std::unique_ptr<sim::SimBackend> sim;
  sim::SimClock clock{loop};
  fw::Services services;
  fw::Reservations reservations;
  std::unique_ptr<fw::Runtime> runtime;

  explicit World(uint64_t seed) {
    sim::Lifecycle lc;
    lc.api = Dist::constant(0.05 * 1e6);
    lc.bind = Dist::constant(0.05 * 1e6);
    lc.startup = Dist::uniform(2e6, 4e6);  // T_Cr: container creation, image cached
    lc.termination = Dist::constant(1e6);
    lc.gc = Dist::constant(30e6);  // T_Del: Kubernetes' default 30 s
    sim = std::make_unique<sim::SimBackend>(loop, seed, lc);
    services.provide<fw::NodeTelemetry>(sim.get());
    runtime = std::make_unique<fw::Runtime>(fw::Runtime{*sim, clock, services, reservations});
    const auto& nodes = paper_cluster();
    for (size_t i = 0; i < nodes.size(); ++i) {
      Node n;
      n.name = nodes[i].name;
      n.capacity[kCpu] = nodes[i].cores * 1000;
      n.capacity[kMemory] = (i < 2 ? 12 : 16) * kGiB;
      n.capacity[kPods] = 110;
      n.capacity[kGpu] = nodes[i].gpus;
      n.allocatable = n.capacity;
      if (i >= 2) n.labels.set(kTfLabel, "true");
      if (!nodes[i].gpu_model.empty()) n.labels.set("nvidia.com/gpu.product", nodes[i].gpu_model);
      n.derive_orrery_fields(n.name);
      sim->add_node(std::move(n));
    }
    for (const PaperImage& im : paper_images()) {
      sim->register_image_exec(im.cpu_image(),
                               {static_cast<int64_t>(im.cpu_cores * 1000), kGiB / 2, 60 * kSecond});
      sim->register_image_exec(
          im.gpu_image(), {static_cast<int64_t>(im.gpu_cpu_cores * 1000), kGiB / 2, 60 * kSecond});
      for (size_t k = 0; k < nodes.size(); ++k) {
        const double c = im.cpu_s[k];
        sim->register_image_node_work(im.cpu_image(), static_cast<NodeId>(k),
                                      {static_cast<Time>(std::abs(c) * 1e6), c < 0});
        if (im.gpu_s[k] > 0)
          sim->register_image_node_work(im.gpu_image(), static_cast<NodeId>(k),
                                        {static_cast<Time>(im.gpu_s[k] * 1e6), false});
      }
    }
  }
};

// Relays the backend's events to a decision unit that no scheduler drives (the warm-up).
class UnitListener : public fw::EventListener {
 public:
  UnitListener(sim::SimBackend& sim, DecisionUnit& unit) : sim_(sim), unit_(unit) {
    sim_.add_listener(this);
  }
  ~UnitListener() override { sim_.remove_listener(this); }
  void on_event(const fw::ClusterEvent& e) override { unit_.on_event(sim_.state(), e); }

 private:
  sim::SimBackend& sim_;
  DecisionUnit& unit_;
};

}  // namespace

std::vector<Record> warm_up(int runs_per_image, uint64_t seed) {
  World w(seed);
  DecisionUnit unit(open_history("sqlite::memory:"));
  UnitListener feed(*w.sim, unit);
  fw::PolicyStats stats;
  fw::PolicyContext ctx{*w.runtime, seed, "kube-default", yaml::Ctx{}, "", stats};
  auto policy = kube_default(ctx);
  policy->start();
  // (image variant, node) pairs, one run at a time, 400 s apart (longer than any run).
  struct Pair {
    std::string image;
    size_t node;
    bool gpu;
  };
  const auto& nodes = paper_cluster();
  std::vector<std::vector<Pair>> pairs;
  for (const PaperImage& im : paper_images()) {
    pairs.emplace_back();
    for (size_t k = 0; k < nodes.size(); ++k) {
      pairs.back().push_back({im.cpu_image(), k, false});
      if (nodes[k].gpus > 0) pairs.back().push_back({im.gpu_image(), k, true});
    }
  }
  Time t = 0;
  int serial = 0;
  for (int run = 0; run < runs_per_image; ++run) {
    for (const auto& per_image : pairs) {
      const Pair& p = per_image[run % per_image.size()];
      w.loop.at(t, [&w, p, &serial] {
        auto spec = std::make_shared<PodSpec>();
        Container c;
        c.name = "main";
        c.image = p.image;
        c.requests[kCpu] = 500;
        c.requests[kMemory] = kGiB / 2;
        c.requests_set = (1u << kCpu) | (1u << kMemory);
        if (p.gpu) {
          c.requests[kGpu] = 1;
          c.limits[kGpu] = 1;
          c.requests_set |= 1u << kGpu;
        }
        spec->containers.push_back(std::move(c));
        spec->finalize();
        Pod pod;
        pod.ns = "warmup";
        pod.name = "w" + std::to_string(serial++);
        pod.node_name = paper_cluster()[p.node].name;  // pinned (the NodeName filter)
        pod.spec = std::move(spec);
        w.sim->create_pod(std::move(pod), sim::PodExtras{});
      });
      t += 400 * kSecond;
    }
  }
  w.loop.run_until();
  unit.flush();
  return unit.store().records();
}

RunResult run_case(Case c, const std::vector<Arrival>& arrivals, const std::vector<Record>& history,
                   uint64_t seed, std::vector<std::string>* explain) {
  World w(seed);
  Workload workload(*w.sim, c, arrivals);
  fw::PolicyStats stats;
  std::shared_ptr<DecisionUnit> unit;
  std::unique_ptr<fw::Component> policy;
  const bool kubcg = c == Case::kKCpu || c == Case::kKCpuGpu;
  fw::PolicyContext ctx{*w.runtime, seed, kubcg ? "kubcg" : "kube-default", yaml::Ctx{}, "", stats};
  if (kubcg) {
    auto store = open_history("sqlite::memory:");
    store->insert(history);
    unit = std::make_shared<DecisionUnit>(std::move(store));
    if (explain)
      unit->on_decision = [explain](const Pod& p, const Decision& d) {
        explain->push_back(p.key() + ":\n" + d.explain());
      };
    policy = kubcg_policy(unit)(ctx);
  } else {
    policy = kube_default(ctx);
  }
  policy->start();
  w.loop.run_until();
  RunResult r = workload.result();
  if (unit) {
    r.gpu_waits = unit->counters().waits;
    r.switches = unit->counters().switches;
  }
  return r;
}

namespace {

// Counts binds per pod and calls the fault hook after each finished pod.
class FaultProbe : public fw::EventListener {
 public:
  FaultProbe(sim::SimBackend& sim, std::function<void(int)> hook)
      : sim_(sim), hook_(std::move(hook)) {
    sim_.add_listener(this);
  }
  ~FaultProbe() override { sim_.remove_listener(this); }
  void on_event(const fw::ClusterEvent& e) override {
    if (e.kind == fw::EventKind::kPodBound) ++binds[e.pod_serial];
    if (e.kind == fw::EventKind::kPodFinished && hook_) hook_(++finished_);
  }
  std::map<uint64_t, int> binds;

 private:
  sim::SimBackend& sim_;
  std::function<void(int)> hook_;
  int finished_ = 0;
};

}  // namespace

FaultRun run_case_on_db(Case c, const std::vector<Arrival>& arrivals, const std::string& db_url,
                        uint64_t seed, const std::function<void(int)>& on_finished) {
  World w(seed);
  Workload workload(*w.sim, c, arrivals);
  fw::PolicyStats stats;
  fw::PolicyContext ctx{*w.runtime, seed, "kubcg", yaml::Ctx{}, "", stats};
  auto unit = std::make_shared<DecisionUnit>(open_history(db_url));
  auto policy = kubcg_policy(unit)(ctx);
  FaultProbe probe(*w.sim, on_finished);
  policy->start();
  w.loop.run_until();
  Json summary = Json::object();
  policy->finish(&summary);
  FaultRun out;
  out.result = workload.result();
  for (const auto& [serial, n] : probe.binds) {
    ++out.pods_bound;
    if (n > 1) ++out.bound_twice;
  }
  out.records = unit->counters().recorded;
  out.acknowledged = unit->writer().acknowledged();
  out.pending = static_cast<int64_t>(unit->writer().pending());
  out.lost = unit->writer().lost();
  out.failed_flushes = unit->writer().failed_flushes();
  out.warnings = stats.warnings();
  return out;
}

}  // namespace orrery::kubcg
