#include "sim/simulation.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "core/error.h"
#include "io/files.h"
#include "sim/setup.h"

namespace orrery::sim {

struct Simulation::PolicySlot {
  std::string name;
  SchedulerDef settings;
  fw::PolicyStats stats;
  std::unique_ptr<fw::PolicyContext> ctx;
  std::unique_ptr<fw::Component> component;
};

// An arrival process: creates one Job per arrival, inter-arrival times drawn from a distribution.
class Simulation::Arrivals : public EventTarget {
 public:
  Arrivals(Simulation& s, const ArrivalDef& def)
      : s_(s), def_(def), rng_(Rng::derive(s.seed_, "arrivals/" + def.name)) {}
  void start() {
    if (def_.start < def_.stop && def_.count != 0) {
      active_ = true;
      s_.loop_.at(def_.start, this, 0);
    }
  }
  bool active() const { return active_; }
  void handle(const Event&) override {
    JobSpec spec = def_.job;
    spec.name = def_.name + "-" + std::to_string(made_);
    s_.jobs_.push_back(
        std::make_unique<Job>(*s_.sim_, std::move(spec), s_.next_job_id_++, s_.seed_, s_.log_));
    ++made_;
    const Time next = s_.loop_.now() + def_.interval.sample_time(rng_);
    if ((def_.count >= 0 && made_ >= def_.count) || next >= def_.stop) {
      active_ = false;
      return;
    }
    s_.loop_.at(next, this, 0);
  }

