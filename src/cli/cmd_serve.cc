// `orrery serve` (standalone secondary scheduler or, with --extender, a scheduler extender) and
// `orrery snapshot` (the live cluster written in the form `orrery schedule` reads).
//
//   orrery serve --kubeconfig FILE | --in-cluster [--context C] [--config SCHED.yaml]
//                [--scheduler-name orrery] [--leader-elect] [--lease-namespace kube-system]
//                [--lease-name orrery-scheduler] [--metrics-listen :10259]
//                [--journal-namespace NS] [--journal-name orrery-scheduler-journal]
//                [--policy kubedsm|kube-optpack|carico|... [--policy-args ARGS.yaml]] [--seed N]
//   orrery serve --extender --listen HOST:PORT [--url-prefix P] [--config SCHED.yaml]
//                [--profile NAME] [--cluster SNAP.yaml | --kubeconfig FILE | --in-cluster]
//                [--tls-cert-file F --tls-private-key-file F [--client-ca-file F] | --insecure]
//                [--max-request-bytes N] [--request-timeout S] [--idle-timeout S]
//   orrery snapshot --kubeconfig FILE | --in-cluster [--context C] --out SNAP.yaml
#include <signal.h>

#include <atomic>
#include <cmath>
#include <future>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <tuple>

#include "cli/commands.h"
#include "core/error.h"
#include "framework/realtime_loop.h"
#include "io/files.h"
#include "io/k8s_objects.h"
#include "io/yaml_util.h"
#include "k8s/api_backend.h"
#include "k8s/extender.h"
#include "k8s/kubeconfig.h"
#include "k8s/objects.h"
#include "k8s/serve.h"
#include "obs/log.h"
#include "plugins/register.h"
#include "policies/catalog.h"

