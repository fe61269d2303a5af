#include "framework/plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"

namespace orrery::fw {

std::string_view to_string(StepKind k) {
  switch (k) {
    case StepKind::kBind: return "bind";
    case StepKind::kDelete: return "delete";
    case StepKind::kCreate: return "create";
    case StepKind::kWaitForCreate: return "wait-for-create";
    case StepKind::kWaitForRunning: return "wait-for-running";
  }
  return "";
}

// ---- Plan ----

namespace {
// A new step waits for the one before it unless depends_on() says otherwise.
void add_step(std::vector<Step>& steps, Step s) {
  if (!steps.empty()) s.after = {steps.size() - 1};
  steps.push_back(std::move(s));
}
}  // namespace

Plan& Plan::bind(PodRef pod, NodeId node) {
  Step s;
  s.kind = StepKind::kBind;
  s.pod = pod;
  s.node = node;
  add_step(steps_, std::move(s));
  return *this;
}

Plan& Plan::remove(PodRef pod, std::string reason) {
  Step s;
  s.kind = StepKind::kDelete;
  s.pod = pod;
  s.reason = std::move(reason);
  add_step(steps_, std::move(s));
  return *this;
}

PodRef Plan::create(Pod pod) {
  Step s;
  s.kind = StepKind::kCreate;
  s.make = std::make_shared<const Pod>(std::move(pod));
  s.slot = slots_++;
  add_step(steps_, std::move(s));
  return {kNoPod, 0, steps_.back().slot};
}

PodRef Plan::wait_for_create(std::string ns, OwnerRef owner, const Resources& request) {
  Step s;
  s.kind = StepKind::kWaitForCreate;
  s.ns = std::move(ns);
  s.owner = std::move(owner);
  s.expected_request = request;
  s.slot = slots_++;
  add_step(steps_, std::move(s));
  return {kNoPod, 0, steps_.back().slot};
}

Plan& Plan::wait_for_running(PodRef pod) {
  Step s;
  s.kind = StepKind::kWaitForRunning;
  s.pod = pod;
  add_step(steps_, std::move(s));
  return *this;
}

Plan& Plan::depends_on(std::vector<size_t> steps) {
  for (size_t d : steps)
    if (d >= steps_.size() - 1) throw std::logic_error("depends_on: not an earlier step");
  steps_.back().after = std::move(steps);
  return *this;
}

// ---- PlanExecutor ----

enum class StepState : uint8_t { kWaiting, kStarted, kDone };

struct PlanExecutor::Running {
  uint64_t id = 0;
  Plan plan;
  std::vector<StepState> state;            // per step
  std::vector<int64_t> since_us;           // per step: when its action ran
  std::vector<ReservationId> reservation;  // per step: its plan reservation (0: none)
  size_t done = 0;
  bool cancelling = false;  // a cancellation is queued
  bool fallback = false;
  std::vector<PodRef> slots;
  std::vector<std::pair<uint64_t, std::string>> names;  // serial → ns/name, for messages

