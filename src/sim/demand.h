// Demand signals for autoscaled services, and the demand-cycle generator.
//
// A Demand is a piecewise-constant load over time in "pod equivalents": the load one pod of the
// service absorbs at its HPA target is `target` units (default 1), so an HPA with target 1 asks
// for ceil(load) replicas.
//
// DemandCycles (KubeDSM §6.2, generalised): the run is split into `cycles` cycles of `period`;
// for each cycle a usage fraction f ~ Normal(mean, sd) (clamped at 0) of the basis resources (by
// default the allocatable cpu and memory of the edge-tier nodes) is drawn, split equally among the
// services, and turned into each service's load in pods. With `count` kMax (the default) that is
// the most pods the share pays for on any one resource,
//     load_s = max over r in {cpu, memory} of (f × basis[r] / |services|) / request_s[r],
// so a service whose pods lean on one resource uses more than its share of that resource; with
// kMin it is the pods that fit in the share on every resource (min over r), so no service uses more
// than its share of anything (the reading KubeDSM's evaluation uses, docs/repro/kubedsm.md).
// With `round` the load is rounded to the nearest whole pod, so that the pods' resources match the
// fraction on average; without it the HPA rounds the fractional load up (ceil).
// "1.0_0.5" in the paper is mean 1.0, sd 0.5; 12 cycles of 90 s.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/resources.h"
#include "core/rng.h"
#include "sim/event_loop.h"

namespace orrery::sim {

class Demand {
 public:
  // Sets the load from time t on (steps must be added in time order; a later step at the same
  // time replaces the earlier one).
  void set(Time t, double load);
  double at(Time t) const;
  const std::vector<std::pair<Time, double>>& steps() const { return steps_; }
  bool empty() const { return steps_.empty(); }

 private:
  std::vector<std::pair<Time, double>> steps_;
};

struct DemandCycleSpec {
  int cycles = 12;
  Time period = 90 * kSecond;
  Time start = 0;
  double mean = 1.0;
  double sd = 0.0;
  Resources basis;  // cpu (millicores) and memory (bytes) the fractions refer to
  enum class Count : uint8_t { kMax, kMin } count = Count::kMax;  // over cpu and memory (above)
  bool round = false;  // whole pods (nearest) instead of a fractional load
};

// Fills one Demand per service (`requests[i]` is service i's pod request). Returns the drawn
// fractions, one per cycle.
std::vector<double> generate_demand_cycles(const DemandCycleSpec& spec,
                                           const std::vector<Resources>& requests, Rng& rng,
                                           std::vector<Demand*> out);

}  // namespace orrery::sim