namespace orrery::cli {

namespace {

struct ServeFlags {
  std::string kubeconfig, context, config, scheduler_name = "orrery";
  bool in_cluster = false, leader_elect = false, extender = false;
  std::string lease_namespace = "kube-system", lease_name = "orrery-scheduler";
  std::string journal_namespace, journal_name;  // default: the Lease's, "<lease-name>-journal"
  std::string metrics_listen = ":10259", identity, log_level = "info";
  double lease_duration = 15, renew_deadline = 10, retry_period = 2;
  int backoff_initial_ms = 800, backoff_max_ms = 30000, watch_timeout_s = 300;
  std::string listen, url_prefix, profile, cluster;
  uint64_t seed = 0;
  std::string policy = "kube-default", policy_args;
  std::string tls_cert, tls_key, client_ca;
  bool insecure = false;
  size_t max_request_bytes = k8s::ExtenderServeOptions::default_extender_limits().max_body_bytes;
  int request_timeout_s = 10, idle_timeout_s = 5;
};

// Signals go to the threads that wait for them, never to a worker: block them before any thread
// starts.
void block_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

k8s::ClusterConfig cluster_config(const std::string& kubeconfig, const std::string& context,
                                  bool in_cluster) {
  if (in_cluster && !kubeconfig.empty())
    throw InputError("--kubeconfig and --in-cluster exclude each other");
  if (in_cluster) return k8s::in_cluster_config();
  if (kubeconfig.empty()) throw InputError("one of --kubeconfig FILE or --in-cluster is required");
  return k8s::load_kubeconfig(kubeconfig, context);
}

int to_ms(double seconds, const std::string& flag) {
  if (!(seconds > 0) || seconds > 3600) throw InputError(flag + ": expected seconds in (0, 3600]");
  return static_cast<int>(std::lround(seconds * 1000));
}

k8s::ExtenderServeOptions extender_options(const ServeFlags& f) {
  k8s::ExtenderServeOptions o;
  o.listen = f.listen;
  o.url_prefix = f.url_prefix;
  o.tls = {f.tls_cert, f.tls_key, f.client_ca};
  if (f.tls_cert.empty() != f.tls_key.empty())
    throw InputError("--tls-cert-file and --tls-private-key-file go together");
  if (!f.client_ca.empty() && f.tls_cert.empty())
    throw InputError("--client-ca-file needs --tls-cert-file and --tls-private-key-file");
  if (f.insecure && !f.tls_cert.empty())
    throw InputError("--insecure and --tls-cert-file exclude each other");
  o.insecure = f.insecure;
  if (f.max_request_bytes < 1024 || f.max_request_bytes > (size_t{1} << 30))
    throw InputError("--max-request-bytes: expected 1024 to 1073741824");
  if (f.request_timeout_s < 1 || f.request_timeout_s > 3600)
    throw InputError("--request-timeout: expected seconds in [1, 3600]");
  if (f.idle_timeout_s < 1 || f.idle_timeout_s > 3600)
    throw InputError("--idle-timeout: expected seconds in [1, 3600]");
  o.limits.max_body_bytes = f.max_request_bytes;
  o.limits.read_timeout_s = o.limits.write_timeout_s = f.request_timeout_s;
  o.limits.idle_timeout_s = f.idle_timeout_s;
  return o;
}

int run_extender(const ServeFlags& f) {
  if (f.listen.empty()) throw InputError("--extender needs --listen HOST:PORT");
  extender_options(f);  // bad flags fail before anything starts
  const fw::SchedulerConfig config =
      fw::config_or_builtin(f.config, f.scheduler_name, fw::default_scheduler_config);
  std::unique_ptr<fw::SnapshotBackend> snapshot;
  std::unique_ptr<k8s::ApiClient> client;
  std::unique_ptr<fw::RealTimeLoop> loop;
  std::unique_ptr<k8s::ApiBackend> backend;
  std::thread loop_thread;
  std::mutex snapshot_mu;
  std::function<void(const std::function<void()>&)> exec;
  fw::ClusterBackend* view = nullptr;
  if (!f.cluster.empty() && (!f.kubeconfig.empty() || f.in_cluster))
    throw InputError("--cluster and --kubeconfig/--in-cluster exclude each other");
  if (!f.cluster.empty()) {
    snapshot = std::make_unique<fw::SnapshotBackend>(build_cluster(load_k8s_objects(f.cluster)));
    view = snapshot.get();
    exec = [&](const std::function<void()>& fn) {
      std::lock_guard<std::mutex> lock(snapshot_mu);
      fn();
    };
  } else if (!f.kubeconfig.empty() || f.in_cluster) {
    client =
        std::make_unique<k8s::ApiClient>(cluster_config(f.kubeconfig, f.context, f.in_cluster));
    loop = std::make_unique<fw::RealTimeLoop>();
    k8s::ApiBackendOptions bopt;
    bopt.backoff.initial_ms = f.backoff_initial_ms;
    bopt.backoff.max_ms = f.backoff_max_ms;
    backend = std::make_unique<k8s::ApiBackend>(*client, *loop, bopt);
    backend->start();
    view = backend.get();
    fw::RealTimeLoop* lp = loop.get();
    exec = [lp](const std::function<void()>& fn) {
      std::promise<void> done;
      lp->post([&] {
        fn();
        done.set_value();
      });
      done.get_future().wait();
    };
    loop_thread = std::thread([lp] { lp->run(); });
  }
  int code = 0;
  {
    const fw::PluginRegistry plugins = policies::plugin_catalog();
    k8s::Extender ext(config, plugins, f.profile, view, exec, client.get());
    code = k8s::serve_extender(ext, extender_options(f), nullptr, nullptr);
  }
  if (loop) {
    client->interrupt();
    loop->post([lp = loop.get()] { lp->stop(); });
    loop_thread.join();
    backend->stop(true);
  }
  return code;
}

// --policy NAME (kube-default unless given): a policy of the catalog on the live cluster. It takes
// the pods of --config's profiles or, without --config, of --scheduler-name (its built-in profiles
// are renamed: serve never takes the default scheduler's pods). --policy-args FILE: the policy's
// args as a YAML map, as under `scheduler: {policy: NAME, args: ...}` in a scenario (e.g. CARICO's
// `carico: {aggregator: HOST:PORT, ca_file: ...}`).
yaml::Ctx policy_args(const ServeFlags& f) {
  YAML::Node args(YAML::NodeType::Map);
  std::string source = "--policy " + f.policy;
  if (!f.policy_args.empty()) {
    args = yaml::parse_document(read_text_file(f.policy_args), f.policy_args);
    source = f.policy_args;
    const yaml::Ctx c{source, args, "args", 1, 0};
    c.expect_map();
    yaml::check_unique_keys(c);
  }
  if (args.size() == 0) return {};
  return yaml::Ctx{source, args, "args", 1, 0};
}

void set_policy(const ServeFlags& f, k8s::ServeOptions& o) {
  const fw::PolicyRegistry registry = policies::catalog();
  if (!registry.has(f.policy)) throw InputError("--policy: " + registry.unknown(f.policy));
  o.policy = f.policy;
  o.policy_args = policy_args(f);
  if (f.scheduler_name == "default-scheduler")
    throw InputError(
        "--scheduler-name default-scheduler: orrery serve does not take the default scheduler's "
        "pods; name it after your pods' schedulerName");
  o.policy_factory = [registry](fw::PolicyContext& ctx) { return registry.create(ctx.name, ctx); };
  if (f.config.empty()) return;
  const fw::SchedulerConfig config = fw::load_scheduler_config(f.config);
  for (const auto& p : config.profiles)
    if (p.scheduler_name == "default-scheduler")
      throw InputError(f.config +
                       ": profile default-scheduler: orrery serve does not take the "
                       "default scheduler's pods; name the profile after your pods' schedulerName");
  // kube-scheduler's profiles with the catalog's plugins: a bad configuration fails now, before
  // any connection, not when this replica first leads (other policies add plugins of their own
  // and check their configuration when they start). Its warnings are logged when it starts.
  if (f.policy == "kube-default" || f.policy == "kube-binpack") {
    std::vector<std::string> later;
    plugins::build_profiles(config, policies::plugin_catalog(), &later);
  }
}

int run_serve_command(const ServeFlags& f) {
  obs::set_log_level(obs::parse_level(f.log_level));
  block_signals();
  if (f.extender) return run_extender(f);
  k8s::ServeOptions o;
  o.cluster = cluster_config(f.kubeconfig, f.context, f.in_cluster);
  o.config_path = f.config;
  o.scheduler_name = f.scheduler_name;
  o.leader_elect = f.leader_elect;
  o.election.lease_namespace = f.lease_namespace;
  o.election.lease_name = f.lease_name;
  o.election.identity = f.identity.empty() ? k8s::default_identity() : f.identity;
  o.journal_namespace = f.journal_namespace.empty() ? f.lease_namespace : f.journal_namespace;
  o.journal_name = f.journal_name.empty() ? f.lease_name + "-journal" : f.journal_name;
  o.election.lease_duration_ms = to_ms(f.lease_duration, "--lease-duration");
  o.election.renew_deadline_ms = to_ms(f.renew_deadline, "--renew-deadline");
  o.election.retry_period_ms = to_ms(f.retry_period, "--retry-period");
  if (o.election.renew_deadline_ms >= o.election.lease_duration_ms)
    throw InputError("--renew-deadline must be shorter than --lease-duration");
  if (o.election.retry_period_ms >= o.election.renew_deadline_ms)
    throw InputError("--retry-period must be shorter than --renew-deadline");
  o.metrics_listen = f.metrics_listen;
  o.backoff.initial_ms = f.backoff_initial_ms;
  o.backoff.max_ms = f.backoff_max_ms;
  o.backoff.watch_timeout_s = f.watch_timeout_s;
  o.seed = f.seed;
  set_policy(f, o);
  return k8s::run_serve(o);
}

int run_snapshot(const std::string& kubeconfig, const std::string& context, bool in_cluster,
                 const std::string& out) {
  k8s::ClientOptions co;
  k8s::ApiClient client(cluster_config(kubeconfig, context, in_cluster), co);
  nlohmann::json items = nlohmann::json::array();
  struct Source {
    k8s::ApiCall call;
    std::string path, kind, api_version;
  };
  const Source sources[] = {
      {k8s::ApiCall::kListPriorityClasses, "/apis/scheduling.k8s.io/v1/priorityclasses",
       "PriorityClass", "scheduling.k8s.io/v1"},
      {k8s::ApiCall::kListNodes, "/api/v1/nodes", "Node", "v1"},
      {k8s::ApiCall::kListPods,
       "/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed", "Pod",
       "v1"}};
  for (const Source& s : sources) {
    std::string cont;
    do {
      std::string path = s.path + (s.path.find('?') == std::string::npos ? "?" : "&") + "limit=500";
      if (!cont.empty()) path += "&continue=" + cont;
      k8s::Response r = client.get(s.call, path);
      if (!r.ok())
        throw InputError("cannot list " + s.kind + "s from " + client.config().server + ": " +
                         r.describe());
      nlohmann::json page = nlohmann::json::parse(r.body, nullptr, false);
      if (!page.is_object() || !page.contains("items"))
        throw InputError("the server returned a malformed " + s.kind + " list");
      if (page["items"].is_array())
        for (auto& it : page["items"])
          items.push_back(k8s::strip_for_snapshot(it, s.kind, s.api_version));
      cont = page["metadata"].value("continue", "");
      std::string esc;
      for (char c : cont) {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') {
          esc += c;
        } else {
          char buf[4];
          std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
          esc += buf;
        }
      }
      cont = esc;
    } while (!cont.empty());
  }
  nlohmann::json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
  const std::string text = list.dump(1) + "\n";
  // Check that it reads back as orrery schedule will read it before writing it.
  K8sObjects objs = parse_k8s_objects(text, out);
  write_file_atomic(out, text);
  std::fprintf(stderr, "orrery: wrote %s: %zu node(s), %zu pod(s), %zu PriorityClass(es)\n",
               out.c_str(), objs.nodes.size(), objs.pods.size(), objs.priority_classes.size());
  return 0;
}

}  // namespace

