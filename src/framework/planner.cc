#include "framework/planner.h"

#include <algorithm>

namespace orrery::fw {

PlannerComponent::PlannerComponent(PolicyContext& ctx, std::unique_ptr<Planner> planner)
    : rt_(ctx.runtime), stats_(ctx.stats), planner_(std::move(planner)) {
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
  planner_->report(stats_);
  wake_at(planner_->next_wakeup_us());
}

}  // namespace orrery::fw