  void remember(const ClusterState& st, PodId id) {
    if (id != kNoPod && st.pod_alive(id)) names.emplace_back(st.pod_serial(id), st.pod(id).key());
  }
  bool open(size_t i) const { return state[i] != StepState::kDone; }
  bool ready(size_t i) const {
    if (state[i] != StepState::kWaiting) return false;
    for (size_t d : plan.steps()[i].after)
      if (state[d] != StepState::kDone) return false;
    return true;
  }
  std::string step_no(size_t i) const { return fmt::format("step {}/{}", i + 1, state.size()); }
};

PlanExecutor::PlanExecutor(ClusterBackend& backend, Reservations* reservations)
    : backend_(backend), reservations_(reservations) {}
PlanExecutor::~PlanExecutor() {
  if (reservations_)
    for (const auto& r : plans_) reservations_->remove_owned(ReservationKind::kPlan, r->id);
}

uint64_t PlanExecutor::submit(Plan plan) {
  auto r = std::make_unique<Running>();
  r->id = next_id_++;
  r->slots.resize(static_cast<size_t>(plan.slots()));
  r->plan = std::move(plan);
  const size_t n = r->plan.steps().size();
  r->state.assign(n, StepState::kWaiting);
  r->since_us.assign(n, 0);
  r->reservation.assign(n, 0);
  for (const Step& s : r->plan.steps())
    if (!s.pod.is_slot() && s.pod.id != kNoPod) r->remember(backend_.state(), s.pod.id);
  reserve(*r);
  const uint64_t id = r->id;
  plans_.push_back(std::move(r));
  work_.push_back({id, false, ""});
  pump();
  return id;
}

// A plan reservation per bind step: the pod's own requests, or what the step that fills its slot
// will create.
void PlanExecutor::reserve(Running& r) {
  if (!reservations_) return;
  const ClusterState& st = backend_.state();
  const auto& steps = r.plan.steps();
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    if (s.kind != StepKind::kBind) continue;
    Reservation res;
    res.kind = ReservationKind::kPlan;
    res.node = s.node;
    res.owner = r.id;
    if (!s.pod.is_slot()) {
      if (resolve(r, s.pod) == kNoPod || st.pod_node(s.pod.id) != kNoNode) continue;
      res.holder = s.pod.serial;
      res.pod = s.pod.id;
    } else {
      for (const Step& f : steps) {
        if (f.slot != s.pod.slot) continue;
        if (f.kind == StepKind::kCreate && f.make->spec) {
          res.spec = f.make->spec;
        } else {
          auto spec = std::make_shared<PodSpec>();
          spec->request = f.expected_request;
          spec->nonzero_request = f.expected_request;
          spec->node_nonzero_cpu = f.expected_request[kCpu];
          spec->node_nonzero_memory = f.expected_request[kMemory];
          for (int k = 0; k < kMaxResources; ++k)
            if (f.expected_request.q[k] != 0) spec->request_mask |= 1u << k;
          res.spec = std::move(spec);
        }
        break;
      }
      if (!res.spec) continue;
    }
    r.reservation[i] = reservations_->add(std::move(res));
  }
}

PlanExecutor::Running* PlanExecutor::find(uint64_t id) {
  for (auto& r : plans_)
    if (r->id == id) return r.get();
  return nullptr;
}

bool PlanExecutor::running(uint64_t id) const {
  for (const auto& r : plans_)
    if (r->id == id) return true;
  return false;
}

size_t PlanExecutor::started_steps() const {
  size_t n = 0;
  for (const auto& r : plans_)
    for (StepState st : r->state) n += st == StepState::kStarted;
  return n;
}

PodId PlanExecutor::resolve(const Running& r, const PodRef& ref) const {
  const PodRef& p = ref.is_slot() ? r.slots[static_cast<size_t>(ref.slot)] : ref;
  const ClusterState& st = backend_.state();
  if (p.id == kNoPod || !st.pod_alive(p.id) || st.pod_serial(p.id) != p.serial) return kNoPod;
  return p.id;
}

uint64_t PlanExecutor::serial_of(const Running& r, const PodRef& ref) const {
  return ref.is_slot() ? r.slots[static_cast<size_t>(ref.slot)].serial : ref.serial;
}

std::string PlanExecutor::pod_name(PodId id) const {
  const ClusterState& st = backend_.state();
  return id != kNoPod && st.pod_alive(id) ? st.pod(id).key() : "<gone>";
}

std::string PlanExecutor::describe_pod(const Running& r, const PodRef& ref) const {
  const PodId id = resolve(r, ref);
  if (id != kNoPod) return backend_.state().pod(id).key();
  const uint64_t serial = serial_of(r, ref);
  for (const auto& [s, name] : r.names)
    if (s == serial && serial != 0) return name;
  return ref.is_slot() ? fmt::format("<pod of slot {}>", ref.slot) : std::string("<unknown pod>");
}

