#include "policies/kubedsm/policy.h"

#include <memory>

#include "policies/kubedsm/kubedsm.h"

namespace orrery::kubedsm {

void register_policies(fw::PolicyRegistry& registry) {
  registry.add("kubedsm",
               "KubeDSM: QoS-driven batch scheduling and migration for cloud-assisted edge "
               "clusters (args: mC2E, mER, qosTargets, batchWindow, suggestPeriod, ...)",
               [](fw::PolicyContext& ctx) -> std::unique_ptr<fw::Component> {
                 // Args' schedulerName, else the world's (serve --scheduler-name), else the
                 // default scheduler's pods.
                 const std::string pods =
                     ctx.scheduler_name.empty() ? "default-scheduler" : ctx.scheduler_name;
                 Options o;
                 o.scheduler_name = pods;
                 if (ctx.args.defined()) {
                   o = parse_options(ctx.args);
                   if (!ctx.args.has("schedulerName")) o.scheduler_name = pods;
                 }
                 auto planner = std::make_unique<KubeDsm>(ctx.runtime.backend, std::move(o),
                                                          &ctx.runtime.reservations);
                 return std::make_unique<fw::PlannerComponent>(ctx, std::move(planner));
               });
}

}  // namespace orrery::kubedsm
