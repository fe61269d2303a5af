#include "k8s/serve.h"

#include <httplib.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "core/error.h"
#include "framework/config.h"
#include "k8s/profiles.h"
#include "net/http_server.h"
#include "obs/log.h"

namespace orrery::k8s {

ServeDriver::ServeDriver(ApiBackend& backend, fw::RealTimeLoop& loop,
                         std::vector<std::unique_ptr<fw::Profile>> profiles,
                         fw::SchedulerOptions options, ServeMetrics* metrics,
                         std::function<bool()> may_act)
    : backend_(backend), loop_(loop), recorder_(backend, metrics), may_act_(std::move(may_act)) {
  options.failure_messages = true;  // FailedScheduling events carry them
  scheduler_ =
      std::make_unique<fw::Scheduler>(backend_, std::move(profiles), options, &reservations_);
  backend_.add_listener(this);  // after the scheduler: its queue is current when we look
}

ServeDriver::~ServeDriver() {
  backend_.remove_listener(this);
  loop_.cancel(timer_);
}

void ServeDriver::start() {
  scheduler_->enqueue_pending();
  recorder_.start();
  wake();
}

void ServeDriver::wake() {
  const int64_t t = loop_.now_us();
  if (t >= timer_at_) return;
  loop_.cancel(timer_);
  timer_at_ = t;
  timer_ = loop_.at(t, this, 0);
}

void ServeDriver::on_timer(uint64_t) {
  timer_ = fw::kNoTimer;
  timer_at_ = INT64_MAX;
  run();
}

// The recorder (a listener of its own) records the event; any event may make a pod schedulable.
void ServeDriver::on_event(const fw::ClusterEvent&) {
  wake();
}

void ServeDriver::run() {
  if (!may_act_ || may_act_()) {
    const ClusterState& st = backend_.state();
    while (auto o = scheduler_->schedule_next()) {
      if (!o->counted) continue;
      const bool alive = st.pod_alive(o->pod) && st.pod_serial(o->pod) == o->serial;
      recorder_.on_cycle({*o, alive ? scheduler_->profile_for(st.pod(o->pod)) : nullptr});
      if (!alive || o->scheduled || !may_act_ || may_act_()) continue;
      break;
    }
  }
  recorder_.on_queue(fw::queue_counts(*scheduler_));
  if (auto t = scheduler_->next_wakeup_us()) {
    const int64_t at = std::max(*t, loop_.now_us() + 1000);
    if (at < timer_at_) {
      loop_.cancel(timer_);
      timer_at_ = at;
      timer_ = loop_.at(at, this, 0);
    }
  }
}

std::pair<std::string, int> parse_listen(const std::string& text, const std::string& flag) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos)
    throw InputError(flag + ": expected HOST:PORT or :PORT, got \"" + text + "\"");
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  const std::string p = text.substr(colon + 1);
  char* end = nullptr;
  const long port = std::strtol(p.c_str(), &end, 10);
  if (p.empty() || *end != '\0' || port < 0 || port > 65535)
    throw InputError(flag + ": bad port \"" + p + "\" (expected 0-65535)");
  return {host.empty() ? "0.0.0.0" : host, static_cast<int>(port)};
}

namespace {

// /healthz, /readyz and /metrics on their own thread.
class HealthServer {
 public:
  HealthServer(const std::string& listen, obs::Registry& registry, std::function<bool()> ready)
      : owned_(net::make_http_server({}, net::metrics_limits())), server_(*owned_) {
    auto [host, port] = parse_listen(listen, "--metrics-listen");
    server_.set_tcp_nodelay(true);
    server_.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("ok", "text/plain");
    });
    server_.Get("/readyz", [ready](const httplib::Request&, httplib::Response& res) {
      const bool ok = ready();
      res.status = ok ? 200 : 503;
      res.set_content(ok ? "ok" : "informers not synced", "text/plain");
    });
    server_.Get("/metrics", [&registry](const httplib::Request&, httplib::Response& res) {
      res.set_content(registry.exposition(), obs::kExpositionContentType);
    });
    port_ =
        port == 0 ? server_.bind_to_any_port(host) : (server_.bind_to_port(host, port) ? port : -1);
    if (port_ < 0) throw InputError("--metrics-listen: cannot listen on " + listen);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    obs::info("serving /healthz, /readyz and /metrics",
              {{"address", host + ":" + std::to_string(port_)}});
  }
  ~HealthServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::unique_ptr<httplib::Server> owned_;
  httplib::Server& server_;
  int port_ = 0;
  std::thread thread_;
};

