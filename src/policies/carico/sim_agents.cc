#include "policies/carico/sim_agents.h"

#include <algorithm>
#include <cmath>

namespace orrery::carico {

std::optional<RawSample> NodeTelemetrySource::read(double now_s, std::string* problem) {
  const double cpu = t_.cpu_seconds_total(node_), stall = t_.cpu_stall_seconds_total(node_);
  const double prev_t = last_t_, prev_cpu = last_cpu_, prev_stall = last_stall_;
  last_t_ = now_s;
  last_cpu_ = cpu;
  last_stall_ = stall;
  if (prev_t < 0 || now_s <= prev_t) {
    *problem = "priming: the first poll gives no delta";
    return std::nullopt;
  }
  const double dt = now_s - prev_t;
  const double cores = static_cast<double>(t_.cpu_capacity_milli(node_)) / 1000.0;
  RawSample s;
  s.cpu_util = cores > 0 ? std::clamp((cpu - prev_cpu) / (dt * cores), 0.0, 1.0) : 0.0;
  s.cpu_pressure = std::clamp((stall - prev_stall) / dt, 0.0, 1.0);
  const double mem_cap = static_cast<double>(t_.memory_capacity(node_));
  s.mem_util = mem_cap > 0 ? std::clamp(t_.memory_used(node_) / mem_cap, 0.0, 1.0) : 0.0;
  s.pods = t_.running_pods(node_);
  return s;
}

SimulatedAgents::SimulatedAgents(fw::Runtime& rt, const fw::NodeTelemetry& telemetry,
                                 SimAgentOptions options, uint64_t seed)
    : rt_(rt),
      tel_(telemetry),
      opt_(options),
      seed_(seed),
      agg_(std::make_unique<AggregatorCore>(options.agent.rank)),
      period_(std::max<Time>(1, static_cast<Time>(std::llround(1e6 / options.agent.hz)))) {
  rt_.backend.add_listener(this);
}

SimulatedAgents::~SimulatedAgents() { rt_.backend.remove_listener(this); }

void SimulatedAgents::start() { rt_.clock.after(period_, this, kPoll); }

SimulatedAgents::PerNode* SimulatedAgents::ensure(NodeId node) {
  if (nodes_.size() <= node) nodes_.resize(node + 1);
  if (!nodes_[node]) {
    const std::string name = rt_.backend.state().node(node).name;
    nodes_[node] = std::make_unique<PerNode>(tel_, node, opt_.agent,
                                             Rng::derive(seed_, "carico/agent/" + name));
  }
  return nodes_[node].get();
}

void SimulatedAgents::poll() {
  const ClusterState& st = rt_.backend.state();
  const Time now = rt_.clock.now_us();
  const double now_s = to_seconds(now);
  for (NodeId n : st.nodes()) {
    PerNode* p = ensure(n);
    std::string problem;
    std::optional<RawSample> s = p->source.read(now_s, &problem);
    if (s) {
      s->cpu_util = std::clamp(s->cpu_util + opt_.idle_cpu + opt_.noise * p->rng.normal(), 0.0, 1.0);
      s->mem_util = std::clamp(s->mem_util + opt_.idle_mem + opt_.noise * p->rng.normal(), 0.0, 1.0);
    }
    const auto report = p->agent.poll(now_s, s, s ? s->pods : -1);
    if (!report) continue;
    if (aggregator_down(now)) {
      ++lost_reports_;
      continue;
    }
    const NodeStatus status{report->pod_capacity, report->capacity, report->pods};
    p->agent.set_global(agg_->submit(st.node(n).name, report->local, status, now_s));
    agg_->drain(now_s);
    pending_.push_back({now + opt_.report_delay, n, status, now});
    rt_.clock.at(now + opt_.report_delay, this, kDeliver);
  }
}

bool SimulatedAgents::aggregator_down(Time now) {
  bool down = false;
  for (const AggregatorOutage& o : opt_.aggregator_outages)
    down = down || (now >= o.from && now < o.to);
  if (was_down_ && !down) {
    agg_ = std::make_unique<AggregatorCore>(opt_.agent.rank);  // restarted empty
    ++restarts_;
  }
  was_down_ = down;
  return down;
}

void SimulatedAgents::on_timer(uint64_t tag) {
  if (tag == kPoll) {
    poll();
    rt_.clock.after(period_, this, kPoll);
    return;
  }
  const Time now = rt_.clock.now_us();
  while (!pending_.empty() && pending_.front().at <= now) {
    const Pending d = pending_.front();
    pending_.pop_front();
    if (aggregator_down(now)) {  // died with the report in flight
      ++lost_reports_;
      continue;
    }
    PerNode* p = ensure(d.node);
    p->delivered = d.status;
    p->reported_at = d.made;
    updated(d.node);
  }
}

void SimulatedAgents::on_event(const fw::ClusterEvent& e) {
  if (e.kind == fw::EventKind::kPodBound && e.node != kNoNode)
    ensure(e.node)->agent.churn(to_seconds(e.time_us));
}

std::optional<NodeCapacity> SimulatedAgents::capacity(const ClusterState&, NodeId node,
                                                      Time now_us) const {
  if (node >= nodes_.size() || !nodes_[node] || !nodes_[node]->delivered) return std::nullopt;
  const PerNode& p = *nodes_[node];
  NodeCapacity c;
  c.pod_capacity = p.delivered->pod_capacity;
  c.capacity = p.delivered->capacity;
  c.pods = p.delivered->pods;
  c.age_s = to_seconds(std::max<Time>(0, now_us - p.reported_at));
  return c;
}

}  // namespace orrery::carico
