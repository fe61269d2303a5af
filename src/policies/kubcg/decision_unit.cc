#include "policies/kubcg/decision_unit.h"

#include <algorithm>

#include "core/error.h"

namespace orrery::kubcg {

namespace {

constexpr uint16_t kChoseOther = 1, kWaiting = 2, kMalformed = 3, kNoCandidate = 4;

std::string first_image(const PodSpec& s) {
  return s.containers.empty() ? std::string() : s.containers.front().image;
}

}  // namespace

DecisionUnit::DecisionUnit(std::unique_ptr<HistoryStore> store)
    : store_(std::move(store)), writer_(*store_, cache_) {
  cache_.load(store_->statistics());
  incompat_.load(store_->incompatible());
}

DecisionUnit::~DecisionUnit() = default;

Decision DecisionUnit::decide(const ClusterState& state, PodId pod, uint64_t serial,
                              const NodeId* nodes, size_t n, double now_s, const ImageVariants& v) {
  counters_.corrections += ep_.correct(now_s);  // EP filter + estimator corrector (steps 2–3)
  scratch_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    NodeStatus& ns = scratch_[i];
    const NodeId id = nodes[i];
    ns.name = state.node(id).name;
    ns.gpus = static_cast<int>(state.allocatable(kGpu)[id]);
    ns.running.clear();
    ns.gpu_queue.clear();
    for (PodId p : state.pods_on(id)) {
      if (p == pod || is_terminal(state.pod(p).phase)) continue;
      RunningPod r;
      const PodSpec& s = *state.pod(p).spec;
      r.gpus = static_cast<int>(s.request[kGpu]);
      r.resource = r.gpus > 0 ? Resource::kGpu : Resource::kCpu;
      if (const EpEntry* e = ep_.find(state.pod_serial(p))) {
        r.left_s = std::max(0.0, e->et_s - now_s);
      } else {
        // Not placed by KubCG and not yet started: assume the run time of its image here.
        const StatsCache::Entry* st = cache_.find(first_image(s), ns.name, r.resource);
        r.left_s = st ? st->min_s : 0;
      }
      ns.running.push_back(r);
    }
    auto q = gpu_queues_.find(ns.name);
    if (q != gpu_queues_.end())
      for (const auto& [other, tau] : q->second) {
        if (other == serial) break;  // only the pods ahead of this one
        ns.gpu_queue.push_back(tau);
      }
  }
  DeciderInput in;
  in.nodes = &scratch_;
  in.images = {v.cpu.image, v.gpu.image, std::max(1, v.gpu.gpus)};
  in.stats = &cache_;
  in.theta = &theta_;
  in.incompatible = &Incompatibilities::check;
  in.incompatible_ctx = &incompat_;
  Decision d = kubcg::decide(in);
  ++counters_.decisions;
  if (d.cold_start) ++counters_.cold_starts;
  if (on_decision) on_decision(state.pod(pod), d);
  return d;
}

void DecisionUnit::placed(const ClusterState& state, uint64_t serial, const Decision& d,
                          double now_s) {
  (void)state;
  not_waiting(serial);
  EpEntry e;
  e.image = d.image;
  e.node = d.node;
  e.resource = d.resource;
  e.start_s = now_s;
  const StatsCache::Entry* st = cache_.find(d.image, d.node, d.resource);
  if (st) e.stats = *st;
  e.estimate = initial_estimate(st);
  e.stretch = (st && st->min_s > 0 && d.resource == Resource::kCpu && !d.cold_start)
                  ? std::max(1.0, d.delta_s / st->min_s)
                  : 1.0;
  ep_.add(serial, std::move(e));
}

void DecisionUnit::waiting(uint64_t serial, const std::string& node, double tau_s) {
  auto it = queued_on_.find(serial);
  if (it != queued_on_.end()) {
    if (it->second == node) return;
    not_waiting(serial);
  }
  gpu_queues_[node].emplace_back(serial, tau_s);
  queued_on_[serial] = node;
  ++counters_.waits;
}

void DecisionUnit::not_waiting(uint64_t serial) {
  auto it = queued_on_.find(serial);
  if (it == queued_on_.end()) return;
  auto& q = gpu_queues_[it->second];
  q.erase(std::remove_if(q.begin(), q.end(), [&](const auto& e) { return e.first == serial; }),
          q.end());
  queued_on_.erase(it);
}

void DecisionUnit::forget(uint64_t serial) {
  tracked_.erase(serial);
  ep_.remove(serial);
  not_waiting(serial);
}

void DecisionUnit::track_bound(const ClusterState& state, const fw::ClusterEvent& e) {
  const Pod& p = state.pod(e.pod);
  Tracked t;
  t.image = first_image(*p.spec);
  t.node = state.node(e.node).name;
  t.resource = p.spec->request[kGpu] > 0 ? Resource::kGpu : Resource::kCpu;
  t.bound_s = static_cast<double>(e.time_us) * 1e-6;
  tracked_[e.pod_serial] = std::move(t);
  not_waiting(e.pod_serial);
  if (!ep_.find(e.pod_serial)) {  // bound by someone else: estimate it from the history too
    EpEntry en;
    en.image = tracked_[e.pod_serial].image;
    en.node = tracked_[e.pod_serial].node;
    en.resource = tracked_[e.pod_serial].resource;
    en.start_s = tracked_[e.pod_serial].bound_s;
    const StatsCache::Entry* st = cache_.find(en.image, en.node, en.resource);
    if (st) en.stats = *st;
    en.estimate = initial_estimate(st);
    ep_.add(e.pod_serial, std::move(en));
  }
}

