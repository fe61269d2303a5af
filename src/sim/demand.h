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
//
// With `draw` kPerService (the authors' scenario generator, AUT-Cloud-Lab/genny) no shared
// fraction is drawn: service s has a coefficient
//     c_s = mean over r in {cpu, memory} of (basis[r] / |services|) / size_s[r]
// (size_s: `sizes[s]` when given, else the pod's request), and its pods in each cycle are drawn
// independently as max(1, round(Normal(mean·c_s, sd·c_s))), all cycles of one service before the
// next service (genny's order). `count` and `round` do not apply.
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
  enum class Draw : uint8_t { kShared, kPerService } draw = Draw::kShared;
  bool stop = false;  // the load drops to 0 at the end of the last cycle (the run may go on)
  // kPerService: the size each service is counted in (empty, or one per service; a zero entry
  // means the service's pod request).
  std::vector<Resources> sizes;
  // Stalls of the load (as the load generator of the KubeDSM authors' testbed shows late in every
  // run, docs/repro/kubedsm.md): from `after` past the first cycle's start until the last cycle's
  // end, episodes begin as a Poisson process with mean gap `every`; each lasts U[min_length,
  // max_length] and multiplies every service's load by `depth` meanwhile. Off when `every` is 0.
  struct Stalls {
    Time after = 0;
    Time every = 0;
    Time min_length = 0, max_length = 0;
    double depth = 1.0;
  } stalls;
};

// The stall episodes of `spec` as [begin, end) intervals, drawn from `rng` (none when off).
std::vector<std::pair<Time, Time>> draw_stalls(const DemandCycleSpec& spec, Rng& rng);

// Fills one Demand per service (`requests[i]` is service i's pod request), stalls included (drawn
// after the cycles, from the same `rng`). Returns the drawn fractions, one per cycle
// (kPerService: the mean over services of pods / c_s), before stalls.
std::vector<double> generate_demand_cycles(const DemandCycleSpec& spec,
                                           const std::vector<Resources>& requests, Rng& rng,
                                           std::vector<Demand*> out);

}  // namespace orrery::sim
