// Megha (paper §2.1, §4.1.1, §4.4) as actors on the simulator's event loop.
//
// Global Managers (GMs) match tasks to workers using an eventually-consistent view of worker
// availability in the whole data centre; Local Managers (LMs) own the truth for their cluster,
// validate each mapping and launch the task or reject it. Each LM's cluster has one partition per
// GM (the GM's internal partition); a GM searches its internal partitions first, then the external
// ones (in LM order, then partition order), with Algorithm 1 and Random or Minimum Constraints.
//
// Messages (each takes the one-way network delay):
//   GM -> LM   verify(task, worker)         LM validates; busy worker = inconsistency
//   LM -> GM   reject(task, worker, delta)  the LM's changes since its last update to that GM
//                                           are piggybacked; the GM updates its view and retries
//                                           (quirks.drop_rejection_state: the changes are taken
//                                           but not sent, and the rejection delivers what the
//                                           LM records for that GM while it is in flight, as
//                                           the published simulator's aliased dict does)
//   GM -> LM   verify batch (quirks.batched_verify): an arriving job's consecutive mappings to
//              one LM, at most 100, checked in order; one reject batch answers all rejections
//   LM -> worker launch(task)
//   worker -> LM and -> GM  completion      the LM frees the worker; the GM learns the job's
//                                           progress and, per §4.4, that its own task's worker
//                                           is free (it offers it to its queue first)
//   LM -> GM   status update every heartbeat (5 s): per-GM delta (§4.4), never including workers
//              freed by that GM's own tasks
// Deltas carry, for each worker whose state changed since the last update to that GM, its state
// when the message is sent. When the LM accepts GM g's mapping on a worker it forgets any
// pending change of that worker for g (g knows it is busy, and will learn it is free from its
// completion message), so a stale "busy" can never arrive after the completion and hide a free
// worker from g forever.
//
// A GM's waiting tasks are FIFO; a worker that becomes free in the GM's view goes to the earliest
// waiting task it can run (PendingTasks). A rejected task goes back to the head of the queue after
// one immediate retry on the refreshed view. Jobs are assigned to GMs round-robin.
#pragma once

#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "policies/federated/cluster_config.h"
#include "policies/federated/faults.h"
#include "policies/federated/matcher.h"
#include "policies/federated/pending_tasks.h"
#include "policies/federated/recorder.h"
#include "policies/federated/sim_params.h"
#include "policies/federated/workload.h"
#include "sim/event_loop.h"

namespace orrery::federated {

struct MeghaCounters {
  uint64_t verify_requests = 0;
  uint64_t inconsistencies = 0;           // mappings rejected by an LM (worker already busy)
  uint64_t inconsistencies_internal = 0;  // ... of which in the GM's internal partitions
  uint64_t launches = 0;
  uint64_t completions = 0;
  uint64_t status_updates = 0;  // heartbeat messages LM -> GM
  uint64_t retries_placed = 0;  // rejected tasks placed again immediately
  uint64_t queued = 0;          // times a task had to wait in a GM queue
  uint64_t verify_batches = 0;  // quirks.batched_verify: batched verify messages GM -> LM
  uint64_t reject_batches = 0;  // ... and the rejection messages answering them
};

class MeghaSim final : public sim::EventTarget, public FaultListener {
 public:
  MeghaSim(sim::EventLoop& loop, const Workload& w, const ClusterConfig& c, const SimParams& p,
           Recorder& rec);

  // Schedules job arrivals, heartbeats and sampling; then run the loop.
  void start();
  void handle(const sim::Event& e) override;

  // Faults (faults.h): messages go through `f`; components are gm<i> = i, lm<i> = GMs + i. A
  // restarted GM has lost its view: it registers with every LM, which answers with a full
  // snapshot. A restarted LM has lost its pending deltas: it sends every GM a full snapshot. Its
  // truth is its workers' state and survives. Call before start().
  void set_faults(Faults* f);
  void on_crash(uint32_t component) override;
  void on_restart(uint32_t component) override;

  const MeghaCounters& counters() const { return n_; }
  size_t queued() const;  // tasks waiting in GM queues

  // Introspection (tests, diagnostics). Workers are named by slot (see below).
  uint32_t slot_of(uint32_t partition, uint32_t index) const { return partition * stride_ + index; }
  bool lm_sees_free(uint32_t slot) const { return test_bit(truth_.data(), slot); }
  bool gm_sees_free(uint32_t gm, uint32_t slot) const {
    return test_bit(view_.data() + static_cast<size_t>(gm) * total_words_, slot);
  }
  // True when the worker's state will be in the next delta its LM sends to gm.
  bool change_pending(uint32_t gm, uint32_t slot) const {
    return test_bit(dirty_.data() + static_cast<size_t>(gm) * total_words_, slot);
  }