std::string PlanExecutor::describe(const Running& r, const Step& s) const {
  const ClusterState& st = backend_.state();
  auto node_name = [&](NodeId n) {
    return n != kNoNode && st.node_alive(n) ? st.node(n).name : "<gone>";
  };
  auto pod = [&](const PodRef& ref) { return describe_pod(r, ref); };
  switch (s.kind) {
    case StepKind::kBind: return fmt::format("bind {} to {}", pod(s.pod), node_name(s.node));
    case StepKind::kDelete: return fmt::format("delete {}", pod(s.pod));
    case StepKind::kCreate: return fmt::format("create {}", s.make->key());
    case StepKind::kWaitForCreate:
      return fmt::format("wait for a new pod of {} {}/{}", to_string(s.owner.kind), s.ns,
                         s.owner.name);
    case StepKind::kWaitForRunning: return fmt::format("wait until {} runs", pod(s.pod));
  }
  return "";
}

namespace {
bool acts_on_pod(StepKind k) {
  return k == StepKind::kBind || k == StepKind::kDelete || k == StepKind::kWaitForRunning;
}
}  // namespace

// Whether event `e` verifies, claims for, or contradicts started step i.
PlanExecutor::Check PlanExecutor::check_step(Running& r, size_t i, const ClusterEvent& e,
                                             std::string* why) {
  const std::vector<Step>& steps = r.plan.steps();
  const Step& s = steps[i];
  const ClusterState& st = backend_.state();
  const bool about_target =
      e.pod_serial != 0 && acts_on_pod(s.kind) && serial_of(r, s.pod) == e.pod_serial;
  auto incompatible = [&]() {
    *why =
        fmt::format("{} while waiting to {} ({})", to_string(e.kind), describe(r, s), r.step_no(i));
    return Check::kIncompatible;
  };

  // The replacement of the pod being deleted may show up before the deletion is confirmed: a
  // wait-for-create that depends on this delete claims it ahead of time.
  auto owner_pod_added = [&](const Step& w) {
    if (e.kind != EventKind::kPodAdded || !st.pod_alive(e.pod) || st.pod_node(e.pod) != kNoNode)
      return false;
    const Pod& p = st.pod(e.pod);
    return p.ns == w.ns && p.owner.kind == w.owner.kind && p.owner.name == w.owner.name;
  };
  if (s.kind == StepKind::kDelete) {
    for (size_t j = i + 1; j < steps.size(); ++j) {
      const Step& w = steps[j];
      if (w.kind != StepKind::kWaitForCreate || r.state[j] != StepState::kWaiting) continue;
      if (std::find(w.after.begin(), w.after.end(), i) == w.after.end()) continue;
      PodRef& slot = r.slots[static_cast<size_t>(w.slot)];
      if (slot.serial == 0 && owner_pod_added(w)) {
        slot = {e.pod, e.pod_serial, -1};
        r.remember(st, e.pod);
        return Check::kClaimed;
      }
      break;
    }
  }

  switch (s.kind) {
    case StepKind::kBind:
      if (about_target) {
        if (e.kind == EventKind::kPodBound)
          return e.node == s.node ? Check::kVerified : incompatible();
        if (e.kind == EventKind::kPodBindFailed || e.kind == EventKind::kPodDeleted ||
            e.kind == EventKind::kPodFinished)
          return incompatible();
      }
      break;
    case StepKind::kDelete:
      if (about_target && e.kind == EventKind::kPodDeleted) return Check::kVerified;
      if (about_target && e.kind == EventKind::kPodDeleteFailed) return incompatible();
      break;
    case StepKind::kCreate:
      if (e.kind == EventKind::kPodAdded && st.pod_alive(e.pod) &&
          st.pod(e.pod).key() == s.make->key()) {
        r.slots[static_cast<size_t>(s.slot)] = {e.pod, e.pod_serial, -1};
        r.remember(st, e.pod);
        return Check::kVerified;
      }
      break;
    case StepKind::kWaitForCreate:
      if (r.slots[static_cast<size_t>(s.slot)].serial == 0 && owner_pod_added(s)) {
        r.slots[static_cast<size_t>(s.slot)] = {e.pod, e.pod_serial, -1};
        r.remember(st, e.pod);
        return Check::kVerified;
      }
      break;
    case StepKind::kWaitForRunning:
      if (about_target) {
        if (e.kind == EventKind::kPodRunning) return Check::kVerified;
        if (e.kind == EventKind::kPodDeleted || e.kind == EventKind::kPodFinished ||
            e.kind == EventKind::kPodBindFailed)
          return incompatible();
      }
      break;
  }
  return Check::kIrrelevant;
}

