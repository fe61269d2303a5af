#include "policies/optpack/packer.h"

#include <algorithm>
#include <chrono>

#include "core/error.h"
#include "io/distribution_reader.h"
#include "policies/optpack/plan.h"

namespace orrery::optpack {

PackerOptions parse_packer_options(const yaml::Ctx& args) {
  PackerOptions o;
  if (!args.defined()) return o;
  args.expect_map();
  static const std::vector<std::string> known = {
      "timeout",    "alpha",   "mode",     "trigger",       "period",
      "onDemandAt", "maxPods", "maxNodes", "deterministic", "minInterval"};
  for (const std::string& k : args.keys())
    if (std::find(known.begin(), known.end(), k) == known.end())
      args.child(k).fail(
          "unknown field (expected timeout, alpha, mode, trigger, period, "
          "onDemandAt, maxPods, maxNodes, deterministic, minInterval)");
  if (args.has("timeout")) {
    const Time t = parse_duration(args.child("timeout"));
    if (t <= 0) args.child("timeout").fail("must be positive (a 0 s budget gives no plan)");
    o.timeout_s = static_cast<double>(t) / 1e6;
  }
  o.alpha = args.f64_or("alpha", o.alpha);
  if (!(o.alpha > 0 && o.alpha <= 1)) args.child("alpha").fail("expected a number in (0, 1]");
  const std::string mode = args.str_or("mode", "async");
  if (mode != "async" && mode != "sync") args.child("mode").fail("expected async or sync");
  o.sync = mode == "sync";
  bool periodic = false;
  if (args.has("trigger")) {
    o.on_postfilter = false;
    for (const std::string& t : args.child("trigger").str_list()) {
      if (t == "postfilter")
        o.on_postfilter = true;
      else if (t == "periodic")
        periodic = true;
      else if (t == "on-demand")
        continue;
      else
        args.child("trigger").fail("expected postfilter, periodic or on-demand, got \"" + t + "\"");
    }
  }
  if (args.has("period")) {
    o.period_us = parse_duration(args.child("period"));
    if (o.period_us <= 0) args.child("period").fail("must be positive");
  }
  if (periodic && o.period_us == 0) args.child("trigger").fail("periodic needs a period");
  if (!periodic && args.has("trigger")) o.period_us = 0;
  if (args.has("onDemandAt")) {
    const yaml::Ctx at = args.child("onDemandAt");
    at.expect_seq();
    for (size_t i = 0; i < at.size(); ++i) o.on_demand_at.push_back(parse_duration(at.item(i)));
    std::sort(o.on_demand_at.begin(), o.on_demand_at.end());
  }
  if (args.has("minInterval")) o.min_interval_us = parse_duration(args.child("minInterval"));
  const int64_t mp = args.i64_or("maxPods", 0), mn = args.i64_or("maxNodes", 0);
  if (mp < 0) args.child("maxPods").fail("must be >= 0");
  if (mn < 0) args.child("maxNodes").fail("must be >= 0");
  o.max_pods = static_cast<size_t>(mp);
  o.max_nodes = static_cast<size_t>(mn);
  o.deterministic = args.bool_or("deterministic", true);
  return o;
}

Packer::Packer(fw::ClusterBackend& backend, fw::Reservations* reservations, PackerOptions options,
               fw::Profile* profile, uint64_t seed)
    : backend_(backend),
      opts_(std::move(options)),
      profile_(profile),
      seed_(seed),
      executor_(backend, reservations) {
  executor_.set_on_done([this](const fw::PlanReport& r) {
    for (PlanRecord& h : history_)
      if (h.name == r.name) {
        h.status = r.status == fw::PlanStatus::kCompleted ? "completed" : "cancelled";
        h.reason = r.reason;
      }
  });
}

Packer::~Packer() {
  if (started_) backend_.remove_listener(this);
}

void Packer::start() {
  started_ = true;
  backend_.add_listener(this);
  if (opts_.period_us > 0) next_periodic_ = backend_.now_us() + opts_.period_us;
}

void Packer::request(Time now) {
  if (last_solve_ >= 0 && now < last_solve_ + opts_.min_interval_us)
    now = last_solve_ + opts_.min_interval_us;
  if (now < due_) {
    due_ = now;
    announce_wakeup(now);
  }
}

Time Packer::next_wakeup_us() const {
  Time t = std::min(due_, next_periodic_);
  if (next_on_demand_ < opts_.on_demand_at.size())
    t = std::min(t, opts_.on_demand_at[next_on_demand_]);
  return t;
}

void Packer::on_event(const fw::ClusterEvent& e) {
  executor_.handle(e);
}

void Packer::tick() {
  const Time now = backend_.now_us();
  bool run = false;
  if (due_ <= now) due_ = kForever, run = true;
  if (next_periodic_ <= now) next_periodic_ = now + opts_.period_us, run = true;
  while (next_on_demand_ < opts_.on_demand_at.size() && opts_.on_demand_at[next_on_demand_] <= now)
    ++next_on_demand_, run = true;
  if (!run) return;
  if (plan_running()) {  // one plan at a time: try again when it is over
    due_ = now + 1'000'000;
    return;
  }
  solve();
}

void Packer::solve() {
  const ClusterState& st = backend_.state();
  last_solve_ = backend_.now_us();
  SnapshotModel sm;
  try {
    sm = build_model(st, *profile_, {opts_.max_pods, opts_.max_nodes});
  } catch (const InputError&) {
    ++over_limits_;  // over maxPods / maxNodes: not solved (summary.json says how often)
    return;
  }
  bool pending = false;
  for (int p = 0; p < sm.model.pods(); ++p) pending = pending || sm.model.where[p] == kUnplaced;
  if (!pending) return;
  OptimizeOptions o;
  o.timeout_s = opts_.timeout_s;
  o.alpha = opts_.alpha;
  o.deterministic = opts_.deterministic;
  o.seed = seed_ + static_cast<uint64_t>(solves_);
  const OptimizeResult r = optimize(sm.model, o);
  ++solves_;
  solve_wall_s_ += r.seconds;
  if (r.placement_proven()) ++proven_;
  if (!r.improves_on_current()) return;
  ++improved_;
  const Changes ch = describe_changes(sm, r.assignment);
  fw::Plan plan = build_plan(st, sm, r.assignment, "optpack-" + std::to_string(plans_ + 1));
  history_.push_back(
      {plan.name(), static_cast<double>(backend_.now_us()) / 1e6, ch.steps, "running", ""});
  plan.step_timeout_us(120'000'000);
  ++plans_;
  steps_ += static_cast<int64_t>(plan.steps().size());
  moves_ += ch.moves;
  evictions_ += ch.evictions;
  binds_ += ch.new_binds;
  executor_.submit(std::move(plan));
}

void Packer::report(fw::PolicyStats& stats) {
  (void)stats;
}

void Packer::finish(Json* s) {
  (*s)["optpack"] = Json{{"solves", solves_},
                         {"plans", plans_},
                         {"improved", improved_},
                         {"proven_optimal", proven_},
                         {"plan_steps", steps_},
                         {"moves", moves_},
                         {"evictions", evictions_},
                         {"new_binds", binds_},
                         {"plans_completed", executor_.completed()},
                         {"plans_cancelled", executor_.cancelled()},
                         {"over_limits", over_limits_}};
  Json plans = Json::array();
  for (const PlanRecord& h : history_) {
    Json steps = Json::array();
    for (const PlanStep& st : h.steps)
      steps.push_back(Json{{"action", st.action}, {"pod", st.pod}, {"node", st.node}});
    plans.push_back(Json{{"plan", h.name},
                         {"at_s", h.at_s},
                         {"status", h.status},
                         {"reason", h.reason},
                         {"steps", steps}});
  }
  (*s)["optpack"]["plan_history"] = plans;
}

namespace {

class PackingPlugin : public fw::Plugin {
 public:
  explicit PackingPlugin(std::shared_ptr<PackerLink> link) : link_(std::move(link)) {}
  std::string_view name() const override { return kPluginName; }
  uint32_t extension_points() const override { return fw::kPostFilter | fw::kPreFilter; }

