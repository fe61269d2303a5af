#include "sim/workload.h"

#include <cmath>

namespace orrery::sim {

ExecSpec ExecTemplate::sample(const PodSpec& spec, Rng& rng) const {
  ExecSpec x;
  x.cpu_milli = cpu ? std::llround(cpu->sample(rng)) : spec.request[kCpu];
  x.memory = memory ? std::llround(memory->sample(rng)) : spec.request[kMemory];
  x.work = work ? work->sample_time(rng) : kForever;
  return x;
}

}  // namespace orrery::sim
