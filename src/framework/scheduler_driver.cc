#include "framework/scheduler_driver.h"

#include <algorithm>

namespace orrery::fw {

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
// cycle's modelled latency has passed (at once when it is zero).
class SchedulerDriver::Actions : public ClusterBackend {
 public:
  explicit Actions(ClusterBackend& real) : real_(real) {}
  ClusterState& state() override { return real_.state(); }
  int64_t now_us() const override { return real_.now_us(); }
  void bind(PodId pod, NodeId node) override {
    held_.push_back({true, pod, node, real_.state().pod_serial(pod), {}});
  }
  void delete_pod(PodId pod, const std::string& reason) override {
    held_.push_back({false, pod, kNoNode, real_.state().pod_serial(pod), reason});
  }
  void create_pod(Pod pod) override { real_.create_pod(std::move(pod)); }
  bool update_pod(PodId pod, const PodUpdate& u) override { return real_.update_pod(pod, u); }
  void add_listener(EventListener* l) override { real_.add_listener(l); }
  void remove_listener(EventListener* l) override { real_.remove_listener(l); }

  bool holding() const { return !held_.empty(); }
  // Carries out the held actions whose pods still exist.
  void release() {
    // Swap buffers (both keep their capacity: no allocation per cycle); an action may lead to
    // new held actions only through a later cycle, but the swap keeps this safe regardless.
    releasing_.swap(held_);
    const ClusterState& st = real_.state();
    for (const Held& h : releasing_) {
      if (!st.pod_alive(h.pod) || st.pod_serial(h.pod) != h.serial) continue;
      if (h.bind) {
        real_.bind(h.pod, h.node);
      } else {
        real_.delete_pod(h.pod, h.reason);
      }
    }
    releasing_.clear();
  }

 private:
  struct Held {
    bool bind;
    PodId pod;
    NodeId node;
    uint64_t serial;
    std::string reason;
  };
  ClusterBackend& real_;
  std::vector<Held> held_;
  std::vector<Held> releasing_;
};

SchedulerDriver::SchedulerDriver(PolicyContext& ctx, std::vector<std::unique_ptr<Profile>> profiles,
                                 SchedulerOptions options, DecisionLatency latency)
    : rt_(ctx.runtime),
      stats_(ctx.stats),
      latency_(latency),
      latency_rng_(Rng::derive(ctx.seed, "decision-latency/" + ctx.name)),
      observer_(ctx.runtime.services.find<CycleObserver>()),
      actions_(std::make_unique<Actions>(ctx.runtime.backend)) {
  // Without an observer nothing reads them: outcomes are only counted.
  options.failure_messages = observer_ != nullptr;
  scheduler_ =
      std::make_unique<Scheduler>(*actions_, std::move(profiles), options, &rt_.reservations);
  rt_.backend.add_listener(this);       // after the scheduler, so its queue is current when we look
  rt_.reservations.add_listener(this);  // likewise
}

SchedulerDriver::~SchedulerDriver() {
  rt_.backend.remove_listener(this);
  rt_.reservations.remove_listener(this);
  rt_.clock.cancel(wake_timer_);
  scheduler_.reset();
}

void SchedulerDriver::start() {
  scheduler_->enqueue_pending();
  wake_at(rt_.clock.now_us());
}

void SchedulerDriver::wake_at(Time t) {
  if (t >= wake_at_) return;
  rt_.clock.cancel(wake_timer_);
  wake_at_ = t;
  wake_timer_ = rt_.clock.at(t, this, kWake);
}

void SchedulerDriver::on_event(const ClusterEvent& e) {
  switch (e.kind) {
    case EventKind::kPodBound:
      // Ours: nothing changed. Another scheduler's: the queue's hints may have queued pods.
      if (scheduler_->has_ready_pod()) wake_at(std::max(rt_.clock.now_us(), busy_until_));
      return;
    case EventKind::kPodRunning:
    case EventKind::kPodTerminating:
    case EventKind::kPodDeleteFailed: return;
    case EventKind::kPodAdded:
      if (watch_unenforced_constraints_ && rt_.backend.state().pod(e.pod).spec->constraints != 0) {
        stats_.warn(
            "pods require machine constraints but the scheduler profile does not enable the "
            "MachineConstraints plugin, so they are ignored (see docs/plugins.md)");
        watch_unenforced_constraints_ = false;
      }
      wake_at(std::max(rt_.clock.now_us(), busy_until_));
      return;
    default: wake_at(std::max(rt_.clock.now_us(), busy_until_));
  }
}

void SchedulerDriver::on_released(const Reservation&) {
  // Only ever earlier: pods made ready now, or a backoff ending before the planned wake-up.
  const Time now = rt_.clock.now_us();
  if (scheduler_->has_ready_pod()) {
    wake_at(std::max(now, busy_until_));
  } else if (auto t = scheduler_->next_wakeup_us()) {
    wake_at(std::max({*t, now + 1, busy_until_}));
  }
}

void SchedulerDriver::on_timer(uint64_t tag) {
  if (tag == kRelease) {
    actions_->release();
    return;
  }
  wake_timer_ = kNoTimer;
  wake_at_ = kForever;
  run();
}

void SchedulerDriver::observe(const ScheduleOutcome& o) {
  const ClusterState& st = rt_.backend.state();
  const bool alive = st.pod_alive(o.pod) && st.pod_serial(o.pod) == o.serial;
  observer_->on_cycle({o, alive ? scheduler_->profile_for(st.pod(o.pod)) : nullptr});
}

void SchedulerDriver::run() {
  run_cycles();
  if (observer_) observer_->on_queue(queue_counts(*scheduler_));
}

void SchedulerDriver::run_cycles() {
  const Time now = rt_.clock.now_us();
  if (busy_until_ > now) {
    wake_at(busy_until_);
    return;
  }
  while (auto o = scheduler_->schedule_next()) {
    if (!o->counted) continue;  // a failed requeue-all probe: no decision, no time
    stats_.decision(o->scheduled, o->wall_ns);
    if (observer_) observe(*o);
    Time d = latency_.base.is_zero() ? 0 : latency_.base.sample_time(latency_rng_);
    d += latency_.per_node * o->evaluated_nodes;
    if (d == 0) {
      actions_->release();
      continue;
    }
    // The cycle's actions leave when it ends; the scheduler is busy until then.
    if (actions_->holding()) rt_.clock.at(now + d, this, kRelease);
    busy_until_ = now + d;
    wake_at(busy_until_);
    return;
  }
  if (auto t = scheduler_->next_wakeup_us()) wake_at(std::max(*t, now + 1));
}

}  // namespace orrery::fw
