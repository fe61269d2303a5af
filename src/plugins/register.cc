#include "plugins/register.h"

#include <iostream>

#include "core/error.h"
#include "plugins/defaultbinder/default_binder.h"
#include "plugins/defaultpreemption/default_preemption.h"
#include "plugins/helper/args.h"
#include "plugins/helper/names.h"
#include "plugins/imagelocality/image_locality.h"
#include "plugins/interpodaffinity/inter_pod_affinity.h"
#include "plugins/machineconstraints/machine_constraints.h"
#include "plugins/nodeaffinity/node_affinity.h"
#include "plugins/nodename/node_name.h"
#include "plugins/nodeports/node_ports.h"
#include "plugins/noderesources/balanced_allocation.h"
#include "plugins/noderesources/fit.h"
#include "plugins/nodeunschedulable/node_unschedulable.h"
#include "plugins/nodevolumelimits/csi_limits.h"
#include "plugins/notmodelled/not_modelled.h"
#include "plugins/podtopologyspread/pod_topology_spread.h"
#include "plugins/prioritysort/priority_sort.h"
#include "plugins/schedulinggates/scheduling_gates.h"
#include "plugins/tainttoleration/taint_toleration.h"
#include "plugins/volumebinding/volume_binding.h"
#include "plugins/volumerestrictions/volume_restrictions.h"
#include "plugins/volumezone/volume_zone.h"

namespace orrery::plugins {

namespace {

// A plugin without arguments: any given args must be an (empty) mapping.
template <class P>
fw::PluginFactory no_args() {
  return [](const fw::PluginArgs& a) -> std::unique_ptr<fw::Plugin> {
    expect_arg_keys(a.args, {});
    return std::make_unique<P>();
  };
}

}  // namespace

void register_default_plugins(fw::PluginRegistry& registry) {
  registry.add(names::kPrioritySort, no_args<PrioritySort>());
  registry.add(names::kNodeUnschedulable, no_args<NodeUnschedulable>());
  registry.add(names::kNodeName, no_args<NodeName>());
  registry.add(names::kTaintToleration, no_args<TaintToleration>());
  registry.add(names::kDefaultBinder, no_args<DefaultBinder>());
  registry.add(names::kMachineConstraints, no_args<MachineConstraints>());
  registry.add(names::kSchedulingGates, no_args<SchedulingGates>());
  registry.add(names::kNodePorts, no_args<NodePorts>());
  registry.add(names::kImageLocality, no_args<ImageLocality>());
  registry.add(names::kVolumeRestrictions, no_args<VolumeRestrictions>());
  registry.add(names::kNodeVolumeLimits, no_args<NodeVolumeLimits>());
  registry.add(names::kVolumeBinding, no_args<VolumeBinding>());
  registry.add(names::kVolumeZone, no_args<VolumeZone>());
  registry.add(names::kNodeAffinity, [](const fw::PluginArgs& a) {
    return std::make_unique<NodeAffinityPlugin>(NodeAffinityArgs::parse(a.args));
  });
  registry.add(names::kNodeResourcesFit, [](const fw::PluginArgs& a) {
    return std::make_unique<NodeResourcesFit>(NodeResourcesFitArgs::parse(a.args));
  });
  registry.add(names::kNodeResourcesBalancedAllocation, [](const fw::PluginArgs& a) {
    return std::make_unique<NodeResourcesBalancedAllocation>(BalancedAllocationArgs::parse(a.args));
  });
  registry.add(names::kPodTopologySpread, [](const fw::PluginArgs& a) {
    return std::make_unique<PodTopologySpread>(PodTopologySpreadArgs::parse(a.args));
  });
  registry.add(names::kInterPodAffinity, [](const fw::PluginArgs& a) {
    return std::make_unique<InterPodAffinity>(InterPodAffinityArgs::parse(a.args));
  });
  registry.add(names::kDefaultPreemption, [](const fw::PluginArgs& a) {
    return std::make_unique<DefaultPreemption>(DefaultPreemptionArgs::parse(a.args),
                                               a.deterministic);
  });
  for (const std::string& n : not_modelled_plugins()) {
    registry.add(n, [](const fw::PluginArgs&) { return std::unique_ptr<fw::Plugin>(); });
  }
}

std::vector<std::unique_ptr<fw::Profile>> build_profiles(const fw::SchedulerConfig& config,
                                                         const fw::PluginRegistry& registry,
                                                         std::vector<std::string>* warnings,
                                                         fw::Runtime* runtime) {
  std::vector<std::string> local;
  std::vector<std::unique_ptr<fw::Profile>> out;
  for (const fw::ProfileConfig& p : config.profiles) {
    out.push_back(fw::build_profile(p, config.percentage_of_nodes_to_score, registry,
                                    warnings ? warnings : &local, runtime));
  }
  // Upstream requires the same queue sort plugin in every profile: they share one queue.
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i]->queue_sort->name() != out[0]->queue_sort->name()) {
      throw InputError(config.profiles[i].where +
                       ": queueSort must be the same for all profiles (" +
                       std::string(out[0]->queue_sort->name()) + " vs " +
                       std::string(out[i]->queue_sort->name()) + ")");
    }
  }
  for (const std::string& w : local) std::cerr << "orrery: warning: " << w << "\n";
  return out;
}

std::vector<std::unique_ptr<fw::Profile>> default_profiles(bool deterministic,
                                                           int percentage_of_nodes_to_score) {
  static const fw::PluginRegistry registry = [] {
    fw::PluginRegistry r;
    register_default_plugins(r);
    return r;
  }();
  fw::SchedulerConfig config = fw::default_scheduler_config();
  config.profiles[0].deterministic_ties = deterministic;
  config.percentage_of_nodes_to_score = percentage_of_nodes_to_score;
  return build_profiles(config, registry);
}

}  // namespace orrery::plugins
