// Fault injection for the Megha and PigeonC simulations (`orrery sim --arch ... --faults FILE`):
// message loss and extra delay on every link, partitions between named components, and crashes
// with restarts of GMs, LMs, Masters and Distributors. The design (README.md, "Faults"):
//
// - The components talk over reliable, ordered connections (as TCP or gRPC would give them). A
//   lost transmission is retransmitted after a timeout (RTO, doubling up to a maximum), so loss
//   costs time, never a message; a link delivers in the order it was given messages (a message
//   waits for the ones before it on its link).
// - A message that arrives while its receiver is down, or while a partition separates it from
//   its sender, is held (the sender keeps retransmitting) and delivered when the receiver
//   restarts or the partition heals.
// - A crashed component stops: it takes no message and sends none (its timers keep their phase).
//   What it loses on restart is the architecture's business (MeghaSim, PigeonCSim).
//
// Components are numbered per architecture: Megha gm<i> = i, lm<i> = G + i; PigeonC
// distributor<i> = i, master<i> = D + i; then the workers of each LM / Master (named "workers of
// lm<i>"), which can lose messages but never crash and are never partitioned.
//
// Fault file (YAML, strict: unknown keys, bad values and unknown names are errors with FILE:LINE):
//   seed: 7                                  # optional; default: the run's seed
//   network:
//     drop: 0.01                             # probability one transmission is lost, in [0, 0.9]
//     delay: {dist: exponential, mean: 2ms}  # extra one-way delay of every message
//     retransmit: {initial: 200ms, max: 3200ms}
//   partitions:
//   - {from: 10s, to: 40s, between: [gm0, [lm1, lm2]]}   # each side: a name or a list of names
//   crashes:
//   - {component: gm1, at: 30s, restart: 45s}
//   random_crashes:
//   - {components: [lm, gm0], mtbf: 5m, mttr: 20s, until: 1h}  # kinds (gm, lm, master,
//                                                             # distributor) or names
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/rng.h"
#include "io/distribution_reader.h"
#include "io/json.h"
#include "policies/federated/cluster_config.h"
#include "sim/event_loop.h"

namespace orrery::federated {

struct FaultPlan {
  std::optional<uint64_t> seed;
  double drop = 0;
  Dist delay;  // µs
  sim::Time rto_initial = 200 * sim::kMs, rto_max = 3200 * sim::kMs;
  struct Partition {
    sim::Time from = 0, to = 0;
    std::vector<uint32_t> a, b;  // component ids
  };
  struct Crash {
    uint32_t component = 0;
    sim::Time at = 0, restart = 0;
  };
  struct RandomCrashes {
    std::vector<uint32_t> components;
    sim::Time mtbf = 0, mttr = 0, until = sim::kForever;
  };
  std::vector<Partition> partitions;
  std::vector<Crash> crashes;
  std::vector<RandomCrashes> random_crashes;
  std::vector<std::string> names;  // [component id] for the named components
};

// The named components of a configuration: gm0.., lm0.. (Megha) or distributor0.., master0..
std::vector<std::string> component_names(const ClusterConfig& c);

// Throws InputError naming FILE:LINE and the field.
FaultPlan parse_fault_plan(const std::string& text, const std::string& source,
                           const ClusterConfig& c);
FaultPlan load_fault_plan(const std::string& path, const ClusterConfig& c);

// What an architecture does when one of its components crashes or restarts.
class FaultListener {
 public:
  virtual ~FaultListener() = default;
  virtual void on_crash(uint32_t component) = 0;
  virtual void on_restart(uint32_t component) = 0;
};

// The faults of one run, on its event loop.
class Faults final : public sim::EventTarget {
 public:
  // `components`: named components; `clusters`: LMs / Masters (their workers' endpoints follow).
  // `finished`: true once every job is done (random crashes stop then).
  Faults(const FaultPlan& plan, uint64_t run_seed, sim::EventLoop& loop, uint32_t clusters,
         FaultListener& listener, std::function<bool()> finished);

  // Schedules the crashes. Call before running the loop.
  void start();
  // The time a message given now to link from -> to takes to arrive: `base` plus the extra delay
  // plus the retransmissions of lost transmissions, and no earlier than the link's previous one.
  sim::Time transit(uint32_t from, uint32_t to, sim::Time base);
  // A message from `from` arriving now at `to`: the time it can be delivered instead (its
  // receiver is down, or a partition separates them), or -1 when it can be delivered now.
  sim::Time held_until(uint32_t from, uint32_t to);
  bool down(uint32_t component) const { return down_until_[component] > 0; }
  sim::Time up_at(uint32_t component) const { return down_until_[component]; }
  uint32_t workers_of(uint32_t cluster) const { return named_ + cluster; }

  void handle(const sim::Event& e) override;
  // {"seed", "drop", "retransmissions", "held_messages", "crashes", "restarts", "partitions"}
  Json summary() const;

 private:
  enum Kind : uint32_t { kCrash, kRestart, kRandomCrash };
  void crash(uint32_t component, sim::Time restart);

  const FaultPlan& plan_;
  uint64_t seed_;
  sim::EventLoop& loop_;
  FaultListener& listener_;
  std::function<bool()> finished_;
  uint32_t named_;
  Rng net_rng_;
  std::vector<Rng> crash_rng_;         // [random_crashes entry * named + component]
  std::vector<sim::Time> down_until_;  // [component] restart time; 0 when up
  std::unordered_map<uint64_t, sim::Time> last_arrival_;  // [link] lookups only, never iterated
  uint64_t retransmissions_ = 0, held_ = 0, crashes_ = 0, restarts_ = 0;
};

}  // namespace orrery::federated
