#include "sim/scheduler_driver.h"

#include <algorithm>

#include "plugins/helper/names.h"

namespace orrery::sim {

DecisionLatency parse_decision_latency(const yaml::Ctx& c) {
  DecisionLatency d;
  if (!c.defined()) return d;
  c.expect_map();
  for (const std::string& k : c.keys()) {
    if (k != "base" && k != "per_node") c.child(k).fail("unknown field (expected base, per_node)");
  }
  if (c.has("base")) d.base = parse_duration_dist(c.child("base"));
  if (c.has("per_node")) d.per_node = parse_duration(c.child("per_node"));
  return d;
}

// The backend the scheduler sees: actions taken during a cycle are held and released when the
// cycle's modelled latency has passed.
class SchedulerDriver::Actions : public fw::ClusterBackend {
 public:
  explicit Actions(SimBackend& sim) : sim_(sim) {}
  ClusterState& state() override { return sim_.state(); }
  int64_t now_us() const override { return sim_.now_us(); }
  void bind(PodId pod, NodeId node) override {
    held_.push_back({true, pod, node, sim_.state().pod_serial(pod), {}});
  }
  void delete_pod(PodId pod, const std::string& reason) override {
    held_.push_back({false, pod, kNoNode, sim_.state().pod_serial(pod), reason});
  }
  PodId create_pod(Pod pod) override { return sim_.create_pod(std::move(pod)); }
  void add_listener(fw::EventListener* l) override { sim_.add_listener(l); }
  void remove_listener(fw::EventListener* l) override { sim_.remove_listener(l); }

  void release(Time delay) {
    const ClusterState& st = sim_.state();
    for (const Held& h : held_) {
      if (!st.pod_alive(h.pod) || st.pod_serial(h.pod) != h.serial) continue;
      if (h.bind) {
        sim_.bind_after(h.pod, h.node, delay);
      } else {
        sim_.delete_after(h.pod, h.reason, delay);
      }
    }
    held_.clear();
  }

 private:
  struct Held {
    bool bind;
    PodId pod;
    NodeId node;
    uint64_t serial;
    std::string reason;
  };
  SimBackend& sim_;
  std::vector<Held> held_;
};

SchedulerDriver::SchedulerDriver(PolicyContext& ctx,
                                 std::vector<std::unique_ptr<fw::Profile>> profiles,
                                 fw::SchedulerOptions options, DecisionLatency latency)
    : loop_(ctx.loop),
      sim_(ctx.sim),
      stats_(ctx.stats),
      latency_(latency),
      latency_rng_(Rng::derive(ctx.seed, "decision-latency/" + ctx.name)),
      actions_(std::make_unique<Actions>(ctx.sim)) {
  for (const auto& p : profiles) {
    const bool enforces = std::any_of(p->filter.begin(), p->filter.end(), [](const fw::Plugin* f) {
      return f->name() == plugins::names::kMachineConstraints;
    });
    if (!enforces) watch_unenforced_constraints_ = true;
  }
  options.failure_messages = false;  // nothing in a simulation reads them
  scheduler_ = std::make_unique<fw::Scheduler>(*actions_, std::move(profiles), options);
  sim_.add_listener(this);  // after the scheduler, so its queue is current when we look
}

SchedulerDriver::~SchedulerDriver() {
  sim_.remove_listener(this);
  scheduler_.reset();
}

void SchedulerDriver::start() {
  scheduler_->enqueue_pending();
  wake_at(loop_.now());
}

void SchedulerDriver::wake_at(Time t) {
  if (t >= wake_at_) return;
  wake_at_ = t;
  loop_.at(t, this, 0, ++wake_gen_);
}

void SchedulerDriver::on_event(const fw::ClusterEvent& e) {
  switch (e.kind) {
    case fw::EventKind::kPodBound:
      // Ours: nothing changed. Another scheduler's: the queue's hints may have queued pods.
      if (scheduler_->has_ready_pod()) wake_at(std::max(loop_.now(), busy_until_));
      return;
    case fw::EventKind::kPodRunning: return;
    case fw::EventKind::kPodAdded:
      if (watch_unenforced_constraints_ && sim_.state().pod(e.pod).spec->constraints != 0) {
        stats_.warn(
            "pods require machine constraints but the scheduler profile does not enable the "
            "MachineConstraints plugin, so they are ignored (see docs/plugins.md)");
        watch_unenforced_constraints_ = false;
      }
      wake_at(std::max(loop_.now(), busy_until_));
      return;
    default: wake_at(std::max(loop_.now(), busy_until_));
  }
}

void SchedulerDriver::handle(const Event& e) {
  if (e.a != wake_gen_) return;  // superseded by an earlier wake-up
  wake_at_ = kForever;
  run();
}

void SchedulerDriver::run() {
  const Time now = loop_.now();
  if (busy_until_ > now) {
    wake_at(busy_until_);
    return;
  }
  while (auto o = scheduler_->schedule_next()) {
    if (!o->counted) continue;  // a failed requeue-all probe: no decision, no time
    stats_.decision(o->scheduled, o->wall_ns);
    Time d = latency_.base.is_zero() ? 0 : latency_.base.sample_time(latency_rng_);
    d += latency_.per_node * o->evaluated_nodes;
    actions_->release(d);
    if (d > 0) {
      busy_until_ = now + d;
      wake_at(busy_until_);
      return;
    }
  }
  if (auto t = scheduler_->next_wakeup_us()) wake_at(std::max(*t, now + 1));
}

}  // namespace orrery::sim