PlanExecutor::Check PlanExecutor::check(Running& r, const ClusterEvent& e, std::string* why) {
  const std::vector<Step>& steps = r.plan.steps();
  for (size_t i = 0; i < steps.size(); ++i) {
    if (r.state[i] != StepState::kStarted) continue;
    const Check c = check_step(r, i, e, why);
    if (c == Check::kVerified) step_done(r, i);
    if (c != Check::kIrrelevant) return c;
  }
  // A pod a step still to do needs is gone (a started delete of it is verified above).
  if (e.kind == EventKind::kPodDeleted && e.pod_serial != 0) {
    for (size_t j = 0; j < steps.size(); ++j) {
      const Step& t = steps[j];
      if (!r.open(j) || !acts_on_pod(t.kind) || serial_of(r, t.pod) != e.pod_serial) continue;
      if (r.state[j] == StepState::kStarted && t.kind == StepKind::kDelete) continue;
      *why = fmt::format("{} was deleted before {} ({})", describe_pod(r, t.pod), r.step_no(j),
                         describe(r, t));
      return Check::kIncompatible;
    }
  }
  return Check::kIrrelevant;
}

void PlanExecutor::step_done(Running& r, size_t i) {
  r.state[i] = StepState::kDone;
  ++r.done;
}

bool PlanExecutor::handle(const ClusterEvent& e) {
  bool consumed = false;
  for (auto& rp : plans_) {
    Running& r = *rp;
    if (r.cancelling || r.done >= r.state.size()) continue;
    std::string why;
    const Check c = check(r, e, &why);
    if (c == Check::kVerified) {
      consumed = true;
      work_.push_back({r.id, false, ""});
      if (e.kind == EventKind::kPodAdded) break;  // a new pod belongs to one plan only
    } else if (c == Check::kClaimed) {
      consumed = true;
      break;  // a new pod belongs to one plan only
    } else if (c == Check::kIncompatible) {
      r.cancelling = true;
      work_.push_back({r.id, true, std::move(why)});
    }
  }
  pump();
  settle_recreations(e);
  return consumed;
}

// Runs step i's action. True when it ran (or its goal already holds: then it is done); false with
// `why` when it cannot.
bool PlanExecutor::start_step(Running& r, size_t i, std::string* why) {
  const Step& s = r.plan.steps()[i];
  r.state[i] = StepState::kStarted;
  r.since_us[i] = backend_.now_us();
  switch (s.kind) {
    case StepKind::kBind: return start_bind(r, i, why);
    case StepKind::kDelete: return start_delete(r, i);
    case StepKind::kCreate: return start_create(r, i, why);
    case StepKind::kWaitForCreate: return start_wait_for_create(r, i, why);
    case StepKind::kWaitForRunning: return start_wait_for_running(r, i, why);
  }
  return true;
}