  fw::Status pre_filter(const fw::CycleContext& cycle,
                        std::optional<std::vector<NodeId>>* only) override {
    (void)only;
    Packer* p = link_->packer;
    if (p && p->options().sync && p->plan_running() &&
        !p->in_plan(cycle.state.pod_serial(cycle.pod_id)))
      return fw::Status::unschedulable(kPluginName,
                                       "waiting for the priority-optimal packing plan");
    return fw::Status::ok();
  }

  fw::PostFilterResult post_filter(const fw::CycleContext& cycle, fw::Handle& handle,
                                   const fw::Rejections& rejections) override {
    (void)handle;
    (void)rejections;
    fw::PostFilterResult r;
    r.status = fw::Status::unschedulable(kPluginName, "priority-optimal packing requested");
    if (link_->packer && link_->packer->options().on_postfilter)
      link_->packer->request(cycle.now_us);
    return r;
  }

 private:
  std::shared_ptr<PackerLink> link_;
};

}  // namespace

std::unique_ptr<fw::Plugin> make_packing_plugin(std::shared_ptr<PackerLink> link,
                                                const yaml::Ctx& args) {
  link->options = parse_packer_options(args);
  link->configured = true;
  return std::make_unique<PackingPlugin>(std::move(link));
}

}  // namespace orrery::optpack
