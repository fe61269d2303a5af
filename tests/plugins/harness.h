// Test harness for the kube-default plugins: clusters from kubectl-style YAML, profiles from
// KubeSchedulerConfiguration text, and per-node results of Scheduler::evaluate by name.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "framework/scheduler.h"

namespace orrery::plugins::testing {

// One Node document. `allocatable` is a flow mapping ("{cpu: 4, memory: 8Gi}"; pods defaults to
// 110); `labels` a flow mapping; `spec` the node spec's flow mapping ("{taints: [...]}").
std::string node_doc(const std::string& name, const std::string& allocatable,
                     const std::string& labels = "{}", const std::string& spec = "{}");
// One Pod document with one container per entry of `requests` (flow mappings, "" = none),
// `spec_extra` merged into the spec as YAML lines indented by 2 ("nodeName: n1\npriority: 5"),
// and `meta_extra` into metadata likewise.
std::string pod_doc(const std::string& name, const std::vector<std::string>& requests,
                    const std::string& spec_extra = "", const std::string& meta_extra = "");

// A profile with exactly `names` enabled (multiPoint, everything else disabled) plus
// PrioritySort and DefaultBinder. `extra` is appended to the profile (YAML, indented 2).
std::string config_with(const std::vector<std::string>& names, const std::string& extra = "");
std::vector<std::unique_ptr<fw::Profile>> profiles_from(const std::string& config_yaml);

struct Harness {
  Harness(const std::string& objects_yaml, const std::string& config_yaml,
          fw::SchedulerOptions options = {});
  fw::SnapshotBackend backend;
  std::unique_ptr<fw::Scheduler> scheduler;

  ClusterState& state() { return backend.state(); }
  PodId pod(const std::string& name);
  // node name → evaluation of the pod.
  std::map<std::string, fw::NodeEvaluation> evaluate(const std::string& pod);
  // Names of the nodes where the pod is feasible.
  std::set<std::string> feasible(const std::string& pod);
  // node name → normalized score of `plugin` (feasible nodes only).
  std::map<std::string, int64_t> scores(const std::string& pod, const std::string& plugin);
  // Schedules every pending pod; pod name → node name ("" if unscheduled).
  std::map<std::string, std::string> schedule_all(
      std::vector<fw::ScheduleOutcome>* outcomes = nullptr);
};

}  // namespace orrery::plugins::testing
