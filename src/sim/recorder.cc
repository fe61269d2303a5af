#include "sim/recorder.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace orrery::sim {
namespace {

void append_time(std::string& out, Time t) {
  if (t >= 0) append_seconds(out, t);
}

StrId outcome_of_deletion(const std::string& reason) {
  static const StrId preempted = intern("Preempted"), evicted = intern("Evicted"),
                     removed = intern("NodeRemoved"), scaled = intern("ScaledDown"),
                     deleted = intern("Deleted"), migrated = intern("Migrated");
  if (fw::is_migration(reason)) return migrated;
  if (reason.rfind("preempted", 0) == 0) return preempted;
  if (reason.rfind("node failure", 0) == 0) return evicted;
  if (reason == "node removed") return removed;
  if (reason == "scaled down") return scaled;
  return deleted;
}

}  // namespace

Recorder::Recorder(SimBackend& sim, Time sample_interval) : sim_(sim), interval_(sample_interval) {
  sim_.add_listener(this);
}

Recorder::~Recorder() {
  sim_.remove_listener(this);
}

void Recorder::start() {
  sample();
  if (interval_ > 0) sim_.loop().after(interval_, this, 0);
}

void Recorder::stop() {
  if (stopped_) return;
  stopped_ = true;
  if (samples_.empty() || samples_.back().t != sim_.loop().now()) sample();
}

void Recorder::handle(const Event&) {
  if (stopped_) return;
  sample();
  sim_.loop().after(interval_, this, 0);
}

void Recorder::on_event(const fw::ClusterEvent& e) {
  using fw::EventKind;
  static const StrId s_pending = intern("Pending"), s_bound = intern("Bound"),
                     s_running = intern("Running");
  const bool changes_phase = e.kind != EventKind::kPodUpdated &&
                             e.kind != EventKind::kPodTerminating &&
                             e.kind != EventKind::kPodDeleteFailed;
  if (e.pod != kNoPod && changes_phase) last_activity_ = e.time_us;
  switch (e.kind) {
    case EventKind::kNodeAdded:
    case EventKind::kNodeUpdated:
    case EventKind::kNodeRemoved: capacity_dirty_ = true; return;
    case EventKind::kPodAdded: {
      if (e.pod_serial >= records_.size()) {
        records_.resize(std::max<size_t>(e.pod_serial + 1, records_.capacity()));
      }
      const Pod& pod = sim_.state().pod(e.pod);
      PodRecord& r = records_[e.pod_serial];
      r.name = pod.ns == "default" ? pod.name : pod.key();
      if (pod.owner.name != last_owner_) {
        last_owner_ = pod.owner.name;
        last_owner_id_ = intern(last_owner_);
      }
      r.owner = last_owner_id_;
      r.outcome = s_pending;
      r.created = pod.creation_us;
      r.restarts = sim_.restarts(e.pod);
      r.migrations = sim_.migrations(e.pod);
      ++created_;
      ++pending_;
      return;
    }
    case EventKind::kPodBound:
      if (PodRecord* r = record(e.pod_serial)) {
        r->bound = e.time_us;
        r->node = e.node;
        r->outcome = s_bound;
      }
      return;
    case EventKind::kPodBindFailed:
      if (PodRecord* r = record(e.pod_serial)) {
        r->node = kNoNode;
        r->outcome = s_pending;
      }
      return;
    case EventKind::kPodRunning:
      if (PodRecord* r = record(e.pod_serial); r && !r->running && !r->terminal) {
        r->started = e.time_us;
        r->running = true;
        r->outcome = s_running;
        ++running_;
        --pending_;
      }
      return;
    case EventKind::kPodFinished:
      if (PodRecord* r = record(e.pod_serial); r && !r->terminal) {
        r->finished = e.time_us;
        r->terminal = true;
        r->outcome = intern(sim_.event_reason());
        if (r->running) {
          --running_;
        } else {
          --pending_;
        }
      }
      return;
    case EventKind::kPodDeleted:
      if (PodRecord* r = record(e.pod_serial); r && !r->terminal) {
        r->terminal = true;
        r->outcome = outcome_of_deletion(sim_.event_reason());
        if (r->running) {
          --running_;
        } else {
          --pending_;
        }
      }
      return;
    default: return;
  }
}

