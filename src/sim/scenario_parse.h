// Internal to the scenario reader: the field readers that scenario.cc shares with the workload
// parsers in scenario_workloads.cc. Errors name the Ctx's file, line and field path. Not for use
// outside src/sim: the public entry points are in scenario.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/resources.h"
#include "io/yaml_util.h"
#include "sim/scenario.h"

namespace orrery::sim::scenario_parse {

// ---------------------------------------------------------------- in scenario.cc

// A count field: an integer in [min, max]; `max` is a limit of docs/scenarios.md (Limits) when
// `limit_unit` is given, else the range of the field's type.
int64_t bounded_count(const yaml::Ctx& c, int64_t min, int64_t max,
                      const std::string& limit_unit = "");
// A count held in 32 bits.
int32_t int32_count(const yaml::Ctx& c, int64_t min);
// A count of `unit` held in 32 bits: at most `limit` (an input limit) when that is lower.
int32_t limited_count(const yaml::Ctx& c, int64_t min, int64_t limit, const std::string& unit);
// A count of pods: at most the input limit on pods.
int32_t pod_count(const yaml::Ctx& c, int64_t min);

// `file` relative to the scenario's directory `base_dir` (else to the working directory).
std::string resolve(const std::string& base_dir, const std::string& file);

// The keys of a workload's pod part (template: or the shorthand fields, usage and work).
extern const std::vector<std::string> kTemplateKeys;

// The pod part of a workload: either `template:` (a Kubernetes PodTemplateSpec) or the shorthand
// fields, which are translated into one and parsed by the object loader.
PodTemplate parse_pod_template(const yaml::Ctx& c, std::vector<std::string>* warnings);

// A map of resource names to quantities, added to (or overriding entries of) `out`.
void read_map_resources(const yaml::Ctx& c, Resources* out);

// ---------------------------------------------------------------- in scenario_workloads.cc

DeploymentDef parse_deployment(const yaml::Ctx& c, std::vector<std::string>* warnings);
JobDef parse_job(const yaml::Ctx& c, std::vector<std::string>* warnings);
ArrivalDef parse_arrivals(const yaml::Ctx& c, std::vector<std::string>* warnings);
TraceDef parse_trace_workload(const yaml::Ctx& c, const std::string& base_dir,
                              std::vector<std::string>* warnings);
DemandCyclesDef parse_demand_cycles(const yaml::Ctx& c);

}  // namespace orrery::sim::scenario_parse
