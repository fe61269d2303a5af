// PigeonC (paper §2.2, §4.1.2, §4.2) as actors on the simulator's event loop.
//
// Distributors spread each job's tasks over the Masters: for task T with constraints C_T, Master
// i is chosen by weighted random selection with weight count_i = sum of cs_X over the constraint
// sets X of CS_i (the occurrences of each distinct machine-constraint set in cluster i) with
// C_T ⊆ X — i.e. in proportion to the workers of cluster i that can run T (MasterChooser).
// A Master places a task on an idle suitable worker of its own cluster (Algorithm 1, Random or
// Minimum Constraints) or queues it: short jobs (mean task duration < cutoff) in the high-priority
// queue, long ones in the low-priority queue. A freed worker is handed out with weighted fair
// queuing (FairQueue): one long task per FQW short tasks, and a long task whenever no waiting
// short task can use the worker. There is no worker reservation (§4.2).
//
// Messages (each takes the one-way network delay): distributor -> master (task),
// master -> worker (launch), worker -> master and -> distributor (completion; the job finishes
// when its distributor has heard of every task), and every 10 s a master heartbeat to every
// distributor (its idle workers; PigeonC's distributors keep it but choose masters from CS_i
// alone, as the paper describes, so one tick per period carries all masters' reports). Jobs are
// assigned to distributors round-robin.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>
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

// How CS_i counts constraint-set occurrences.
enum class CsCounting : uint8_t {
  kPaper,  // §4.2: each distinct machine-constraint set with its number of workers
  // As the published PigeonC simulator builds it (pigeon_sim/simulation.py): a worker whose set
  // is a subset of sets already recorded adds 1 to every such set instead of recording its own.
  // Weights then also count workers that cannot run the task. For comparison runs only.
  kReference,
};

// The Distributors' CS_i structures and weighted random Master selection.
class MasterChooser {
 public:
  explicit MasterChooser(const WorkerGroups& clusters, CsCounting counting = CsCounting::kPaper);

  // CS_i: (distinct machine-constraint set, occurrences) of cluster i, by ascending set.
  std::span<const std::pair<ConstraintMask, uint32_t>> constraint_sets(uint32_t i) const {
    return cs_[i];
  }
  // count_i for a task with constraints `task`.
  uint64_t weight(uint32_t i, ConstraintMask task) const;
  // Weighted random choice; -1 when no Master can run the task.
  int32_t choose(ConstraintMask task, Rng& rng);

 private:
  // Cumulative weights of the Masters with count_i > 0, for one task constraint set.
  struct Cum {
    uint32_t cum;  // running total up to and including this Master (at most 2^32 workers)
    uint32_t master;
  };
  struct Entry {  // one (set, occurrences) of some CS_i
    ConstraintMask set;
    uint32_t count;
    uint32_t master;
  };
  struct Range {
    size_t offset, size;
  };
  Range cumulative(ConstraintMask task);

  std::vector<std::vector<std::pair<ConstraintMask, uint32_t>>> cs_;
  std::vector<Entry> entries_;                       // every CS_i entry, by master
  std::vector<std::vector<Entry>> with_;             // [constraint] entries whose set has it
  std::unordered_map<ConstraintMask, Range> cache_;  // lookups only, never iterated
  std::vector<Cum> cum_;
  std::vector<uint32_t> scratch_;  // [master] weights while building one cache entry
};

// A Master's two queues with weighted fair queuing (§4.2).
class FairQueue {
 public:
  // `le`: the published simulator's `fq_counter <= FQW` test, FQW + 1 short tasks per long one.
  explicit FairQueue(double fqw = 20, bool le = false) : fqw_(fqw), le_(le) {}

  void push(uint32_t task, ConstraintMask constraints, bool short_job);
  // The task that gets a freed worker with constraint set `worker`, or PendingTasks::kNone:
  // a short task unless FQW short tasks have gone since the last long one (and a long task
  // waits); a long task when no waiting short task fits the worker.
  int64_t take_for(ConstraintMask worker);

  size_t size() const { return short_.size() + long_.size(); }
  size_t short_size() const { return short_.size(); }
  size_t long_size() const { return long_.size(); }

 private:
  PendingTasks short_, long_;
  double fqw_;
  bool le_;
  uint64_t shorts_since_long_ = 0;
};

struct PigeonCounters {
  uint64_t tasks_to_masters = 0;
  uint64_t launches = 0;
  uint64_t completions = 0;
  uint64_t heartbeats = 0;  // master -> distributor messages
  uint64_t queued_short = 0, queued_long = 0;
};

