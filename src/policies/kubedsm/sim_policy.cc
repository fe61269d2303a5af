#include "policies/kubedsm/sim_policy.h"

#include <memory>

#include "policies/kubedsm/kubedsm.h"

namespace orrery::kubedsm {
namespace {

class SimKubeDsm : public sim::Component, public sim::EventTarget {
 public:
  SimKubeDsm(sim::PolicyContext& ctx, Options o)
      : loop_(ctx.loop), sim_(ctx.sim), stats_(ctx.stats), k_(ctx.sim, std::move(o)) {
    k_.set_terminating([this](PodId p) { return sim_.terminating(p); });
    k_.set_wakeup_hook([this](int64_t t) { wake_at(t); });
  }

  void start() override {
    k_.start();
    wake_at(k_.next_wakeup_us());
  }

  void handle(const sim::Event& e) override {
    if (e.a != gen_) return;  // superseded by an earlier wakeup
    wake_ = sim::kForever;
    const Stats before = k_.stats();
    k_.tick();
    record(before);
    wake_at(k_.next_wakeup_us());
  }

  void finish(sim::Json* out) override {
    const Stats& s = k_.stats();
    sim::Json j;
    j["batches"] = s.batches;
    j["suggestions"] = s.suggestions;
    j["suggestions_skipped"] = s.suggestions_skipped;
    j["binds_edge"] = s.binds_edge;
    j["binds_cloud"] = s.binds_cloud;
    j["parked"] = s.parked;
    j["migrations_planned"] = s.migrations_planned;
    j["migrations_done"] = s.migrations_done;
    j["plans_completed"] = s.plans_completed;
    j["plans_cancelled"] = s.plans_cancelled;
    j["fallback_binds"] = s.fallback_binds;
    j["cancellations"] = s.cancellations;
    (*out)["kubedsm"] = std::move(j);
    (*out)["migrations"] = s.migrations_done;
  }

 private:
  void wake_at(int64_t t) {
    if (t == kNever || t >= wake_) return;
    wake_ = std::max<int64_t>(t, loop_.now());
    loop_.at(wake_, this, 0, ++gen_);
  }

  // PolicyStats: one decision per batch (pods bound) and per suggestion, with its wall time.
  void record(const Stats& before) {
    const Stats& s = k_.stats();
    for (size_t i = before.immediate_wall_ns.size(); i < s.immediate_wall_ns.size(); ++i) {
      // One decision per batch: scheduled if it bound pods, failed if every pod found no room
      // anywhere (those are retried; the "parked" counter has them all).
      const int bound = s.immediate_pods[i], parked = s.immediate_parked[i];
      stats_.decision(bound > 0 || parked == 0, s.immediate_wall_ns[i], bound > 0 ? bound : parked);
      if (parked > 0) stats_.count("parked", parked);
    }
    for (size_t i = before.suggest_wall_ns.size(); i < s.suggest_wall_ns.size(); ++i)
      stats_.decision(true, s.suggest_wall_ns[i], 0);
    stats_.count("migrations_planned",
                 static_cast<int64_t>(s.migrations_planned - before.migrations_planned));
  }

  sim::EventLoop& loop_;
  sim::SimBackend& sim_;
  sim::PolicyStats& stats_;
  KubeDsm k_;
  int64_t wake_ = sim::kForever;
  uint64_t gen_ = 0;
};

}  // namespace

void register_sim_policies(sim::PolicyRegistry& registry) {
  registry.add("kubedsm",
               "KubeDSM: QoS-driven batch scheduling and migration for cloud-assisted edge "
               "clusters (args: mC2E, mER, qosTargets, batchWindow, suggestPeriod, ...)",
               [](sim::PolicyContext& ctx) -> std::unique_ptr<sim::Component> {
                 Options o;
                 o.scheduler_name = "default-scheduler";
                 if (ctx.args.defined()) {
                   o = parse_options(ctx.args);
                   if (!ctx.args.has("schedulerName")) o.scheduler_name = "default-scheduler";
                 }
                 return std::make_unique<SimKubeDsm>(ctx, std::move(o));
               });
}

}  // namespace orrery::kubedsm
