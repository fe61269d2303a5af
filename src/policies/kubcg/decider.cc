#include "policies/kubcg/decider.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace orrery::kubcg {

namespace {

bool blocked(const DeciderInput& in, const std::string& image, const std::string& node) {
  return in.incompatible && in.incompatible(in.incompatible_ctx, image, node);
}

int gpus_held(const NodeStatus& n) {
  int g = 0;
  for (const RunningPod& r : n.running) g += r.gpus;
  return g;
}

// Δ_CPU (eq 16): the pod's τ shared with the CPU pods running on the node.
Candidate cpu_candidate(const DeciderInput& in, const NodeStatus& n) {
  Candidate c;
  c.node = n.name;
  c.resource = Resource::kCpu;
  c.image = in.images.cpu_image;
  if (blocked(in, c.image, n.name)) {
    c.why = "incompatible (a run failed here)";
    return c;
  }
  const StatsCache::Entry* s = in.stats->find(c.image, n.name, Resource::kCpu);
  if (!s || s->count == 0) {
    c.why = "no history";
    return c;
  }
  c.usable = true;
  c.tau_s = s->min_s;
  const double slope = in.theta->slope(c.image);
  std::vector<double> work;
  for (const RunningPod& r : n.running)
    if (r.resource == Resource::kCpu) work.push_back(r.left_s);
  if (work.empty()) {
    c.delta_s = c.tau_s;
    c.why = fmt::format("idle: Min(T_Run) {:.1f} s", c.tau_s);
    return c;
  }
  const int p = static_cast<int>(work.size());
  const double now_theta = ThetaModel::theta_of(slope, p);
  for (double& w : work) w /= now_theta;  // wall time left → solo work left
  work.push_back(c.tau_s);
  const std::vector<double> fin =
      share_finish(work, [slope](int k) { return ThetaModel::theta_of(slope, k); });
  c.delta_s = fin.back();
  c.why = fmt::format("{} CPU pod(s) running: T_Run' {:.1f} s (Min(T_Run) {:.1f} s, Θ_{} {:.2f})",
                      p, c.delta_s, c.tau_s, p + 1, ThetaModel::theta_of(slope, p + 1));
  return c;
}

// Δ_GPU (eq 17): the GPU's wait plus τ.
Candidate gpu_candidate(const DeciderInput& in, const NodeStatus& n) {
  Candidate c;
  c.node = n.name;
  c.resource = Resource::kGpu;
  c.image = in.images.gpu_image;
  if (blocked(in, c.image, n.name)) {
    c.why = "incompatible (a run failed here)";
    return c;
  }
  const StatsCache::Entry* s = in.stats->find(c.image, n.name, Resource::kGpu);
  if (!s || s->count == 0) {
    c.why = "no history";
    return c;
  }
  c.usable = true;
  c.tau_s = s->min_s;
  std::vector<double> busy;
  for (const RunningPod& r : n.running)
    for (int g = 0; g < r.gpus; ++g) busy.push_back(r.left_s);
  c.wait_s = gpu_wait(n.gpus, busy, n.gpu_queue);
  c.delta_s = c.tau_s + c.wait_s;
  c.why = c.wait_s > 0
              ? fmt::format("GPU busy: T_wGPU {:.1f} s ({} queued ahead) + Min(T_Run) {:.1f} s",
                            c.wait_s, n.gpu_queue.size(), c.tau_s)
              : fmt::format("GPU free: Min(T_Run) {:.1f} s", c.tau_s);
  return c;
}

void choose(Decision& d, const Candidate& c, size_t index) {
  d.placed = true;
  d.node_index = index;
  d.node = c.node;
  d.resource = c.resource;
  d.image = c.image;
  d.delta_s = c.delta_s;
  d.wait_for_gpu = c.resource == Resource::kGpu && c.wait_s > 0;
}

// Cold start: idle node first, else the one idle earliest.
void cold_start(const DeciderInput& in, Decision& d) {
  const auto& nodes = *in.nodes;
  const PodImages& im = in.images;
  size_t best = nodes.size();
  double best_idle = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeStatus& n = nodes[i];
    const bool cpu_ok = !im.cpu_image.empty() && !blocked(in, im.cpu_image, n.name);
    const bool gpu_ok =
        !im.gpu_image.empty() && n.gpus >= im.gpus && !blocked(in, im.gpu_image, n.name);
    if (!cpu_ok && !gpu_ok) continue;
    double idle_in = 0;
    for (const RunningPod& r : n.running) idle_in = std::max(idle_in, r.left_s);
    if (idle_in < best_idle) best_idle = idle_in, best = i;
  }
  if (best == nodes.size()) return;
  const NodeStatus& n = nodes[best];
  const bool gpu_ok =
      !im.gpu_image.empty() && n.gpus >= im.gpus && !blocked(in, im.gpu_image, n.name);
  const bool gpu_free = gpu_ok && n.gpus - gpus_held(n) >= im.gpus;
  const bool cpu_ok = !im.cpu_image.empty() && !blocked(in, im.cpu_image, n.name);
  Candidate c;
  c.node = n.name;
  c.resource = Resource::kCpu;
  c.image = im.cpu_image;
  if (gpu_free || !cpu_ok) {
    c.resource = Resource::kGpu;
    c.image = im.gpu_image;
    if (!gpu_free) {
      std::vector<double> busy;
      for (const RunningPod& r : n.running)
        for (int g = 0; g < r.gpus; ++g) busy.push_back(r.left_s);
      c.wait_s = std::max(1e-3, gpu_wait(n.gpus, busy, n.gpu_queue));
    }
  }
  c.delta_s = best_idle;
  choose(d, c, best);
  d.cold_start = true;
}

}  // namespace