// A bind step: assumes and binds the pod (its plan reservation gives way to the assumption); done
// at once when the pod is on the node already.
bool PlanExecutor::start_bind(Running& r, size_t i, std::string* why) {
  const Step& s = r.plan.steps()[i];
  ClusterState& st = backend_.state();
  if (reservations_ && r.reservation[i] != 0) {
    reservations_->remove(r.reservation[i]);  // the assumption below counts it now
    r.reservation[i] = 0;
  }
  const PodId id = resolve(r, s.pod);
  if (id == kNoPod) {
    *why = fmt::format("cannot {}: the pod is gone", describe(r, s));
    return false;
  }
  if (!st.node_alive(s.node)) {
    *why = fmt::format("cannot {}: the node is gone", describe(r, s));
    return false;
  }
  const NodeId at = st.pod_node(id);
  if (at == s.node) {
    step_done(r, i);
    return true;
  }
  if (at != kNoNode) {
    *why = fmt::format("cannot {}: the pod is already on {}", describe(r, s), st.node(at).name);
    return false;
  }
  const Resources& req = st.pod(id).spec->request;
  if (!req.fits_in(st.free_of(s.node))) {
    *why = fmt::format("cannot {}: the node has no room (needs {}, free {})", describe(r, s),
                       req.to_string(), st.free_of(s.node).to_string());
    return false;
  }
  st.assign(id, s.node);
  backend_.bind(id, s.node);
  return true;
}

// A delete step: deletes the pod (for re-creation when a later step creates one of the same name);
// done at once when the pod is gone already.
bool PlanExecutor::start_delete(Running& r, size_t i) {
  const Step& s = r.plan.steps()[i];
  const PodId id = resolve(r, s.pod);
  if (id == kNoPod) {  // already gone: the step's goal holds
    step_done(r, i);
    return true;
  }
  // A later step re-creating the pod under its name makes this a move: say so.
  const Pod& victim = backend_.state().pod(id);
  for (size_t j = i + 1; j < r.plan.steps().size(); ++j) {
    const Step& c = r.plan.steps()[j];
    if (c.kind == StepKind::kCreate && c.make && c.make->ns == victim.ns &&
        c.make->name == victim.name) {
      backend_.delete_for_recreation(id, *c.make, s.reason);
      return true;
    }
  }
  backend_.delete_pod(id, s.reason);
  return true;
}

// A create step: creates the pod; false when the backend refuses it.
bool PlanExecutor::start_create(Running& r, size_t i, std::string* why) {
  const Step& s = r.plan.steps()[i];
  try {
    backend_.create_pod(*s.make);
  } catch (const InputError& err) {
    *why = fmt::format("cannot {}: {}", describe(r, s), err.what());
    return false;
  }
  return true;
}

// A wait-for-create step: done at once when its slot was claimed ahead of time (while the
// preceding delete was being verified), unless that pod is gone again.
bool PlanExecutor::start_wait_for_create(Running& r, size_t i, std::string* why) {
  const Step& s = r.plan.steps()[i];
  const PodRef& slot = r.slots[static_cast<size_t>(s.slot)];
  if (slot.serial != 0) {
    if (resolve(r, slot) == kNoPod) {
      *why =
          fmt::format("cannot {}: the new pod {} is gone", describe(r, s), describe_pod(r, slot));
      return false;
    }
    step_done(r, i);
  }
  return true;
}

// A wait-for-running step: done at once when the pod runs already; false when it is gone.
bool PlanExecutor::start_wait_for_running(Running& r, size_t i, std::string* why) {
  const Step& s = r.plan.steps()[i];
  const PodId id = resolve(r, s.pod);
  if (id == kNoPod) {
    *why = fmt::format("cannot {}: the pod is gone", describe(r, s));
    return false;
  }
  if (backend_.state().pod(id).phase == PodPhase::kRunning) step_done(r, i);
  return true;
}

// Starts every step whose dependencies are verified, in step order, until none is ready; finishes
// the plan when every step is done or one cannot start.
void PlanExecutor::start_ready(Running& r) {
  const uint64_t id = r.id;
  bool progress = true;
  while (progress && !r.cancelling) {
    progress = false;
    if (r.done >= r.state.size()) {
      finish(id, PlanStatus::kCompleted, "");
      return;
    }
    for (size_t i = 0; i < r.state.size(); ++i) {
      if (!r.ready(i)) continue;
      std::string why;
      if (!start_step(r, i, &why)) {
        finish(id, PlanStatus::kCancelled, why);
        return;
      }
      progress = true;
      break;  // re-scan: the step may be done already and release others
    }
  }
}