void DecisionUnit::finished(const ClusterState& state, const fw::ClusterEvent& e) {
  auto it = tracked_.find(e.pod_serial);
  if (it == tracked_.end()) return;
  const Tracked& t = it->second;
  const double now = static_cast<double>(e.time_us) * 1e-6;
  Record r;
  r.image = t.image;
  r.node = t.node;
  r.resource = t.resource;
  r.start_s = t.bound_s;
  r.end_s = now;
  const double running = t.running_s >= 0 ? t.running_s : now;
  r.t_create_s = std::max(0.0, running - t.bound_s);
  r.t_exec_s = std::max(0.0, now - running);
  r.concurrency = t.concurrency;
  const bool ok = state.pod_alive(e.pod) && state.pod(e.pod).phase == PodPhase::kSucceeded;
  r.exit_status = ok ? 0 : 1;
  if (!ok) {
    ++counters_.failed_runs;
    const StatsCache::Entry* good = cache_.find(t.image, t.node, t.resource);
    if (!good && !incompat_.blocked(t.image, t.node)) {
      incompat_.learn(t.image, t.node);
      ++counters_.incompatibilities_learned;
    }
  }
  writer_.record(std::move(r));
  ++counters_.recorded;
  writer_.flush();  // one transaction per finished pod; on failure it stays pending (retried)
  forget(e.pod_serial);
}

void DecisionUnit::on_event(const ClusterState& state, const fw::ClusterEvent& e) {
  switch (e.kind) {
    case fw::EventKind::kPodAdded:  // created on a node (spec.nodeName): bound from the start
    case fw::EventKind::kPodBound:
      if (state.pod_alive(e.pod) && e.node != kNoNode) track_bound(state, e);
      break;
    case fw::EventKind::kPodRunning: {
      auto it = tracked_.find(e.pod_serial);
      if (it == tracked_.end()) break;
      const double now = static_cast<double>(e.time_us) * 1e-6;
      it->second.running_s = now;
      ep_.started(e.pod_serial, now);
      // Concurrency: the pods running on the node now, for each of them.
      int running = 0;
      for (PodId p : state.pods_on(e.node))
        if (state.pod(p).phase == PodPhase::kRunning) ++running;
      for (PodId p : state.pods_on(e.node)) {
        auto t = tracked_.find(state.pod_serial(p));
        if (t != tracked_.end() && t->second.running_s >= 0)
          t->second.concurrency = std::max(t->second.concurrency, running);
      }
      break;
    }
    case fw::EventKind::kPodFinished: finished(state, e); break;
    case fw::EventKind::kPodDeleted: forget(e.pod_serial); break;
    default: break;
  }
}

// ---------------------------------------------------------------- the plugin

size_t KubcgPlugin::filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                           fw::Rejections& rejections) {
  const uint64_t serial = cycle.state.pod_serial(cycle.pod_id);
  auto reject_all = [&](uint16_t code) {
    for (size_t i = 0; i < n; ++i) rejections.add(nodes[i], code, 0, false);
    return size_t{0};
  };
  decided_serial_ = 0;
  try {
    variants_ = variants_of(cycle.pod);
  } catch (const InputError& e) {
    message_ = e.what();
    return reject_all(kMalformed);
  }
  const double now = static_cast<double>(cycle.now_us) * 1e-6;
  decision_ = unit_->decide(cycle.state, cycle.pod_id, serial, nodes, n, now, variants_);
  if (!decision_.placed) {
    message_ = "KubCG: no node can run any variant of the pod's image (" + variants_.cpu.image +
               (variants_.gpu.image.empty() ? "" : ", " + variants_.gpu.image) + ")";
    return reject_all(kNoCandidate);
  }
  if (decision_.wait_for_gpu) {
    const Candidate* c = nullptr;
    for (const Candidate& k : decision_.candidates)
      if (k.node == decision_.node && k.resource == Resource::kGpu) c = &k;
    unit_->waiting(serial, decision_.node, c ? c->tau_s : 0);
    message_ = "KubCG: waits for the GPU of " + decision_.node + ", which completes it earlier";
    return reject_all(kWaiting);
  }
  const NodeId chosen = nodes[decision_.node_index];
  message_ = "KubCG: " + decision_.node + " completes the pod earlier";
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    if (nodes[i] == chosen)
      nodes[kept++] = nodes[i];
    else
      rejections.add(nodes[i], kChoseOther, 0, false);
  }
  decided_serial_ = serial;
  return kept;
}

void KubcgPlugin::describe(const ClusterState&, const fw::Rejection& r,
                           std::vector<std::string>* reasons) const {
  switch (r.code) {
    case kChoseOther: reasons->push_back("KubCG: another node completes the pod earlier"); break;
    default: reasons->push_back(message_); break;
  }
}

std::optional<fw::PodUpdate> KubcgPlugin::mutate(const fw::CycleContext& cycle, NodeId node) {
  const uint64_t serial = cycle.state.pod_serial(cycle.pod_id);
  if (serial != decided_serial_ || cycle.state.node(node).name != decision_.node)
    return std::nullopt;
  unit_->placed(cycle.state, serial, decision_, static_cast<double>(cycle.now_us) * 1e-6);
  std::optional<fw::PodUpdate> u = switch_image(cycle.pod, variants_, decision_.resource);
  if (u) unit_->count_switch();
  return u;
}

void KubcgPlugin::on_event(const fw::ClusterEvent& event) {
  if (state_) unit_->on_event(*state_, event);
}

}  // namespace orrery::kubcg