Decision decide(const DeciderInput& in) {
  Decision d;
  const auto& nodes = *in.nodes;
  const Candidate* best_cpu = nullptr;
  const Candidate* best_gpu = nullptr;
  size_t cpu_i = 0, gpu_i = 0;
  d.candidates.reserve(nodes.size() * 2);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!in.images.cpu_image.empty()) d.candidates.push_back(cpu_candidate(in, nodes[i]));
    if (!in.images.gpu_image.empty() && nodes[i].gpus >= in.images.gpus)
      d.candidates.push_back(gpu_candidate(in, nodes[i]));
  }
  // Pointers only after the vector stopped growing.
  size_t k = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (; k < d.candidates.size() && d.candidates[k].node == nodes[i].name; ++k) {
      const Candidate& c = d.candidates[k];
      if (!c.usable) continue;
      if (c.resource == Resource::kCpu && (!best_cpu || c.delta_s < best_cpu->delta_s))
        best_cpu = &c, cpu_i = i;
      if (c.resource == Resource::kGpu && (!best_gpu || c.delta_s < best_gpu->delta_s))
        best_gpu = &c, gpu_i = i;
    }
  }
  // Algorithm 3: Min_GPU > Min_CPU → CPU, else GPU.
  if (best_gpu && (!best_cpu || best_gpu->delta_s <= best_cpu->delta_s)) {
    choose(d, *best_gpu, gpu_i);
  } else if (best_cpu) {
    choose(d, *best_cpu, cpu_i);
  } else {
    cold_start(in, d);
  }
  return d;
}

std::string Decision::explain() const {
  std::string out;
  for (const Candidate& c : candidates) {
    out += fmt::format("  {:<12} {} {:<28} ", c.node, to_string(c.resource), c.image);
    if (c.usable)
      out += fmt::format("Δ {:>8.1f} s  {}\n", c.delta_s, c.why);
    else
      out += fmt::format("—            {}\n", c.why);
  }
  if (!placed) return out + "  → no compatible node\n";
  out += fmt::format("  → {} {} ({}){}{}\n", node, to_string(resource), image,
                     wait_for_gpu ? ": wait for the busy GPU" : "",
                     cold_start ? " [cold start: no history; idle node first, then earliest idle]"
                                : fmt::format(", completes in {:.1f} s", delta_s));
  return out;
}

}  // namespace orrery::kubcg
