// Bounds on what one input may ask for, checked while reading and before anything is allocated,
// so an absurd number (a typo, a unit mistake) is a clear error naming the field instead of
// minutes of work and a std::bad_alloc. docs/scenarios.md ("Limits") lists them. `--allow-large`
// on the commands that read scenarios, traces and snapshots lifts them (allow_large_inputs());
// limits of the types themselves (32-bit counts, 64-bit microseconds) always hold.
#pragma once

#include <cstdint>
#include <string>

namespace orrery {

struct InputLimits {
  int64_t pods = 10'000'000;              // pods (or trace tasks) one run may create
  int64_t nodes = 1'000'000;              // nodes of one cluster (node groups, events, snapshot)
  int64_t samples = 10'000'000;           // time-series samples: simulated time / sample_interval
  int64_t file_bytes = int64_t{4} << 30;  // one input file (scenario, trace, snapshot)
};

// The limits in force: the defaults above, or none after allow_large_inputs(true).
const InputLimits& input_limits();
// Set once by the command line before inputs are read (not thread-safe against readers).
void allow_large_inputs(bool allow);
bool large_inputs_allowed();

// "<what>: N, more than the limit of M <unit>; pass --allow-large to lift it (docs/scenarios.md,
// Limits)" — the tail of an error message.
std::string over_limit(const std::string& what, double value, int64_t limit,
                       const std::string& unit);

}  // namespace orrery
