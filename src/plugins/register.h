// The kube-default plugins and the two-line way to get kube-scheduler's default profile:
//
//   fw::PluginRegistry registry;
//   plugins::register_default_plugins(registry);
//   auto profiles = plugins::build_profiles(fw::default_scheduler_config(), registry);
//
// or, with a KubeSchedulerConfiguration file, fw::load_scheduler_config(path) instead of the
// default configuration. Other modules add their own plugins to the same registry.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "framework/config.h"
#include "framework/registry.h"

namespace orrery::plugins {

// Registers PrioritySort, NodeUnschedulable, NodeName, TaintToleration, NodeAffinity,
// NodeResourcesFit, NodeResourcesBalancedAllocation, PodTopologySpread, InterPodAffinity,
// NodePorts, ImageLocality, SchedulingGates, VolumeRestrictions, NodeVolumeLimits, VolumeBinding,
// VolumeZone, DefaultPreemption, DefaultBinder, the accepted-but-not-modelled default plugins (see
// notmodelled/), and orrery's own MachineConstraints (not in the default profile).
void register_default_plugins(fw::PluginRegistry& registry);

// One profile per configured profile. Throws InputError on bad configurations (unknown plugin
// names, bad args, ...). Warnings (plugins accepted but not modelled) go to `warnings`, or to
// stderr when it is null.
std::vector<std::unique_ptr<fw::Profile>> build_profiles(
    const fw::SchedulerConfig& config, const fw::PluginRegistry& registry,
    std::vector<std::string>* warnings = nullptr, fw::Runtime* runtime = nullptr);

// The kube-scheduler default profile ("default-scheduler"); `deterministic` selects the orrery
// tie-break by node name; `percentage_of_nodes_to_score` as in the configuration (0: adaptive).
std::vector<std::unique_ptr<fw::Profile>> default_profiles(bool deterministic = false,
                                                           int percentage_of_nodes_to_score = 0);

}  // namespace orrery::plugins