void Recorder::sample() {
  const ClusterState& st = sim_.state();
  const Execution& ex = sim_.execution();
  const int64_t* rcpu = st.requested(kCpu);
  const int64_t* rmem = st.requested(kMemory);
  const int64_t* rpods = st.requested(kPods);
  if (capacity_dirty_) {
    cpu_capacity_ = mem_capacity_ = slots_ = cpu_alloc_ = mem_alloc_ = 0;
    for (NodeId n : st.nodes()) {
      cpu_capacity_ += static_cast<double>(sim_.cpu_capacity_milli(n));
      mem_capacity_ += static_cast<double>(sim_.memory_capacity(n));
      slots_ += static_cast<double>(st.allocatable(kPods)[n]);
      cpu_alloc_ += static_cast<double>(st.allocatable(kCpu)[n]);
      mem_alloc_ += static_cast<double>(st.allocatable(kMemory)[n]);
    }
    capacity_dirty_ = false;
  }
  int64_t cpu_req = 0, mem_req = 0, slots_used = 0;
  for (NodeId n : st.nodes()) {
    cpu_req += rcpu[n];
    mem_req += rmem[n];
    slots_used += rpods[n];
  }
  const double cpu_cap = cpu_capacity_, mem_cap = mem_capacity_, slots = slots_;
  const double acpu_total = cpu_alloc_, amem_total = mem_alloc_;
  Sample s;
  s.t = sim_.loop().now();
  s.cpu = cpu_cap > 0 ? static_cast<double>(ex.total_cpu_used()) / cpu_cap : 0;
  s.mem = mem_cap > 0 ? static_cast<double>(ex.total_memory_used()) / mem_cap : 0;
  s.slots = slots > 0 ? static_cast<double>(slots_used) / slots : 0;
  s.pending = pending_;
  s.running = running_;
  s.cpu_requested = acpu_total > 0 ? static_cast<double>(cpu_req) / acpu_total : 0;
  s.mem_requested = amem_total > 0 ? static_cast<double>(mem_req) / amem_total : 0;
  s.nodes = st.node_count();
  samples_.push_back(s);

  for (uint32_t d = 0; d < deployments_.size(); ++d) {
    uint32_t edge = 0, total = 0;
    for (PodId p : deployments_[d]->active_pods()) {
      const PodStage stage = sim_.stage(p);
      if (stage != PodStage::kStarting && stage != PodStage::kRunning) continue;
      ++total;
      if (st.node(st.pod_node(p)).tier == Tier::kEdge) ++edge;
    }
    edge_.push_back({s.t, d, edge, total, deployments_[d]->replicas()});
  }
}

bool Recorder::has_edge() const {
  const ClusterState& st = sim_.state();
  for (NodeId n = 0; n < st.node_slots(); ++n)
    if (st.node(n).tier == Tier::kEdge) return true;
  return false;
}

std::string Recorder::pods_csv() const {
  const ClusterState& st = sim_.state();
  std::string out =
      "pod,owner,node,tier,created_s,bound_s,running_s,finished_s,pending_s,pct_s,restarts,"
      "migrations,outcome\n";
  out.reserve(out.size() + created_ * 96);
  for (const PodRecord& r : records_) {
    if (r.created < 0) continue;
    out += r.name;
    out += ',';
    out += interned(r.owner);
    out += ',';
    if (r.node != kNoNode) {
      out += st.node(r.node).name;
      out += ',';
      out += to_string(st.node(r.node).tier);
    } else {
      out += ',';
    }
    out += ',';
    append_time(out, r.created);
    out += ',';
    append_time(out, r.bound);
    out += ',';
    append_time(out, r.started);
    out += ',';
    append_time(out, r.finished);
    out += ',';
    if (r.bound >= 0) append_seconds(out, r.bound - r.created);
    out += ',';
    if (r.finished >= 0 && r.started >= 0) append_seconds(out, r.finished - r.started);
    out += ',';
    out += std::to_string(r.restarts);
    out += ',';
    out += std::to_string(r.migrations);
    out += ',';
    out += interned(r.outcome);
    out += '\n';
  }
  return out;
}

std::string Recorder::timeseries_csv() const {
  std::string out =
      "time_s,cpu_util,mem_util,slot_util,pending,running,cpu_requested,mem_requested,nodes\n";
  for (const Sample& s : samples_) {
    out += fmt_seconds(s.t) + ',' + fmt_double(s.cpu) + ',' + fmt_double(s.mem) + ',' +
           fmt_double(s.slots) + ',' + std::to_string(s.pending) + ',' + std::to_string(s.running) +
           ',' + fmt_double(s.cpu_requested) + ',' + fmt_double(s.mem_requested) + ',' +
           std::to_string(s.nodes) + '\n';
  }
  return out;
}

