// Parameters shared by the Megha and PigeonC simulations.
#pragma once

#include <cstdint>

#include "policies/federated/matcher.h"
#include "sim/event_loop.h"

namespace orrery::federated {

// The order in which a Megha GM visits the LMs when searching its internal partitions, then the
// external ones (the paper says only "internal partitions first").
enum class LmOrder : uint8_t {
  kFixed,   // LM 1, 2, ... every time (the reference simulator)
  kRotate,  // each search starts one LM after the previous search's start (per GM)
};

struct SimParams {
  Pick pick = Pick::kRandom;
  LmOrder lm_order = LmOrder::kFixed;
  uint64_t seed = 1;
  sim::Time network_delay = 500;  // one-way, on every message (0.5 ms)
  sim::Time heartbeat = 0;        // 0: the architecture's default (Megha 5 s, PigeonC 10 s)
  // Each LM / Master beats with its own phase, drawn uniformly in [0, heartbeat) from the seed
  // (stream "megha/heartbeat-phase" / "pigeonc/heartbeat-phase"), as independent processes
  // would; true: every one beats at the first arrival + k * heartbeat. Aligned beats coincide
  // with whole-second arrivals (the synthetic traces), so a GM that learns of a free worker
  // always loses it to the jobs arriving at that instant.
  bool aligned_heartbeats = false;
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