void PlanExecutor::pump() {
  if (pumping_) return;
  pumping_ = true;
  for (size_t i = 0; i < work_.size(); ++i) {
    // Copy: actions below may append to work_.
    const Work w = work_[i];
    Running* r = find(w.id);
    if (r == nullptr) continue;
    if (w.cancel) {
      finish(w.id, PlanStatus::kCancelled, w.reason);
      continue;
    }
    start_ready(*r);
  }
  work_.clear();
  pumping_ = false;
}

void PlanExecutor::finish(uint64_t id, PlanStatus status, const std::string& reason) {
  auto it = std::find_if(plans_.begin(), plans_.end(), [&](const auto& p) { return p->id == id; });
  if (it == plans_.end()) return;
  std::unique_ptr<Running> r = std::move(*it);
  plans_.erase(it);
  if (reservations_) reservations_->remove_owned(ReservationKind::kPlan, id);

  PlanReport rep;
  rep.id = id;
  rep.name = r->plan.name();
  rep.status = status;
  rep.steps_done = r->done;
  rep.steps_total = r->plan.steps().size();
  rep.reason = reason;
  rep.fallback = r->fallback;
  if (status == PlanStatus::kCancelled) {
    ++cancelled_;
    keep_recreations(*r);
    // The pods this plan still meant to bind and that are pending go to the fallback.
    const ClusterState& st = backend_.state();
    for (size_t j = 0; j < r->plan.steps().size(); ++j) {
      const Step& s = r->plan.steps()[j];
      if (s.kind != StepKind::kBind || !r->open(j)) continue;
      const PodId pod = resolve(*r, s.pod);
      if (pod == kNoPod || st.pod_node(pod) != kNoNode || is_terminal(st.pod(pod).phase)) continue;
      if (std::find(rep.released.begin(), rep.released.end(), pod) == rep.released.end())
        rep.released.push_back(pod);
    }
    if (!r->fallback && fallback_) {
      for (PodId pod : rep.released) {
        const NodeId node = fallback_(st, pod);
        if (node == kNoNode) continue;
        Plan p(fmt::format("fallback for plan {}: bind {} to {}", id, st.pod(pod).key(),
                           st.node(node).name));
        p.bind(PodRef::of(st, pod), node);
        p.step_timeout_us(r->plan.step_timeout_us());
        auto fb = std::make_unique<Running>();
        fb->id = next_id_++;
        fb->plan = std::move(p);
        fb->state.assign(1, StepState::kWaiting);
        fb->since_us.assign(1, 0);
        fb->reservation.assign(1, 0);
        fb->fallback = true;
        reserve(*fb);
        work_.push_back({fb->id, false, ""});
        plans_.push_back(std::move(fb));
      }
    }
  } else {
    ++completed_;
  }
  if (on_done_) on_done_(rep);
}

void PlanExecutor::keep_recreations(const Running& r) {
  const std::vector<Step>& steps = r.plan.steps();
  for (size_t j = 0; j < steps.size(); ++j) {
    const Step& s = steps[j];
    if (s.kind != StepKind::kCreate || r.state[j] != StepState::kWaiting || s.after.empty())
      continue;
    Recreation rec{{}, s.make};
    bool removal_started = true;
    for (size_t d : s.after) {
      if (steps[d].kind != StepKind::kDelete || r.state[d] == StepState::kWaiting) {
        removal_started = false;
        break;
      }
      if (r.state[d] == StepState::kStarted) rec.awaiting.push_back(serial_of(r, steps[d].pod));
    }
    if (!removal_started) continue;
    if (rec.awaiting.empty())
      create_now(*rec.make);
    else
      recreations_.push_back(std::move(rec));
  }
}