class PigeonCSim final : public sim::EventTarget, public FaultListener {
 public:
  PigeonCSim(sim::EventLoop& loop, const Workload& w, const ClusterConfig& c, const SimParams& p,
             Recorder& rec, double cutoff_s, CsCounting counting = CsCounting::kPaper);

  void start();
  void handle(const sim::Event& e) override;

  // Faults (faults.h): messages go through `f`; components are distributor<i> = i,
  // master<i> = Distributors + i. A Distributor's only soft state is the idle counts of the
  // Masters' reports (lost: zero until the next report); CS_i is configuration and jobs are
  // durable. A Master loses its queues; its availability is its workers' state (it survives).
  // On restart it tells every Distributor, which sends it again each task it gave it that has
  // not completed; the Master ignores the tasks it already has (queued since its restart, or
  // running or done on its workers). Call before start().
  void set_faults(Faults* f);
  void on_crash(uint32_t component) override;
  void on_restart(uint32_t component) override;

  const PigeonCounters& counters() const { return n_; }
  size_t queued() const;

 private:
  enum Kind : uint32_t {
    kJobArrival,
    kToMaster,
    kLaunch,
    kTaskEnd,
    kCompletion,
    kHeartbeat,
    kMasterReport,
    kSample,
    // With faults only:
    kJobSubmit,       // a job whose Distributor was down at its arrival, at its restart
    kCompletionDist,  // the completion's message to the Distributor (the Master's: kCompletion)
    kMasterUp,        // a restarted Master asks a Distributor for its tasks again
  };
  // With faults: what the Master of a task knows of it.
  enum TaskState : uint8_t { kUnknown, kQueued, kLaunched };

  void send(uint32_t from, uint32_t to, uint32_t kind, uint64_t a, uint64_t b) {
    loop_.after(faults_ ? faults_->transit(from, to, p_.network_delay) : p_.network_delay, this,
                kind, a, b);
  }
  uint32_t distributor_of(uint32_t task) const { return task_job_[task] % distributors_; }
  uint32_t master_id(uint32_t m) const { return distributors_ + m; }
  void arrive(uint32_t job);
  bool held(const sim::Event& e);  // with faults; see MeghaSim::held
  // handle() per message kind (`now`: the event's time).
  void on_job_arrival(const sim::Event& e);            // a job arrives; the next arrival is posted
  void on_to_master(const sim::Event& e);              // at the Master: launch the task or queue it
  void on_launch(const sim::Event& e, sim::Time now);  // at the worker: the task starts
  void on_task_end(const sim::Event& e, sim::Time now);    // the worker sends its completion(s)
  void on_completion(const sim::Event& e, sim::Time now);  // at the Master (and the Distributor)
  void on_master_up(const sim::Event& e);  // a Distributor resends a restarted Master its tasks
  void on_heartbeat();      // every Master reports its idle workers to every Distributor
  void on_master_report();  // the reports reach the Distributors that are up

  void free_worker(uint32_t master, uint32_t slot);

  sim::EventLoop& loop_;
  const Workload& w_;
  const ClusterConfig& c_;
  SimParams p_;
  Recorder& rec_;
  Matcher matcher_;
  MasterChooser chooser_;
  const uint32_t masters_, distributors_;
  const size_t words_;
  const uint32_t stride_;  // slot = master * stride_ + worker index
  std::vector<uint32_t> task_job_;
  std::vector<uint8_t> job_short_;
  std::vector<uint64_t> avail_;       // [master][word]
  std::vector<FairQueue> queues_;     // [master]
  std::vector<Rng> master_rng_;       // [master]
  std::vector<Rng> dist_rng_;         // [distributor]
  std::vector<uint32_t> idle_seen_;   // [distributor][master] from heartbeats
  std::vector<uint32_t> idle_count_;  // [master]
  std::vector<uint32_t> in_flight_;   // [master] the heartbeat reports on the wire
  PigeonCounters n_;
  Faults* faults_ = nullptr;
  std::vector<uint32_t> task_master_;   // with faults: [task] the Master its Distributor chose
  std::vector<uint8_t> task_state_;     // with faults: [task] TaskState at that Master
  std::vector<uint8_t> task_reported_;  // with faults: [task] its Distributor heard it finished
  uint64_t resent_ = 0, duplicates_ = 0;

 public:
  uint64_t tasks_resent() const { return resent_; }            // Distributors -> restarted Masters
  uint64_t duplicates_ignored() const { return duplicates_; }  // by Masters
};

}  // namespace orrery::federated
