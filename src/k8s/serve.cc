#include "k8s/serve.h"

#include <httplib.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "core/error.h"
#include "net/http_server.h"
#include "obs/log.h"

namespace orrery::k8s {

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

// The policy on the live runtime (ServeOptions::policy). The recorder is the runtime's
// fw::CycleObserver (the framework's drivers call it) and sees every bind the policy sends.
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
    ctx_ = std::make_unique<fw::PolicyContext>(fw::PolicyContext{runtime_, opt_.seed, opt_.policy,
                                                                 opt_.policy_args, opt_.config_path,
                                                                 stats_, opt_.scheduler_name});
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

ApiBackendOptions backend_options(const ServeOptions& opt) {
  ApiBackendOptions b;
  b.backoff = opt.backoff;
  b.instance = opt.election.identity;
  b.journal_namespace = opt.journal_namespace;
  b.journal_name = opt.journal_name;
  return b;
}

// Graceful shutdown: the calls already sent (binds, evictions) finish or fail, for at most
// `grace_ms`.
void drain(ApiBackend& backend, fw::RealTimeLoop& loop, int grace_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
  while (backend.in_flight() > 0 && std::chrono::steady_clock::now() < deadline)
    loop.run_for(20 * 1000);
}

}  // namespace

int run_serve(const ServeOptions& opt, const std::atomic<bool>* stop) {
  if (!opt.policy_factory) throw InputError("orrery serve: no policy to run");
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

  LeaderElector* el = elector.get();
  // No acting request leaves unless the lease is ours at the moment it is written (client.h).
  if (el) client.set_action_gate([el] { return el->may_act(); });
  ApiBackend backend(client, loop, backend_options(opt));
  backend.on_action([&](const ActionOutcome& a) {
    metrics.plan_steps.with({a.action, a.outcome}).inc();
  });
  backend.on_watch_restart([&](const std::string& kind, const std::string& reason) {
    metrics.watch_restarts.with({kind, reason}).inc();
  });
  auto may_act = [&] { return !shutting_down && (!el || el->may_act()); };
  PolicyHost policy(opt, backend, loop, &metrics);
  backend.on_synced([&] {
    if (may_act()) backend.replay_journal();  // the policy starts once it is replayed
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
    if (acting && backend.synced()) backend.replay_journal();  // once
    if (acting && !policy.started() && backend.journal_replayed()) policy.start();
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

  drain(backend, loop, opt.shutdown_grace_ms);
  obs::info("stopping", {{"in_flight", std::to_string(backend.in_flight())},
                         {"scheduled", std::to_string(policy.scheduled())}});
  if (elector) elector->stop(true);
  client.interrupt();
  backend.stop(true);
  policy.stop();
  return 0;
}

}  // namespace orrery::k8s