void PlanExecutor::settle_recreations(const ClusterEvent& e) {
  if (recreations_.empty() || e.pod_serial == 0) return;
  if (e.kind != EventKind::kPodDeleted && e.kind != EventKind::kPodDeleteFailed) return;
  for (size_t i = 0; i < recreations_.size();) {
    std::vector<uint64_t>& awaiting = recreations_[i].awaiting;
    auto it = std::find(awaiting.begin(), awaiting.end(), e.pod_serial);
    if (it == awaiting.end()) {
      ++i;
      continue;
    }
    awaiting.erase(it);
    if (e.kind == EventKind::kPodDeleted && !awaiting.empty()) {
      ++i;
      continue;
    }
    // Confirmed (the last awaited deletion): create; failed: the pod is still there, drop it.
    const std::shared_ptr<const Pod> make = recreations_[i].make;
    recreations_.erase(recreations_.begin() + static_cast<std::ptrdiff_t>(i));
    if (e.kind == EventKind::kPodDeleted) create_now(*make);  // may re-enter handle()
  }
}

void PlanExecutor::create_now(const Pod& pod) {
  try {
    backend_.create_pod(pod);
  } catch (const InputError&) {
    // The name is taken again (someone re-created the pod): nothing to restore.
  }
}

void PlanExecutor::expire(int64_t now_us) {
  for (auto& r : plans_) {
    const int64_t t = r->plan.step_timeout_us();
    if (t <= 0 || r->cancelling) continue;
    for (size_t i = 0; i < r->state.size(); ++i) {
      if (r->state[i] != StepState::kStarted || now_us - r->since_us[i] < t) continue;
      r->cancelling = true;
      work_.push_back({r->id, true,
                       fmt::format("timed out after {} s waiting to {} ({})",
                                   static_cast<double>(now_us - r->since_us[i]) * 1e-6,
                                   describe(*r, r->plan.steps()[i]), r->step_no(i))});
      break;
    }
  }
  pump();
}

void PlanExecutor::cancel(uint64_t id, const std::string& reason) {
  Running* r = find(id);
  if (r == nullptr || r->cancelling) return;
  r->cancelling = true;
  work_.push_back({id, true, reason});
  pump();
}

bool PlanExecutor::involves(uint64_t pod_serial) const {
  if (pod_serial == 0) return false;
  for (const auto& r : plans_) {
    for (const PodRef& s : r->slots)
      if (s.serial == pod_serial) return true;
    const auto& steps = r->plan.steps();
    for (size_t j = 0; j < steps.size(); ++j) {
      const Step& s = steps[j];
      if (r->open(j) && acts_on_pod(s.kind) && serial_of(*r, s.pod) == pod_serial) return true;
    }
  }
  return false;
}

std::vector<PendingBind> PlanExecutor::pending_binds() const {
  std::vector<PendingBind> out;
  const ClusterState& st = backend_.state();
  for (const auto& r : plans_) {
    const auto& steps = r->plan.steps();
    for (size_t j = 0; j < steps.size(); ++j) {
      const Step& s = steps[j];
      if (s.kind != StepKind::kBind || !r->open(j)) continue;
      const PodId id = resolve(*r, s.pod);
      if (id != kNoPod) {
        if (st.pod_node(id) == kNoNode) out.push_back({s.node, st.pod(id).spec->request, id});
        continue;
      }
      if (!s.pod.is_slot()) continue;  // the pod is gone
      // The slot is not filled yet: use what the step that fills it expects.
      for (const Step& f : steps) {
        if (f.slot != s.pod.slot) continue;
        const bool made = f.kind == StepKind::kCreate && f.make->spec;
        out.push_back({s.node, made ? f.make->spec->request : f.expected_request, kNoPod});
        break;
      }
    }
  }
  return out;
}

}  // namespace orrery::fw