 private:
  Simulation& s_;
  const ArrivalDef& def_;
  Rng rng_;
  int64_t made_ = 0;
  bool active_ = false;
};

Simulation::Simulation(const Scenario& scenario, const fw::PolicyRegistry& policies,
                       RunOptions options)
    : sc_(scenario), opt_(std::move(options)), seed_(opt_.seed.value_or(scenario.seed)) {
  if (opt_.duration > 0) check_scenario_limits(sc_, opt_.duration);
  // Settings for a policy no registry knows (a typo under `policies:`) would be silently unused.
  for (const auto& [name, def] : sc_.policy_settings)
    if (!policies.has(name)) throw InputError(def.where + ": " + policies.unknown(name));
  sim_ = std::make_unique<SimBackend>(loop_, seed_, sc_.lifecycle);
  services_.provide<fw::NodeTelemetry>(sim_.get());
  runtime_ = std::make_unique<fw::Runtime>(fw::Runtime{*sim_, clock_, services_, reservations_});
  // The recorder listens first, so it sees every event before policies react to it.
  recorder_ = std::make_unique<Recorder>(*sim_, sc_.sample_interval);
  build_nodes();
  for (size_t i = 0; i < sc_.schedulers.size(); ++i) {
    const SchedulerDef& def = sc_.schedulers[i];
    auto slot = std::make_unique<PolicySlot>();
    slot->name = i == 0 && !opt_.policy.empty() ? opt_.policy : def.policy;
    slot->settings = sc_.settings_for(i, slot->name);
    slot->ctx = std::make_unique<fw::PolicyContext>(fw::PolicyContext{
        *runtime_, seed_, slot->name, slot->settings.args, slot->settings.config, slot->stats});
    if (!policies.has(slot->name) && slot->name == def.policy && !def.where.empty())
      throw InputError(def.where + ": " + policies.unknown(slot->name));
    slot->component = policies.create(slot->name, *slot->ctx);
    policies_.push_back(std::move(slot));
  }
  policy_name_ = policies_.front()->name;
  {
    std::vector<std::string> names;
    for (const auto& slot : policies_) names.push_back(slot->name);
    setup_ =
        run_setup(sc_, seed_, opt_.duration > 0 ? opt_.duration : sc_.duration, names, policies);
  }
  build_workloads();
  build_events();
}

Simulation::~Simulation() {
  // Components and controllers first: they hold references to the backend.
  policies_.clear();
  hpas_.clear();
  traces_.clear();
  arrivals_.clear();
  jobs_.clear();
  deployments_.clear();
  recorder_.reset();
}

NodeId Simulation::add_group_node(const NodeGroup& g, const std::string& name) {
  Node n = g.tmpl;
  n.name = name;
  if (!n.labels.get(std::string_view("kubernetes.io/hostname"))) {
    n.labels.set("kubernetes.io/hostname", name);
  }
  n.derive_orrery_fields(g.where);
  return sim_->add_node(std::move(n), g.speed);
}

void Simulation::build_nodes() {
  for (const NodeGroup& g : sc_.node_groups)
    for (const std::string& name : g.node_names()) add_group_node(g, name);
  for (const Node& n : sc_.snapshot_nodes) sim_->add_node(n);
}

void Simulation::build_workloads() {
  for (const Pod& p : sc_.snapshot_pods) {
    if (is_terminal(p.phase)) continue;
    sim_->create_pod(p);
  }
  for (const DeploymentDef& d : sc_.deployments) {
    auto rs = std::make_unique<ReplicaSet>(*sim_, d.name, d.tmpl, d.replicas, seed_);
    rs->set_scale_down_order(d.scale_down_order);
    recorder_->track_deployment(rs.get());
    deployments_.push_back(std::move(rs));
    demands_.push_back(std::make_unique<Demand>(d.demand));
  }
  // Demand cycles feed the deployments' demand signals.
  const ClusterState& st = sim_->state();
  for (size_t i = 0; i < sc_.demand_cycles.size(); ++i) {
    const DemandCyclesDef& dc = sc_.demand_cycles[i];
    DemandCycleSpec spec = dc.spec;
    if (dc.basis != DemandCyclesDef::Basis::kExplicit) {
      for (NodeId n : st.nodes()) {
        if (dc.basis == DemandCyclesDef::Basis::kEdge && st.node(n).tier != Tier::kEdge) continue;
        spec.basis[kCpu] += st.allocatable(kCpu)[n];
        spec.basis[kMemory] += st.allocatable(kMemory)[n];
      }
      if (spec.basis[kCpu] == 0 && spec.basis[kMemory] == 0) {
        throw InputError(dc.where + ": basis: the cluster has no " +
                         (dc.basis == DemandCyclesDef::Basis::kEdge ? "edge-tier " : "") +
                         "nodes to take the demand fractions of");
      }
    }
    std::vector<Resources> requests;
    std::vector<Demand*> out;
    for (const std::string& name : dc.deployments) {
      for (size_t k = 0; k < sc_.deployments.size(); ++k) {
        if (sc_.deployments[k].name != name) continue;
        requests.push_back(sc_.deployments[k].tmpl.spec->request);
        out.push_back(demands_[k].get());
        auto sz = dc.sizes.find(name);
        spec.sizes.push_back(sz == dc.sizes.end() ? Resources{} : sz->second);
      }
    }
    Rng rng = Rng::derive(seed_, "demand-cycles/" + std::to_string(i));
    demand_fractions_.push_back(generate_demand_cycles(spec, requests, rng, out));
  }
  for (size_t k = 0; k < sc_.deployments.size(); ++k) {
    if (!sc_.deployments[k].hpa) continue;
    hpas_.push_back(std::make_unique<Hpa>(loop_, *deployments_[k], *demands_[k],
                                          *sc_.deployments[k].hpa, seed_));
  }
  for (const JobDef& j : sc_.jobs) {
    ++jobs_waiting_;
    ++expected_jobs_;
    loop_.at(j.at, [this, &j] {
      jobs_.push_back(std::make_unique<Job>(*sim_, j.spec, next_job_id_++, seed_, log_));
      --jobs_waiting_;
    });
  }
  for (const ArrivalDef& a : sc_.arrivals) {
    arrivals_.push_back(std::make_unique<Arrivals>(*this, a));
    if (a.count > 0) expected_jobs_ += static_cast<size_t>(a.count);
  }
  size_t expected_pods = 0;
  for (const TraceDef& t : sc_.traces) {
    traces_.push_back(std::make_unique<TraceReplay>(*sim_, *t.trace, t.tmpl, log_, seed_, t.prefix,
                                                    t.offset, next_job_id_));
    next_job_id_ += t.trace->jobs.size();
    expected_jobs_ += t.trace->jobs.size();
    expected_pods += t.trace->task_count();
  }
  recorder_->reserve(expected_pods);
}

void Simulation::build_events() {
  // Names known at each point: the initial nodes, their groups, and groups added by events.
  std::map<std::string, std::vector<std::string>> groups;
  for (const NodeGroup& g : sc_.node_groups) groups[g.name] = g.node_names();
  for (const NodeEventDef& e : sc_.events)
    if (e.action == NodeEventDef::Action::kAdd) groups[e.group.name] = e.group.node_names();
  std::set<std::string> known;
  for (const auto& [g, names] : groups) known.insert(names.begin(), names.end());
  for (const Node& n : sc_.snapshot_nodes) known.insert(n.name);
  for (const NodeEventDef& e : sc_.events) {
    std::vector<std::string> names;
    for (const std::string& n : e.nodes) {
      auto it = groups.find(n);
      if (it != groups.end() && !known.count(n)) {
        names.insert(names.end(), it->second.begin(), it->second.end());
      } else if (known.count(n)) {
        names.push_back(n);
      } else {
        throw InputError(e.where + ": nodes: no node or node group named \"" + n + "\"");
      }
    }
    if (e.action == NodeEventDef::Action::kRandomFailures) {
      const size_t index = static_cast<size_t>(&e - sc_.events.data());
      for (const std::string& name : names) schedule_random_failure(e, index, name);
      continue;
    }
    loop_.at(e.at, [this, &e, names] {
      if (e.action == NodeEventDef::Action::kAdd) {
        for (const std::string& name : e.group.node_names()) {
          if (!sim_->state().find_node(name)) add_group_node(e.group, name);
        }
        return;
      }
      for (const std::string& name : names) {
        auto id = sim_->state().find_node(name);
        if (!id) continue;  // already removed
        switch (e.action) {
          case NodeEventDef::Action::kFail: sim_->fail_node(*id); break;
          case NodeEventDef::Action::kRecover: sim_->recover_node(*id); break;
          case NodeEventDef::Action::kRemove: sim_->remove_node(*id); break;
          case NodeEventDef::Action::kAdd:
          case NodeEventDef::Action::kRandomFailures: break;
        }
      }
    });
  }
}

// One node's failure process of a random-failures event: up for Exp(mtbf), down for Exp(mttr),
// until `until`; a failure that starts before `until` still ends with its recovery. Each node
// draws from its own stream, so adding a node or an event does not change the others' draws.
void Simulation::schedule_random_failure(const NodeEventDef& e, size_t index,
                                         const std::string& node) {
  const size_t i = failures_.size();
  failures_.push_back(
      {&e, node, Rng::derive(seed_, "node-failures/" + std::to_string(index) + "/" + node)});
  const Time first = e.at + draw_failure_time(i, e.mtbf);
  if (first < e.until) loop_.at(first, [this, i] { random_failure(i, true); });
}

Time Simulation::draw_failure_time(size_t i, Time mean) {
  return std::max<Time>(1,
                        Dist::exponential(static_cast<double>(mean)).sample_time(failures_[i].rng));
}

void Simulation::random_failure(size_t i, bool fail) {
  const FailureProcess& f = failures_[i];
  auto id = sim_->state().find_node(f.node);
  if (!id) return;  // removed: its process ends
  if (fail) {
    sim_->fail_node(*id);
    loop_.at(loop_.now() + draw_failure_time(i, f.event->mttr),
             [this, i] { random_failure(i, false); });
    return;
  }
  sim_->recover_node(*id);
  const Time next = loop_.now() + draw_failure_time(i, f.event->mtbf);
  if (next < f.event->until) loop_.at(next, [this, i] { random_failure(i, true); });
}

std::vector<std::string> Simulation::warnings() const {
  std::vector<std::string> out = sc_.warnings;
  for (const auto& p : policies_)
    for (const std::string& w : p->stats.warnings()) out.push_back(p->name + ": " + w);
  return out;
}

ReplicaSet* Simulation::deployment(const std::string& name) {
  for (auto& d : deployments_)
    if (d->name() == name) return d.get();
  return nullptr;
}

bool Simulation::work_done() const {
  if (jobs_waiting_ > 0 || log_.open() > 0) return false;
  for (const auto& a : arrivals_)
    if (a->active()) return false;
  for (const auto& t : traces_)
    if (!t->exhausted()) return false;
  return true;
}

double Simulation::progress_fraction() const {
  if (end_ != kForever && end_ > 0)
    return static_cast<double>(loop_.now()) / static_cast<double>(end_);
  if (expected_jobs_ == 0) return 0;
  return static_cast<double>(log_.records().size() + log_.failed_count()) /
         static_cast<double>(expected_jobs_);
}

void Simulation::run() {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  recorder_->start();
  for (auto& p : policies_) p->component->start();
  for (auto& h : hpas_) h->start();
  for (auto& a : arrivals_) a->start();
  for (auto& t : traces_) t->start();
  const Time duration = opt_.duration > 0 ? opt_.duration : sc_.duration;
  end_ = duration > 0 ? duration : kForever;
  const bool show = opt_.progress && isatty(STDERR_FILENO);
  bool shown = false;
  uint64_t steps = 0;
  while (true) {
    const Time next = loop_.next_time();
    if (next == kForever || next > end_) break;
    loop_.step();
    if (end_ == kForever) {
      if (work_done()) break;
      bool arrivals_left = jobs_waiting_ > 0;
      for (const auto& a : arrivals_) arrivals_left = arrivals_left || a->active();
      for (const auto& t : traces_) arrivals_left = arrivals_left || !t->exhausted();
      if (!arrivals_left && loop_.now() - recorder_->last_activity() > opt_.stall_limit) {
        incomplete_ = true;
        break;
      }
    }
    if (show && (++steps & 0x3FFF) == 0) {
      const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
      if (wall >= 1.0) {
        const double f = std::clamp(progress_fraction(), 0.0, 1.0);
        const int w = 30, filled = static_cast<int>(f * w);
        std::fprintf(stderr, "\r%3d%% [%s%s] sim %.0fs, %.1fM events, %.1fs ",
                     static_cast<int>(f * 100), std::string(filled, '#').c_str(),
                     std::string(w - filled, '.').c_str(), to_seconds(loop_.now()),
                     static_cast<double>(loop_.processed()) * 1e-6, wall);
        shown = true;
      }
    }
  }
  if (end_ != kForever) loop_.run_until(end_);  // moves the clock to the end
  if (end_ == kForever && !work_done() && !incomplete_) incomplete_ = true;
  recorder_->stop();
  if (shown) std::fprintf(stderr, "\r%*s\r", 80, "");
  wall_s_ = std::chrono::duration<double>(Clock::now() - t0).count();
}

Json Simulation::summary() const {
  Json s;
  s["scenario"] = sc_.name;
  s["profile"] = policy_name_;
  s["seed"] = seed_;
  s["sim_time_s"] = to_seconds(loop_.now());
  s["wall_time_s"] = opt_.wall_clock ? wall_s_ : 0.0;
  s["events"] = loop_.processed();
  Json jobs = jobs_summary(log_.records());
  jobs["failed"] = log_.failed_count();
  jobs["unfinished"] = log_.open();
  s["jobs"] = jobs;
  s["pods"] = recorder_->pods_summary();
  s["utilization"] = recorder_->utilization_summary();
  Json sched = policies_.front()->stats.summary(opt_.wall_clock);
  policies_.front()->component->finish(&sched);
  s["scheduler"] = sched;
  if (policies_.size() > 1) {
    Json all = Json::object();
    for (const auto& p : policies_) {
      Json one = p->stats.summary(opt_.wall_clock);
      p->component->finish(&one);
      all[p->name] = one;
    }
    s["schedulers"] = all;
  }
  if (recorder_->has_edge() && !deployments_.empty()) s["edge_ratio"] = recorder_->edge_summary();
  if (!demand_fractions_.empty()) s["demand_cycles"] = demand_fractions_;
  s["nodes"] = sim_->state().node_count();
  s["incomplete"] = incomplete_;
  return s;
}

void Simulation::write_outputs(const std::string& dir) const {
  make_dirs(dir);
  std::vector<JobRecord> jobs = log_.records();
  std::sort(jobs.begin(), jobs.end(),
            [](const JobRecord& a, const JobRecord& b) { return a.id < b.id; });
  write_file_atomic(dir + "/jobs.csv", jobs_csv(jobs));
  write_file_atomic(dir + "/pods.csv", recorder_->pods_csv());
  write_file_atomic(dir + "/timeseries.csv", recorder_->timeseries_csv());
  if (recorder_->has_edge() && !deployments_.empty()) {
    write_file_atomic(dir + "/edge_ratio.csv", recorder_->edge_ratio_csv());
  }
  write_file_atomic(dir + "/setup.json", setup_.dump(2) + "\n");
  write_file_atomic(dir + "/summary.json", summary_text(summary()));
}

std::string summary_text(const Json& summary) {
  return summary.dump(2) + "\n";
}

}  // namespace orrery::sim