// SIGTERM/SIGINT arrive at a thread of their own (blocked everywhere else) and are posted to
// the loop.
class SignalWatcher {
 public:
  SignalWatcher(fw::RealTimeLoop& loop, std::function<void()> on_signal) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGTERM);
    sigaddset(&set_, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
    thread_ = std::thread([this, &loop, on_signal] {
      while (!done_) {
        timespec ts{0, 100 * 1000 * 1000};
        const int sig = sigtimedwait(&set_, nullptr, &ts);
        if (sig == SIGTERM || sig == SIGINT) {
          obs::info("signal received; shutting down",
                    {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
          loop.post(on_signal);
        }
      }
    });
  }
  ~SignalWatcher() {
    done_ = true;
    thread_.join();
  }

 private:
  sigset_t set_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// The backend a catalog policy acts on: the ApiBackend, with each bind and eviction shown to the
// recorder before it is sent — plans (KubeDSM's batches, the packer's moves) bind and evict
// outside any scheduling cycle, so this is where they are observed.
class ActionObservingBackend : public fw::ClusterBackend {
 public:
  ActionObservingBackend(ApiBackend& real, SchedulingRecorder& recorder)
      : real_(real), recorder_(recorder) {}
  ClusterState& state() override { return real_.state(); }
  int64_t now_us() const override { return real_.now_us(); }
  void bind(PodId pod, NodeId node) override {
    recorder_.on_bind_sent(pod);
    real_.bind(pod, node);
  }
  void delete_pod(PodId pod, const std::string& reason) override {
    recorder_.on_evict_sent(pod, reason);
    real_.delete_pod(pod, reason);
  }
  void delete_for_recreation(PodId pod, const Pod& replacement,
                             const std::string& reason) override {
    recorder_.on_evict_sent(pod, reason);
    real_.delete_for_recreation(pod, replacement, reason);  // journalled first (plan_journal.h)
  }
  void create_pod(Pod pod) override { real_.create_pod(std::move(pod)); }
  bool update_pod(PodId pod, const fw::PodUpdate& u) override { return real_.update_pod(pod, u); }
  void add_listener(fw::EventListener* l) override { real_.add_listener(l); }
  void remove_listener(fw::EventListener* l) override { real_.remove_listener(l); }

 private:
  ApiBackend& real_;
  SchedulingRecorder& recorder_;
};

// A catalog policy on the live runtime (ServeOptions::policy). Its scheduling is observed as the
// ServeDriver's is: the recorder is the runtime's fw::CycleObserver (the framework's drivers call
// it) and sees every bind the policy sends.
class PolicyHost {
 public:
  PolicyHost(const ServeOptions& opt, ApiBackend& backend, fw::RealTimeLoop& loop,
             ServeMetrics* metrics)
      : opt_(opt),
        recorder_(backend, metrics),
        observed_(backend, recorder_),
        runtime_{observed_, loop, services_, reservations_} {
    services_.provide<fw::CycleObserver>(&recorder_);
  }
  bool started() const { return component_ != nullptr; }
  void start() {
    if (component_) return;
    ctx_ = std::make_unique<fw::PolicyContext>(fw::PolicyContext{
        runtime_, opt_.seed, opt_.policy, opt_.policy_args, opt_.config_path, stats_});
    component_ = opt_.policy_factory(*ctx_);
    for (const std::string& w : stats_.warnings()) obs::warn(w, {{"policy", opt_.policy}});
    obs::info("starting policy", {{"policy", opt_.policy}});
    recorder_.start();
    component_->start();
  }
  void stop() { component_.reset(); }
  uint64_t scheduled() const { return recorder_.scheduled(); }

 private:
  const ServeOptions& opt_;
  SchedulingRecorder recorder_;
  ActionObservingBackend observed_;
  fw::Services services_;
  fw::Reservations reservations_;
  fw::Runtime runtime_;
  fw::PolicyStats stats_;
  std::unique_ptr<fw::PolicyContext> ctx_;
  std::unique_ptr<fw::Component> component_;
};

// As kube-scheduler's OnStoppedLeading (klog.FlushAndExit(1)): a replica that lost the lease exits
// at once, from the elector's thread, so no stale cache, queue or plan acts and nothing else can
// keep it alive; its restart starts as a standby. (Acting requests are refused from the renew
// deadline on anyway: the client's action gate.)
[[noreturn]] void exit_on_lost_lease(const LeaderElectionConfig& e) {
  obs::error("leader election lost; exiting so that no stale state acts",
             {{"lease", e.lease_namespace + "/" + e.lease_name}, {"identity", e.identity}});
  std::fflush(nullptr);
  std::_Exit(1);
}

}  // namespace

int run_serve(const ServeOptions& opt, const std::atomic<bool>* stop) {
  fw::SchedulerConfig config = load_serve_config(opt.config_path, opt.scheduler_name);
  // A policy builds its own profiles (with its own plugins, e.g. PriorityOptimalPacking).
  std::vector<std::unique_ptr<fw::Profile>> profiles;
  if (opt.policy.empty()) profiles = build_serve_profiles(config);
  fw::SchedulerOptions sched_options;
  sched_options.seed = opt.seed;
  sched_options.percentage_of_nodes_to_score = config.percentage_of_nodes_to_score;
  sched_options.queue = fw::queue_options(config);

  fw::RealTimeLoop loop;
  std::atomic<bool> shutting_down{false};
  SignalWatcher signals(loop, [&] { shutting_down = true; });
  obs::Registry registry;
  ServeMetrics metrics(registry);

  ApiClient client(opt.cluster);
  std::unique_ptr<ApiClient> election_client;
  std::unique_ptr<LeaderElector> elector;
  if (opt.leader_elect) {
    election_client = std::make_unique<ApiClient>(opt.cluster);
    elector = std::make_unique<LeaderElector>(
        *election_client, opt.election, [&, led = false](bool leading) mutable {
          metrics.leader.with().set(leading ? 1 : 0);
          led |= leading;
          if (!leading && led && !shutting_down) exit_on_lost_lease(opt.election);
          loop.post([] {});  // wake the loop; the driver checks leadership on its next timer
        });
  } else {
    metrics.leader.with().set(1);
  }

  ApiBackendOptions bopt;
  bopt.backoff = opt.backoff;
  bopt.instance = opt.election.identity;
  bopt.journal_namespace = opt.journal_namespace;
  bopt.journal_name = opt.journal_name;
  LeaderElector* el = elector.get();
  // No acting request leaves unless the lease is ours at the moment it is written (client.h).
  if (el) client.set_action_gate([el] { return el->may_act(); });
  ApiBackend backend(client, loop, bopt);
  backend.on_action([&](const ActionOutcome& a) {
    metrics.plan_steps.with({a.action, a.outcome}).inc();
  });
  backend.on_watch_restart([&](const std::string& kind, const std::string& reason) {
    metrics.watch_restarts.with({kind, reason}).inc();
  });
  std::unique_ptr<ServeDriver> driver;
  auto may_act = [&] { return !shutting_down && (!el || el->may_act()); };
  std::unique_ptr<PolicyHost> policy;
  if (!opt.policy.empty()) policy = std::make_unique<PolicyHost>(opt, backend, loop, &metrics);
  backend.on_synced([&] {
    if (policy) {
      if (may_act()) backend.replay_journal();  // the policy starts once it is replayed
      return;
    }
    driver = std::make_unique<ServeDriver>(backend, loop, std::move(profiles), sched_options,
                                           &metrics, may_act);
    driver->start();
  });
  HealthServer health(opt.metrics_listen, registry, [&] { return backend.synced(); });
  obs::info("starting", {{"server", opt.cluster.server},
                         {"source", opt.cluster.source},
                         {"schedulerName", opt.scheduler_name},
                         {"leaderElect", opt.leader_elect ? "true" : "false"}});
  if (elector) elector->start();
  backend.start();

  // Leadership changes and the stop flag are polled on the loop (cheap, 50 ms).
  bool was_acting = false;
  std::function<void()> tick = [&] {
    if (stop && stop->load()) shutting_down = true;
    const bool acting = may_act();
    if (acting && !was_acting && driver) driver->wake();
    if (acting && backend.synced()) backend.replay_journal();  // once
    if (acting && policy && !policy->started() && backend.journal_replayed()) policy->start();
    // Past the renew deadline without a renewal: lost, even before the elector's next attempt
    // (which may be stuck in a request) says so.
    if (!acting && was_acting && el && !shutting_down) exit_on_lost_lease(opt.election);
    was_acting = acting;
    if (shutting_down) {
      loop.stop();
      return;
    }
    loop.after(50 * 1000, tick);
  };
  loop.after(0, tick);
  loop.run();

  // Graceful shutdown: no new cycles (may_act is false); binds already sent finish or fail.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(opt.shutdown_grace_ms);
  while (backend.in_flight() > 0 && std::chrono::steady_clock::now() < deadline)
    loop.run_for(20 * 1000);
  obs::info("stopping", {{"in_flight", std::to_string(backend.in_flight())},
                         {"scheduled", std::to_string(driver   ? driver->scheduled()
                                                      : policy ? policy->scheduled()
                                                               : 0)}});
  if (elector) elector->stop(true);
  client.interrupt();
  backend.stop(true);
  driver.reset();
  if (policy) policy->stop();
  return 0;
}

}  // namespace orrery::k8s
