#include "policies/federated/run.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/error.h"
#include "io/files.h"
#include "policies/federated/megha.h"
#include "policies/federated/pigeonc.h"
#include "policies/federated/recorder.h"

namespace orrery::federated {

namespace {

std::string trace_stem(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  if (name.size() > 3 && name.ends_with(".tr")) name.resize(name.size() - 3);
  return name;
}

sim::Time auto_sample_interval(const Workload& w) {
  const sim::Trace& t = *w.trace;
  if (t.jobs.empty()) return sim::kSecond;
  sim::Time lo = t.jobs[0].arrival, hi = lo, longest = 0;
  for (const sim::TraceJob& j : t.jobs) {
    lo = std::min(lo, j.arrival);
    hi = std::max(hi, j.arrival);
    longest = std::max(longest, j.longest_task);
  }
  const sim::Time horizon = hi - lo + longest;
  const sim::Time per = (horizon + 19'999) / 20'000;
  return std::max<sim::Time>(sim::kSecond, (per + sim::kSecond - 1) / sim::kSecond * sim::kSecond);
}

// The loop of a run with faults: until the last job is done (crash timers may lie beyond), or,
// as a guard against a lost task, until tasks have waited a simulated day with none running.
void run_faulty(sim::EventLoop& loop, const Recorder& rec) {
  constexpr sim::Time kStall = 24 * 3600 * sim::kSecond;
  sim::Time stalled_since = -1;
  while (!rec.all_done() && loop.step()) {
    if (rec.pending() == 0 || rec.running() > 0) {
      stalled_since = -1;
    } else if (stalled_since < 0) {
      stalled_since = loop.now();
    } else if (loop.now() - stalled_since > kStall) {
      break;
    }
  }
  if (rec.all_done()) loop.run_until(loop.now());  // the rest of this instant
}

}  // namespace

void apply(const Architecture& a, RunOptions* o) {
  o->pick = a.pick;
  set_reference(a.arch, a.reference, o);
}

void set_reference(Arch arch, bool reference, RunOptions* o) {
  o->reference_cs = reference && arch == Arch::kPigeonC;
  o->retry_rejected = !(reference && arch == Arch::kMegha);
  o->quirks = reference ? reference_quirks() : ReferenceQuirks{};
}

ReferenceQuirks parse_quirks(std::string_view list) {
  ReferenceQuirks q;
  if (list == "none") return q;
  size_t at = 0;
  while (at <= list.size()) {
    const size_t comma = std::min(list.find(',', at), list.size());
    const std::string_view name = list.substr(at, comma - at);
    if (name == "all") {  // the --reference set; more names may follow
      const ReferenceQuirks all = reference_quirks();
      q.master_picks_min |= all.master_picks_min;
      q.fair_queue_le |= all.fair_queue_le;
      q.drop_rejection_state |= all.drop_rejection_state;
      q.early_first_heartbeat |= all.early_first_heartbeat;
      q.batched_verify |= all.batched_verify;
      q.lm_frees_at_task_end |= all.lm_frees_at_task_end;
      q.update_lists |= all.update_lists;
    } else if (name == "rejection-state")
      q.drop_rejection_state = true;
    else if (name == "early-heartbeat")
      q.early_first_heartbeat = true;
    else if (name == "master-min")
      q.master_picks_min = true;
    else if (name == "fair-queue-le")
      q.fair_queue_le = true;
    else if (name == "batched-verify")
      q.batched_verify = true;
    else if (name == "lm-frees-at-end")
      q.lm_frees_at_task_end = true;
    else if (name == "update-lists")
      q.update_lists = true;
    else
      throw InputError(
          "--quirks: expected none or a comma-separated list of all (the --reference set), "
          "rejection-state, early-heartbeat, batched-verify, lm-frees-at-end, update-lists, "
          "master-min, fair-queue-le; got \"" +
          std::string(name) + "\"");
    at = comma + 1;
  }
  return q;
}

namespace {

// The quirks that change `arch`'s simulation, by name (summary "cluster"."reference_quirks").
sim::Json quirk_names(Arch arch, const ReferenceQuirks& q) {
  sim::Json names = sim::Json::array();
  if (arch == Arch::kMegha) {
    if (q.drop_rejection_state)
      names.push_back("rejection drops pending state, carries changes made in flight");
    if (q.early_first_heartbeat) names.push_back("first heartbeat 50 ms before first arrival");
    if (q.batched_verify) names.push_back("job mappings verified in per-LM batches of <= 100");
    if (q.lm_frees_at_task_end) names.push_back("LM frees worker at task end");
    if (q.update_lists) names.push_back("updates as busy/available lists, available last");
  } else {
    if (q.master_picks_min) names.push_back("master picks min-constraints worker");
    if (q.fair_queue_le) names.push_back("fair queue FQW+1 short per long");
  }
  return names;
}

}  // namespace

std::string profile_name(Arch arch, Pick pick) {
  return std::string(arch_name(arch)) + "_" + std::string(pick_name(pick));
}

namespace {

// What a run produces besides the recorder's data (declared in the order run_federated had them).
struct RunState {
  sim::Json cluster;
  sim::Json messages;
  uint64_t inconsistencies = 0;
  std::unique_ptr<Faults> faults;
  sim::Json fault_summary;
};

// The simulation parameters of a run of `w` with options `o`.
SimParams sim_params(const Workload& w, const RunOptions& o) {
  SimParams p;
  p.pick = o.pick;
  p.seed = o.seed;
  p.network_delay = o.network_delay;
  p.heartbeat = o.heartbeat;
  p.lm_order = o.lm_order;
  p.aligned_heartbeats = o.aligned_heartbeats;
  p.retry_rejected = o.retry_rejected;
  p.quirks = o.quirks;
  p.sample_interval = o.sample_interval > 0 ? o.sample_interval : auto_sample_interval(w);
  return p;
}

// The summary's "cluster" entries common to both architectures.
void describe_cluster(const ClusterConfig& c, const RunOptions& o, const SimParams& p,
                      double cutoff, sim::Json& cluster) {
  cluster["config"] = c.source;
  cluster["arch"] = std::string(arch_name(c.arch));
  cluster["match"] = o.pick == Pick::kRandom ? "random" : "minc";
  cluster["workers"] = c.workers();
  cluster["workers_per_partition"] = c.groups.group_size();
  cluster["constraints"] = c.groups.constraints();
  cluster["replicas"] = c.replicas;
  cluster["network_delay_s"] = sim::to_seconds(p.network_delay);
  cluster["cutoff_s"] = cutoff;
  cluster["heartbeat_timing"] = o.aligned_heartbeats ? "aligned" : "random phase, 10% jitter";
  if (sim::Json q = quirk_names(c.arch, o.quirks); !q.empty())
    cluster["reference_quirks"] = std::move(q);
}

// Runs `arch` on `loop` to the end, with o.faults (if any) injected through r.faults.
template <class Sim>
void run_loop(Sim& arch, sim::EventLoop& loop, const Recorder& rec, const ClusterConfig& c,
              const RunOptions& o, RunState& r) {
  if (o.faults) {
    r.faults = std::make_unique<Faults>(*o.faults, o.seed, loop, c.groups.groups(), arch,
                                        [&rec] { return rec.all_done(); });
    arch.set_faults(r.faults.get());
  }
  arch.start();
  if (!r.faults) {
    loop.run_until();
    return;
  }
  r.faults->start();
  run_faulty(loop, rec);
  r.fault_summary = r.faults->summary();
  r.fault_summary["incomplete"] = !rec.all_done();
}

// Runs Megha and records its cluster settings, message counts and fault counts in `r`.
void run_megha(sim::EventLoop& loop, const Workload& w, const ClusterConfig& c, const RunOptions& o,
               const SimParams& p, Recorder& rec, RunState& r) {
  MeghaSim s(loop, w, c, p, rec);
  run_loop(s, loop, rec, c, o, r);
  const MeghaCounters& n = s.counters();
  sim::Json& cluster = r.cluster;
  sim::Json& messages = r.messages;
  cluster["gms"] = c.num_gms;
  cluster["lms"] = c.num_lms;
  cluster["lm_order"] = o.lm_order == LmOrder::kFixed ? "fixed" : "rotate";
  cluster["rejected_tasks"] = o.retry_rejected ? "retried at once" : "wait in queue";
  cluster["heartbeat_s"] = sim::to_seconds(p.heartbeat > 0 ? p.heartbeat : kMeghaHeartbeat);
  r.inconsistencies = n.inconsistencies;
  messages["verify_requests"] = n.verify_requests;
  if (o.quirks.batched_verify) messages["verify_batches"] = n.verify_batches;
  messages["rejections"] = n.inconsistencies;
  messages["launches"] = n.launches;
  messages["completions"] = 2 * n.completions;  // to the LM and to the GM
  messages["status_updates"] = n.status_updates;
  messages["inconsistencies_internal"] = n.inconsistencies_internal;
  messages["inconsistencies_external"] = n.inconsistencies - n.inconsistencies_internal;
  messages["retries_placed"] = n.retries_placed;
  messages["tasks_queued"] = n.queued;
  if (r.faults) {
    r.fault_summary["task_launches"] = n.launches;
  }
}

// Runs Pigeon / PigeonC and records its cluster settings, message counts and fault counts in `r`.
void run_pigeonc(sim::EventLoop& loop, const Workload& w, const ClusterConfig& c,
                 const RunOptions& o, const SimParams& p, Recorder& rec, double cutoff,
                 RunState& r) {
  PigeonCSim s(loop, w, c, p, rec, cutoff,
               o.reference_cs ? CsCounting::kReference : CsCounting::kPaper);
  run_loop(s, loop, rec, c, o, r);
  const PigeonCounters& n = s.counters();
  sim::Json& cluster = r.cluster;
  sim::Json& messages = r.messages;
  cluster["distributors"] = c.num_distributors;
  cluster["masters"] = c.num_masters;
  cluster["fqw"] = c.fqw;
  cluster["cs_counting"] = o.reference_cs ? "reference" : "paper";
  cluster["heartbeat_s"] = sim::to_seconds(p.heartbeat > 0 ? p.heartbeat : kPigeonHeartbeat);
  messages["tasks_to_masters"] = n.tasks_to_masters;
  messages["launches"] = n.launches;
  messages["completions"] = 2 * n.completions;  // to the Master and to the Distributor
  messages["heartbeats"] = n.heartbeats;
  messages["tasks_queued_short"] = n.queued_short;
  messages["tasks_queued_long"] = n.queued_long;
  if (r.faults) {
    r.fault_summary["tasks_resent"] = s.tasks_resent();
    r.fault_summary["duplicates_ignored"] = s.duplicates_ignored();
    r.fault_summary["task_launches"] = n.launches;
  }
}

// Fills out.summary (summary.json) of a finished run; moves r's JSON parts into it.
void fill_summary(RunOutput& out, const Workload& w, const ClusterConfig& c, const RunOptions& o,
                  const sim::EventLoop& loop, const Recorder& rec, double wall, RunState& r) {
  sim::Json& s = out.summary;
  s["scenario"] = o.scenario.empty() ? trace_stem(w.trace->source) : o.scenario;
  s["profile"] = profile_name(c.arch, o.pick);
  s["seed"] = o.seed;
  s["sim_time_s"] = sim::to_seconds(loop.now());
  s["wall_time_s"] = o.wall_clock ? wall : 0.0;
  s["events"] = loop.processed();
  s["jobs"] = sim::jobs_summary(out.jobs);
  s["pods"] = rec.tasks_json();
  s["utilization"] = rec.utilization_json();
  s["inconsistencies"] = r.inconsistencies;
  s["short_jobs"] = rec.jobs_json(out.jobs, true);
  s["long_jobs"] = rec.jobs_json(out.jobs, false);
  s["cluster"] = std::move(r.cluster);
  s["messages"] = std::move(r.messages);
  s["unsatisfiable"] = w.unsatisfiable_json();
  if (r.faults) {
    size_t runnable = 0;
    for (uint32_t n : w.job_runnable) runnable += n;
    r.fault_summary["tasks_runnable"] = runnable;
    r.fault_summary["task_completions"] = rec.tasks_reported();  // heard by the jobs' owners
    s["faults"] = std::move(r.fault_summary);
  }
}

}  // namespace

RunOutput run_federated(const Workload& w, const ClusterConfig& c, const RunOptions& o) {
  const auto wall_start = std::chrono::steady_clock::now();
  const double cutoff = o.cutoff_s                 ? *o.cutoff_s
                        : c.arch == Arch::kPigeonC ? c.cutoff_s
                                                   : kDefaultCutoff;
  const SimParams p = sim_params(w, o);

  sim::EventLoop loop;
  Recorder rec(w, c.workers(), cutoff);
  RunState r;
  describe_cluster(c, o, p, cutoff, r.cluster);
  if (c.arch == Arch::kMegha)
    run_megha(loop, w, c, o, p, rec, r);
  else
    run_pigeonc(loop, w, c, o, p, rec, cutoff, r);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  RunOutput out;
  out.jobs = rec.job_records();
  out.inconsistencies = r.inconsistencies;
  fill_summary(out, w, c, o, loop, rec, wall, r);
  out.timeseries_csv = rec.timeseries_csv();
  out.util_samples = rec.util_samples();
  out.task_start = rec.task_starts();
  return out;
}

RunOutput run_request(const SimRequest& req) {
  if (req.replicate < 1) throw InputError("--replicate: expected a positive integer");
  ClusterConfig c = load_cluster_config(req.cluster_config, req.arch);
  if (req.replicate > 1) c = replicate(c, req.replicate);
  const TaskConstraintModel model = load_task_model(
      req.task_model.empty() ? default_task_model(req.cluster_config) : req.task_model);
  auto trace = std::make_shared<const sim::Trace>(sim::read_trace(req.trace));
  std::vector<ConstraintOverride> overrides;
  if (!req.task_constraints.empty())
    overrides = load_task_constraints(req.task_constraints, *trace, c.groups.constraints());
  const Workload w = make_workload(trace, model, req.options.seed, c, overrides);
  RunOptions options = req.options;
  if (!req.faults.empty())
    options.faults = std::make_shared<const FaultPlan>(load_fault_plan(req.faults, c));
  RunOutput r = run_federated(w, c, options);
  if (!req.out.empty()) write_run(r, req.out);
  return r;
}

std::string default_task_model(const std::string& cluster_config) {
  const size_t slash = cluster_config.find_last_of('/');
  return (slash == std::string::npos ? std::string() : cluster_config.substr(0, slash + 1)) +
         "task_constraint_model.json";
}

void write_run(const RunOutput& r, const std::string& dir) {
  make_dirs(dir);
  write_file_atomic(dir + "/jobs.csv", sim::jobs_csv(r.jobs));
  write_file_atomic(dir + "/timeseries.csv", r.timeseries_csv);
  write_file_atomic(dir + "/summary.json", r.summary.dump(2) + "\n");
}

}  // namespace orrery::federated