void register_serve(CLI::App& root, CommandTable& table) {
  auto f = std::make_shared<ServeFlags>();
  CLI::App* s = root.add_subcommand(
      "serve", "Schedule pods of a real cluster (secondary scheduler), or serve as an extender");
  s->add_option("--kubeconfig", f->kubeconfig, "kubeconfig file");
  s->add_flag("--in-cluster", f->in_cluster, "Use the pod's service account");
  s->add_option("--context", f->context, "kubeconfig context (default: current-context)");
  s->add_option("--config", f->config, "KubeSchedulerConfiguration file");
  s->add_option("--scheduler-name", f->scheduler_name,
                "Profile name without --config (pods with this spec.schedulerName)");
  s->add_flag("--leader-elect", f->leader_elect, "Elect a leader on a Lease before binding");
  s->add_option("--lease-namespace", f->lease_namespace, "Namespace of the Lease");
  s->add_option("--lease-name", f->lease_name, "Name of the Lease");
  s->add_option("--lease-duration", f->lease_duration, "Lease duration, seconds (15)");
  s->add_option("--journal-namespace", f->journal_namespace,
                "Namespace of the plan journal ConfigMap (default: --lease-namespace)");
  s->add_option("--journal-name", f->journal_name,
                "Name of the plan journal ConfigMap, where replacements of evicted pods are "
                "recorded before the eviction (default: <lease-name>-journal)");
  s->add_option("--renew-deadline", f->renew_deadline, "Renew deadline, seconds (10)");
  s->add_option("--retry-period", f->retry_period, "Retry period, seconds (2)");
  s->add_option("--identity", f->identity, "Leader election identity (default hostname_random)");
  s->add_option("--metrics-listen", f->metrics_listen, "Address of /healthz, /readyz, /metrics");
  s->add_option("--backoff-initial-ms", f->backoff_initial_ms, "First reconnect backoff (800 ms)");
  s->add_option("--backoff-max-ms", f->backoff_max_ms, "Largest reconnect backoff (30000 ms)");
  s->add_option("--watch-timeout", f->watch_timeout_s, "Minimum watch timeoutSeconds (300)");
  s->add_option("--log-level", f->log_level, "debug, info, warn or error");
  s->add_option("--policy", f->policy,
                "The catalog policy to run (kube-default: the per-pod scheduler with --config's "
                "profiles; kubedsm, kube-optpack: plans executed as API calls; carico, kubcg, "
                "...)");
  s->add_option("--policy-args", f->policy_args,
                "With --policy: a YAML file of the policy's args (CARICO: carico: {aggregator: "
                "HOST:PORT, ca_file: F, ...})");
  s->add_option("--seed", f->seed, "Seed of the scheduler's random choices (tie-breaks; 0)");
  s->add_flag("--extender", f->extender, "Serve the kube-scheduler extender verbs");
  s->add_option("--listen", f->listen, "Extender address HOST:PORT");
  s->add_option("--url-prefix", f->url_prefix, "Extender URL prefix");
  s->add_option("--profile", f->profile, "Extender profile (schedulerName in --config)");
  s->add_option("--cluster", f->cluster, "Extender cluster view for NodeNames: a snapshot file");
  s->add_option("--tls-cert-file", f->tls_cert, "Extender: serve HTTPS with this PEM certificate");
  s->add_option("--tls-private-key-file", f->tls_key, "Extender: its PEM private key");
  s->add_option("--client-ca-file", f->client_ca,
                "Extender: require client certificates signed by this CA (mutual TLS)");
  s->add_flag("--insecure", f->insecure,
              "Extender: allow plain HTTP on a non-loopback --listen address");
  s->add_option("--max-request-bytes", f->max_request_bytes,
                "Extender: largest request body (64 MiB); larger ones get 413");
  s->add_option("--request-timeout", f->request_timeout_s,
                "Extender: seconds a read or write may stall before the connection is closed (10)");
  s->add_option("--idle-timeout", f->idle_timeout_s, "Extender: keep-alive idle seconds (5)");
  table.push_back({s, [f] { return run_serve_command(*f); }});

  auto snap = std::make_shared<std::tuple<std::string, std::string, bool, std::string>>();
  CLI::App* c = root.add_subcommand("snapshot", "Write a live cluster as a snapshot file");
  c->add_option("--kubeconfig", std::get<0>(*snap), "kubeconfig file");
  c->add_option("--context", std::get<1>(*snap), "kubeconfig context");
  c->add_flag("--in-cluster", std::get<2>(*snap), "Use the pod's service account");
  c->add_option("--out", std::get<3>(*snap), "Output file (YAML; written as JSON, a YAML subset)")
      ->required();
  table.push_back({c, [snap] {
                     return run_snapshot(std::get<0>(*snap), std::get<1>(*snap), std::get<2>(*snap),
                                         std::get<3>(*snap));
                   }});
}

}  // namespace orrery::cli
