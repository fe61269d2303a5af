#include "sim/execution.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace orrery::sim {

void Execution::set_node(NodeId node, int64_t cpu_capacity_milli, double speed) {
  if (node >= nodes_.size()) nodes_.resize(node + 1);
  NodeData& n = nodes_[node];
  n.capacity = cpu_capacity_milli;
  n.speed = speed;
}

int64_t Execution::cpu_used(NodeId node) const {
  const NodeData& n = nodes_[node];
  if (n.paused) return 0;
  return std::min(n.demand, n.capacity);
}

double Execution::remaining(PodId pod, Time now) const {
  const PodData& p = pods_[pod];
  if (p.slot == kNoSlot) return p.remaining;
  return std::max(0.0, p.remaining - rate(nodes_[p.node], p) * static_cast<double>(now - p.as_of));
}

void Execution::account(NodeId node, Time now) {
  NodeData& n = nodes_[node];
  const Time dt = now - n.last_change;
  if (dt > 0) {
    n.cpu_time += static_cast<double>(cpu_used(node)) * 1e-3 * static_cast<double>(dt);
    if (!n.paused && n.demand > n.capacity) n.stall_time += dt;
  }
  n.last_change = now;
}

double Execution::cpu_time(NodeId node, Time now) const {
  const NodeData& n = nodes_[node];
  return n.cpu_time +
         static_cast<double>(cpu_used(node)) * 1e-3 * static_cast<double>(now - n.last_change);
}

Time Execution::stall_time(NodeId node, Time now) const {
  const NodeData& n = nodes_[node];
  const bool stalled = !n.paused && n.demand > n.capacity;
  return n.stall_time + (stalled ? now - n.last_change : 0);
}

void Execution::settle(PodData& p, double old_rate, Time now) {
  if (std::isfinite(p.remaining)) {
    p.remaining = std::max(0.0, p.remaining - old_rate * static_cast<double>(now - p.as_of));
  }
  p.as_of = now;
}

void Execution::reschedule(PodId pod, double r) {
  const PodData& p = pods_[pod];
  Time finish = kForever;
  if (r > 0 && std::isfinite(p.remaining)) {
    finish = p.as_of + static_cast<Time>(std::ceil(p.remaining / r));
  }
  changes_.push_back({pod, finish});
}

void Execution::update(NodeId node, Time now) {
  NodeData& n = nodes_[node];
  const double old_share = n.share;
  n.share = n.demand > n.capacity && n.demand > 0
                ? static_cast<double>(n.capacity) / static_cast<double>(n.demand)
                : 1.0;
  if (n.share == old_share || n.paused) return;  // paused: every rate is 0 either way
  // Bring each CPU-bound pod's progress up to `now` at its old rate, then reschedule it.
  for (PodId id : n.running) {
    PodData& p = pods_[id];
    if (p.gpu) continue;
    settle(p, n.speed * old_share, now);
    reschedule(id, n.speed * n.share);
  }
}

void Execution::start(PodId pod, NodeId node, const ExecSpec& spec, bool gpu, Time now) {
  if (pod >= pods_.size()) pods_.resize(pod + 1);
  PodData& p = pods_[pod];
  if (p.slot != kNoSlot) throw std::logic_error("Execution::start: pod already running");
  NodeData& n = nodes_.at(node);
  p.node = node;
  p.gpu = gpu;
  p.cpu = spec.cpu_milli;
  p.memory = spec.memory;
  p.remaining = spec.work == kForever ? INFINITY : static_cast<double>(spec.work);
  p.as_of = now;
  account(node, now);
  const int64_t used_before = cpu_used(node);
  if (!gpu) n.demand += p.cpu;
  n.memory += p.memory;
  total_memory_used_ += p.memory;
  update(node, now);  // the others; the new pod is not in the list yet
  total_cpu_used_ += cpu_used(node) - used_before;
  p.slot = static_cast<uint32_t>(n.running.size());
  n.running.push_back(pod);
  ++running_count_;
  reschedule(pod, rate(n, p));
}

void Execution::stop(PodId pod, Time now) {
  if (pod >= pods_.size()) return;
  PodData& p = pods_[pod];
  if (p.slot == kNoSlot) return;
  NodeData& n = nodes_[p.node];
  settle(p, rate(n, p), now);
  const PodId last = n.running.back();
  n.running[p.slot] = last;
  pods_[last].slot = p.slot;
  n.running.pop_back();
  p.slot = kNoSlot;
  --running_count_;
  account(p.node, now);
  const int64_t used_before = cpu_used(p.node);
  if (!p.gpu) n.demand -= p.cpu;
  n.memory -= p.memory;
  total_memory_used_ -= p.memory;
  update(p.node, now);
  total_cpu_used_ += cpu_used(p.node) - used_before;
}

void Execution::set_paused(NodeId node, bool paused, Time now) {
  NodeData& n = nodes_.at(node);
  if (n.paused == paused) return;
  account(node, now);
  const int64_t used_before = cpu_used(node);
  // Settle at the rates in force before the change.
  for (PodId id : n.running) settle(pods_[id], rate(n, pods_[id]), now);
  n.paused = paused;
  for (PodId id : n.running) reschedule(id, rate(n, pods_[id]));
  total_cpu_used_ += cpu_used(node) - used_before;
}

}  // namespace orrery::sim
