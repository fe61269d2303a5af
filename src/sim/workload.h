// What a workload's pods look like: a shared PodSpec plus the execution model's view of them
// (actual usage and work, possibly drawn per pod).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/pod.h"
#include "core/rng.h"
#include "sim/execution.h"
#include "util/distribution.h"

namespace orrery::sim {

struct ExecTemplate {
  std::optional<Dist> cpu;     // millicores; absent: the pod's cpu request
  std::optional<Dist> memory;  // bytes; absent: the pod's memory request
  std::optional<Dist> work;    // µs at full speed; absent: runs until deleted
  ExecSpec sample(const PodSpec& spec, Rng& rng) const;
};

struct PodTemplate {
  std::shared_ptr<const PodSpec> spec;
  std::string ns = "default";
  ExecTemplate exec;
};

}  // namespace orrery::sim
