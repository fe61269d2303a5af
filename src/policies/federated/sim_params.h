// Parameters shared by the Megha and PigeonC simulations.
#pragma once

#include <cstdint>

#include "policies/federated/matcher.h"
#include "sim/event_loop.h"

namespace orrery::federated {

struct SimParams {
  Pick pick = Pick::kRandom;
  uint64_t seed = 1;
  sim::Time network_delay = 500;  // one-way, on every message (0.5 ms)
  sim::Time heartbeat = 0;        // 0: the architecture's default (Megha 5 s, PigeonC 10 s)
  sim::Time sample_interval = sim::kSecond;  // time-series sampling period
};

inline constexpr sim::Time kMeghaHeartbeat = 5 * sim::kSecond;
inline constexpr sim::Time kPigeonHeartbeat = 10 * sim::kSecond;

// Event payload packing: two 32-bit values in one 64-bit event field.
inline uint64_t pack(uint32_t hi, uint32_t lo) {
  return (uint64_t{hi} << 32) | lo;
}
inline uint32_t hi32(uint64_t v) {
  return static_cast<uint32_t>(v >> 32);
}
inline uint32_t lo32(uint64_t v) {
  return static_cast<uint32_t>(v);
}

}  // namespace orrery::federated