std::string Recorder::edge_ratio_csv() const {
  std::string out = "time_s,deployment,edge_ratio,edge_pods,pods,replicas\n";
  for (const EdgeSample& e : edge_) {
    out += fmt_seconds(e.t) + ',' + deployments_[e.deployment]->name() + ',';
    if (e.total > 0) out += fmt_double(static_cast<double>(e.edge) / e.total);
    out += ',' + std::to_string(e.edge) + ',' + std::to_string(e.total) + ',' +
           std::to_string(e.replicas) + '\n';
  }
  return out;
}

Json Recorder::pods_summary() const {
  std::vector<double> pending, pct;
  std::map<std::string, size_t> outcomes;
  for (const PodRecord& r : records_) {
    if (r.created < 0) continue;
    if (r.bound >= 0) pending.push_back(to_seconds(r.bound - r.created));
    if (r.finished >= 0 && r.started >= 0) pct.push_back(to_seconds(r.finished - r.started));
    outcomes[std::string(interned(r.outcome))]++;
  }
  const Stats p = summarize(std::move(pending));
  const Stats c = summarize(std::move(pct));
  // Statistics of an empty sample are null (NaN), not 0.
  auto val = [](const Stats&, double v) { return number_or_null(v); };
  Json out;
  out["count"] = created_;
  out["pending_p50_s"] = val(p, p.p50);
  out["pending_p99_s"] = val(p, p.p99);
  out["pct_mean_s"] = val(c, c.mean);
  out["pending_mean_s"] = val(p, p.mean);
  out["pending_p90_s"] = val(p, p.p90);
  out["pct_p50_s"] = val(c, c.p50);
  out["pct_p99_s"] = val(c, c.p99);
  out["bound"] = p.count;
  out["completed"] = c.count;
  Json o = Json::object();
  for (const auto& [k, v] : outcomes) o[k] = v;
  out["outcomes"] = o;
  return out;
}

Json Recorder::utilization_summary() const {
  double cpu = 0, slots = 0, mem = 0, creq = 0;
  for (const Sample& s : samples_) {
    cpu += s.cpu;
    slots += s.slots;
    mem += s.mem;
    creq += s.cpu_requested;
  }
  // Means of no sample are null.
  const double n = samples_.empty() ? kNoValue : static_cast<double>(samples_.size());
  Json out;
  out["cpu_mean"] = number_or_null(cpu / n);
  out["slots_mean"] = number_or_null(slots / n);
  out["mem_mean"] = number_or_null(mem / n);
  out["cpu_requested_mean"] = number_or_null(creq / n);
  out["samples"] = samples_.size();
  return out;
}

Json Recorder::edge_summary() const {
  Json out;
  std::vector<double> sum(deployments_.size(), 0.0);
  std::vector<size_t> cnt(deployments_.size(), 0);
  for (const EdgeSample& e : edge_) {
    if (e.total == 0) continue;
    sum[e.deployment] += static_cast<double>(e.edge) / e.total;
    cnt[e.deployment]++;
  }
  double total = 0;
  size_t k = 0;
  Json per = Json::object();
  for (size_t d = 0; d < deployments_.size(); ++d) {
    // A deployment that never had a pod placed has no ratio (null), not 0.
    const double m = cnt[d] ? sum[d] / static_cast<double>(cnt[d]) : kNoValue;
    per[deployments_[d]->name()] = number_or_null(m);
    if (cnt[d]) {
      total += m;
      ++k;
    }
  }
  out["mean"] = number_or_null(k ? total / static_cast<double>(k) : kNoValue);
  out["deployments"] = per;
  return out;
}

Recorder::PooledEdgeRatio Recorder::edge_pooled(Time busy_from, Time busy_to) const {
  double all = 0, busy = 0;
  size_t n_all = 0, n_busy = 0;
  // Samples of one time are consecutive (one entry per deployment).
  for (size_t i = 0; i < edge_.size();) {
    const Time t = edge_[i].t;
    uint64_t edge = 0, total = 0;
    for (; i < edge_.size() && edge_[i].t == t; ++i) {
      edge += edge_[i].edge;
      total += edge_[i].total;
    }
    if (total == 0) continue;
    const double r = static_cast<double>(edge) / static_cast<double>(total);
    all += r;
    ++n_all;
    if (t >= busy_from && t < busy_to) {
      busy += r;
      ++n_busy;
    }
  }
  const double nan = std::nan("");
  return {n_all ? all / static_cast<double>(n_all) : nan,
          n_busy ? busy / static_cast<double>(n_busy) : nan};
}

}  // namespace orrery::sim