 private:
  enum Kind : uint32_t {
    kJobArrival,
    kVerify,
    kReject,
    kLaunch,
    kTaskEnd,
    kCompletion,
    kHeartbeat,
    kStatusUpdate,
    kSample,
    // With faults only:
    kJobSubmit,     // a job whose GM was down at its arrival, handed over at its restart
    kCompletionGm,  // the completion's message to the GM (the LM's is kCompletion)
    kRegister,      // a restarted GM asks an LM for a full snapshot
    // With quirks.batched_verify only:
    kVerifyBatch,  // GM -> LM: mappings of one arriving job to one LM (batches_[a])
    kRejectBatch   // LM -> GM: the rejected ones of that batch
  };
  // quirks.batched_verify: a batch of (task, slot) mappings in flight, with what its rejection
  // carries (see rejection_state()).
  struct Batch {
    uint32_t gm = 0, lm = 0;
    uint32_t delta = 0;  // kNoDelta, a delta id, or kLiveDelta
    uint32_t gen = 0;    // kLiveDelta: the LM's heartbeat count when the rejection was sent
    std::vector<std::pair<uint32_t, uint32_t>> maps;
  };
  static constexpr uint32_t kMaxBatch = 100;  // schedule_job_batched_all's batch size
  static constexpr uint32_t kNoTask = 0xffffffffu;
  static constexpr uint32_t kNoDelta = 0xffffffffu;
  // quirks.drop_rejection_state: the rejection carries the LM's changes for the GM recorded
  // between its sending and its delivery, read when it is delivered.
  static constexpr uint32_t kLiveDelta = 0xfffffffeu;

  // Workers are named by "slot": their bit position in a data-centre-wide vector whose
  // partitions each take words_ whole words (slot = partition * stride_ + index).
  uint32_t gm_of(uint32_t task) const { return job_gm_[task_job_[task]]; }
  uint32_t group_of(uint32_t slot) const { return slot / stride_; }
  ConstraintMask mask_of(uint32_t slot) const {
    return c_.groups.worker_mask(slot / stride_, slot % stride_);
  }
  uint64_t* view(uint32_t gm) { return view_.data() + static_cast<size_t>(gm) * total_words_; }
  uint64_t* dirty(uint32_t gm) { return dirty_.data() + static_cast<size_t>(gm) * total_words_; }

  // Messages: the network delay, or the faults' transit time.
  void send(uint32_t from, uint32_t to, uint32_t kind, uint64_t a, uint64_t b) {
    loop_.after(faults_ ? faults_->transit(from, to, p_.network_delay) : p_.network_delay, this,
                kind, a, b);
  }
  uint32_t lm_id(uint32_t lm) const { return gms_ + lm; }
  uint32_t lm_of(uint32_t slot) const { return group_of(slot) / gms_; }
  void arrive(uint32_t job);
  // handle() per message kind (`now`: the event's time).
  void on_job_arrival(const sim::Event& e);  // a job arrives; the next arrival is posted
  void on_verify(const sim::Event& e);       // at the LM: accept a mapping or reject it
  void on_reject(const sim::Event& e);       // at the GM: a rejected mapping and its state
  void on_launch(const sim::Event& e, sim::Time now);         // at the worker: the task starts
  void on_task_end(const sim::Event& e, sim::Time now);       // the worker sends its completion(s)
  void on_completion(const sim::Event& e, sim::Time now);     // at the LM (and the GM)
  void on_completion_gm(const sim::Event& e, sim::Time now);  // at the GM
  void on_heartbeat(const sim::Event& e);                     // an LM sends every GM its changes
  // With faults: true when the message `e` cannot be delivered now (it is posted again then).
  bool held(const sim::Event& e);
  // The LM's next update to gm carries every worker of the LM, except those running gm's tasks
  // (gm learns of them from their completions).
  void mark_all_changed(uint32_t lm, uint32_t gm);
  void send_update_now(uint32_t lm, uint32_t gm);

