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

// Behaviours of the published simulators (`meghanat/megha-constraint-aware`) where they depart
// from the paper's text; on under --reference (reference_quirks(): all but update_lists), all
// off by default.
struct ReferenceQuirks {
  // PigeonC: the Master's "random" file (pigeon_sim/.../master_constraints_rand.py,
  // schedule_task) picks the suitable worker with the fewest constraints, as the Minimum
  // Constraints one does; the match setting then only changes nothing at the Master.
  bool master_picks_min = false;
  // PigeonC: idle_worker_notice serves the short queue while `fq_counter <= FQW`, so FQW + 1
  // short tasks go per long task (21 at FQW 20) instead of FQW.
  bool fair_queue_le = false;
  // Megha: LM.verify_requests hands the rejection its live pending-update dict for the GM
  // (self.status_update[gm]) and then empties that dict's partitions in place: the changes
  // pending at the rejection are lost to that GM (the next heartbeat does not repeat them), and
  // the rejection delivers whatever the LM records for that GM while it is in flight (those
  // changes stay pending and go out with the next heartbeat as well), unless a heartbeat in
  // between replaced the dict (then, here, it delivers nothing).
  bool drop_rejection_state = false;
  // Megha: simulation.py schedules the first LMRequestUpdateEvent at the first arrival - 50 ms,
  // one event for every LM; the following beats keep the heartbeat timing below.
  bool early_first_heartbeat = false;
  // Megha: gm_*.py schedule_job_batched_all sends an arriving job's mappings in one
  // VerifyRequestsEvent per run of consecutive mappings to the same LM, at most 100; the LM
  // (verify_requests) checks them in order and answers all rejected ones with one
  // BatchedInconsistencyEvent carrying one state. Mappings made from the queue go one by one.
  bool batched_verify = false;
  // Megha: the LM frees a worker and records the change when the task ends (TaskEndEvent ->
  // LM.task_completed); only the GM's TaskResponseEvent takes the network delay. Ours otherwise
  // delivers the completion to the LM and the GM together, one delay after the end.
  bool lm_frees_at_task_end = false;
  // Megha: an LM's update is two lists per partition, "busy" (taken by another GM's mapping)
  // and "available" (freed by another GM's task), appended to as things happen and never
  // pruned (lm_constraints.py); GM.update_status marks every busy worker busy, then offers
  // every available entry to its queue (a worker freed twice is offered twice) or marks it
  // free, leaving the view bit of a worker it hands to a queued task as it was. So a worker
  // freed and taken again since the last update is reported free, and the LM keeps a GM's
  // entries for a worker that GM has just taken. Ours otherwise reports each changed worker's
  // state when the update is sent.
  bool update_lists = false;
};
inline constexpr ReferenceQuirks reference_quirks() {
  // update_lists stays opt-in: see docs/repro/federated.md ("syn_1000, Megha (ref)").
  return {true, true, true, true, true, true, false};
}
inline constexpr sim::Time kReferenceHeartbeatLead = 50'000;  // 50 ms before the first arrival

struct SimParams {
  Pick pick = Pick::kRandom;
  ReferenceQuirks quirks;
  LmOrder lm_order = LmOrder::kFixed;
  // Megha: a GM retries a rejected task at once on its refreshed view (true), or, as the
  // reference simulator does, puts it back at the head of its queue to wait for a worker that an
  // update or a completion reports free (false).
  bool retry_rejected = true;
  uint64_t seed = 1;
  sim::Time network_delay = 500;  // one-way, on every message (0.5 ms)
  sim::Time heartbeat = 0;        // 0: the architecture's default (Megha 5 s, PigeonC 10 s)
  // Heartbeat timing. By default each LM (Megha) beats with its own phase, drawn uniformly in
  // [0, heartbeat) from the seed, and each interval is heartbeat * U[0.9, 1.1] (mean: the
  // period), as independent processes with timer jitter would. true: every LM beats at the first
  // arrival + k * heartbeat exactly. Strictly periodic beats resonate with periodic workloads:
  // with 5 GMs taking one job per second in turn, each GM's burst recurs every 5 s, and an LM
  // whose beat always falls while a GM's burst holds a worker reports it busy to the other GMs
  // at every beat, so their tasks that need it wait until the trace ends.
  bool aligned_heartbeats = false;
  sim::Time sample_interval = sim::kSecond;  // time-series sampling period
};

inline constexpr sim::Time kMeghaHeartbeat = 5 * sim::kSecond;
inline constexpr sim::Time kPigeonHeartbeat = 10 * sim::kSecond;
inline constexpr double kHeartbeatJitter = 0.1;  // interval = period * U[1 - j, 1 + j]

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
