#include "framework/planner.h"

#include <algorithm>

namespace orrery::fw {

PlannerComponent::PlannerComponent(PolicyContext& ctx, std::unique_ptr<Planner> planner)
    : rt_(ctx.runtime),
      stats_(ctx.stats),
      observer_(ctx.runtime.services.find<CycleObserver>()),
      planner_(std::move(planner)) {
  planner_->set_wakeup_hook([this](Time t) { wake_at(t); });
}

PlannerComponent::~PlannerComponent() {
  rt_.clock.cancel(timer_);
}

void PlannerComponent::start() {
  planner_->start();
  wake_at(planner_->next_wakeup_us());
}

void PlannerComponent::wake_at(Time t) {
  if (t == kForever || t >= wake_) return;
  rt_.clock.cancel(timer_);
  wake_ = std::max(t, rt_.clock.now_us());
  timer_ = rt_.clock.at(wake_, this, 0);
}

void PlannerComponent::on_timer(uint64_t) {
  timer_ = kNoTimer;
  wake_ = kForever;
  planner_->tick();
  const size_t before = stats_.wall_ns().size();
  planner_->report(stats_);
  if (observer_)
    for (size_t i = before; i < stats_.wall_ns().size(); ++i)
      observer_->on_planner_decision(stats_.wall_ns()[i]);
  wake_at(planner_->next_wakeup_us());
}

}  // namespace orrery::fw