  // GM side.
  bool place(uint32_t gm, uint32_t task);  // Algorithm 1 over the GM's search order
  // Algorithm 1: the worker gm maps `task` to (its view bit cleared), or -1.
  int64_t find_worker(uint32_t gm, uint32_t task);
  void send_verify(uint32_t task, uint32_t slot);
  // quirks.batched_verify: places an arriving job's tasks and sends the batches.
  void arrive_batched(uint32_t gm, uint32_t first_task, uint32_t num_tasks);
  uint32_t new_batch(uint32_t gm, uint32_t lm);
  void send_batch(uint32_t id);
  void verify_batch(uint32_t id);  // at the LM
  void reject_batch(uint32_t id);  // at the GM
  // A rejected task: retried at once on gm's view (retry_rejected), else back at the head of
  // gm's queue.
  void requeue_rejected(uint32_t gm, uint32_t task);
  // A worker became free in gm's view (its bit is clear): it goes to the earliest waiting task
  // it can run, else its view bit is set.
  void offer(uint32_t gm, uint32_t slot);
  // Offers the workers apply_delta() freed that are still free in gm's view.
  void offer_freed(uint32_t gm);
  // Applies an LM delta to gm's view; appends the workers that became free to `freed_`.
  void apply_delta(uint32_t gm, uint32_t lm, uint32_t delta);
  // LM side.
  uint32_t take_delta(uint32_t lm, uint32_t gm);  // kNoDelta when nothing changed
  // As take_delta(), leaving the changes pending (kNoDelta when nothing changed).
  uint32_t peek_delta(uint32_t lm, uint32_t gm);
  // What a rejection from lm to gm carries: the pending delta, or (drop_rejection_state) the
  // pending changes are dropped and it carries kLiveDelta.
  uint32_t rejection_state(uint32_t lm, uint32_t gm);
  // At the GM: the delta a delivered rejection applies (kLiveDelta resolved, see above).
  uint32_t delivered_state(uint32_t lm, uint32_t gm, uint32_t delta, uint32_t gen);
  // The LM's part of a completion: the worker is free, other GMs will hear of it.
  void release(uint32_t task, uint32_t slot);
  void accept(uint32_t task, uint32_t slot);  // the LM launches a verified mapping
  sim::Time next_beat();                      // one LM's interval to its next heartbeat
  // A worker became busy (freed = false) or free: every GM but except_gm will hear of it.
  void mark_changed(uint32_t slot, uint32_t except_gm, bool freed);
  uint32_t make_delta(uint32_t lm, uint32_t gm, bool take);
  // Applies a delta (or, quirks.update_lists, an update's lists) and offers the freed workers.
  void apply_state(uint32_t gm, uint32_t lm, uint32_t delta);

  sim::EventLoop& loop_;
  const Workload& w_;
  const ClusterConfig& c_;
  SimParams p_;
  Recorder& rec_;
  Matcher matcher_;
  const uint32_t gms_, lms_, q_;  // GMs, LMs, workers per partition
  const size_t words_;            // words per partition vector
  const size_t total_words_;      // words per data-centre vector (all partitions)
  const uint32_t stride_;         // slots per partition (words_ * 64)
  std::vector<uint32_t> task_job_;
  std::vector<uint32_t> job_gm_;
  std::vector<uint32_t> rotor_;                // [gm] next search's first LM (LmOrder::kRotate)
  std::vector<uint64_t> truth_;                // LMs' availability, all partitions
  std::vector<uint64_t> view_;                 // [gm] availability as the GM believes it
  std::vector<uint64_t> dirty_;                // [gm] workers changed since the last update
  std::vector<PendingTasks> waiting_;          // [gm]
  std::vector<Rng> rng_;                       // [gm]
  Rng beat_rng_;                               // heartbeat phases and jitter
  std::vector<std::vector<uint64_t>> deltas_;  // in-flight delta payloads
  std::vector<uint32_t> free_deltas_;
  std::vector<uint32_t> freed_;  // scratch for apply_delta
  std::vector<Batch> batches_;   // quirks.batched_verify: batches in flight (and free ones)
  std::vector<uint32_t> free_batches_;
  std::vector<uint32_t> beat_gen_;  // [lm] heartbeats sent (quirks.drop_rejection_state)
  // quirks.update_lists: [gm] workers taken by another GM since the last update (bits), and
  // [gm][slot] how often one was freed since (the published lists' "busy" and "available").
  std::vector<uint64_t> went_busy_;
  std::vector<uint8_t> free_entries_;
  MeghaCounters n_;
  Faults* faults_ = nullptr;
  std::vector<uint32_t> slot_task_;      // with faults: [slot] the task the LM launched there
  std::vector<uint8_t> report_release_;  // with faults: [slot] see on_verify in megha.cc
};

}  // namespace orrery::federated
