#include "policies/optpack/policy.h"

#include <memory>

#include "framework/config.h"
#include "framework/planner.h"
#include "plugins/register.h"
#include "policies/kube/policies.h"
#include "policies/optpack/packer.h"

namespace orrery::optpack {

namespace {

// kube-default plus the packer's plugin (appended after DefaultPreemption at PostFilter).
const char* kConfig = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    preFilter:
      enabled: [{name: PriorityOptimalPacking}]
    postFilter:
      enabled: [{name: PriorityOptimalPacking}]
)";

// The scheduler and the packer side by side.
class OptpackPolicy : public fw::Component {
 public:
  OptpackPolicy(std::unique_ptr<fw::Component> scheduler,
                std::vector<std::unique_ptr<fw::Profile>> feasibility,
                std::unique_ptr<fw::PlannerComponent> packer)
      : scheduler_(std::move(scheduler)),
        feasibility_(std::move(feasibility)),
        packer_(std::move(packer)) {}
  void start() override {
    scheduler_->start();
    packer_->start();
  }
  void finish(Json* s) override {
    scheduler_->finish(s);
    packer_->finish(s);
  }

 private:
  std::unique_ptr<fw::Component> scheduler_;
  std::vector<std::unique_ptr<fw::Profile>> feasibility_;
  std::unique_ptr<fw::PlannerComponent> packer_;
};

}  // namespace

void register_policies(fw::PolicyRegistry& registry) {
  registry.add(
      "kube-optpack",
      "kube-default plus priority-optimal packing (Christensen et al.): when pods stay pending, "
      "repack tier by tier and apply a verified cross-node preemption plan (pluginConfig of "
      "PriorityOptimalPacking: timeout, alpha, mode, trigger, period, maxPods, maxNodes)",
      [](fw::PolicyContext& ctx) -> std::unique_ptr<fw::Component> {
        auto link = std::make_shared<PackerLink>();
        fw::PolicyFactory scheduler = kube::framework_policy(
            [link](fw::PluginRegistry& reg) {
              reg.add(kPluginName, [link](const fw::PluginArgs& a) {
                return make_packing_plugin(link, a.args);
              });
            },
            [] { return fw::parse_scheduler_config(kConfig, "<kube-optpack>"); });
        std::unique_ptr<fw::Component> driver = scheduler(ctx);
        if (!link->configured)
          ctx.stats.warn(
              "kube-optpack: the configuration does not enable PriorityOptimalPacking; "
              "the packer runs only on its periodic / on-demand triggers");
        // Feasibility for the model: the kube-default filters (the profile's own are the same
        // plugins; a separate instance keeps the packer from touching the scheduler's state).
        auto feasibility = plugins::default_profiles(true);
        // The packer models the pods of the scheduler's (first) profile: default-scheduler in
        // the built-in configuration, e.g. "orrery" under `orrery serve --config`.
        feasibility.front()->scheduler_name =
            fw::policy_config(ctx, fw::default_scheduler_config).profiles.front().scheduler_name;
        auto packer = std::make_unique<Packer>(ctx.runtime.backend, &ctx.runtime.reservations,
                                               link->options, feasibility.front().get(), ctx.seed);
        link->packer = packer.get();
        auto planner = std::make_unique<fw::PlannerComponent>(ctx, std::move(packer));
        return std::make_unique<OptpackPolicy>(std::move(driver), std::move(feasibility),
                                               std::move(planner));
      });
}

}  // namespace orrery::optpack
