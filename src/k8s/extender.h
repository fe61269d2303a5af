// The kube-scheduler extender (k8s.io/kube-scheduler/extender/v1) over orrery's profiles:
// filter, prioritize, preempt and bind as JSON-over-HTTP verbs.
//
// Wire format: upstream's structs have no JSON tags, so keys are the Go field names
// (ExtenderArgs{Pod, Nodes, NodeNames}, ExtenderFilterResult{Nodes, NodeNames, FailedNodes,
// FailedAndUnresolvableNodes, Error}, HostPriorityList = [{Host, Score}], ExtenderBindingArgs
// {PodName, PodNamespace, PodUID, Node}, ExtenderBindingResult{Error},
// ExtenderPreemptionArgs{Pod, NodeNameToVictims, NodeNameToMetaVictims},
// ExtenderPreemptionResult{NodeNameToMetaVictims}). We emit exactly those and accept any letter
// case (Go's encoding/json matches case-insensitively); null lists are empty lists. The Pod and
// Node objects inside are ordinary v1 objects.
//
// nodeCacheCapable: false — the request carries Nodes (a v1 NodeList); they are kept in a node
// cache of their own (re-parsed only when an object changes), without pods.
// nodeCacheCapable: true — the request carries NodeNames; nodes and their pods come from the
// cluster view: a snapshot file (--cluster) or an ApiBackend's informers (--kubeconfig).
//
// Scores: HostPriorityList scores are 0..10 (extender/v1 MaxExtenderPriority): the profile's
// weighted total scaled so the best node gets 10.
// Requests are serialized through `exec` (the cluster view is single-threaded).
//
// Hot path (bench/extender_bench, docs/PERFORMANCE.md): the probe pod is parsed once per pod
// object (filter and prioritize send the same one), evaluation skips per-plugin score details,
// replies are written as text, and in Nodes mode an unchanged node object (same hash of its JSON
// value) is neither re-parsed nor re-serialised.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/backend.h"
#include "framework/config.h"
#include "framework/registry.h"
#include "framework/scheduler.h"
#include "k8s/client.h"
#include "net/server_options.h"

namespace orrery::k8s {

struct ExtenderReply {
  int status = 200;
  std::string body;
};

class Extender {
 public:
  // `cluster`: the view for NodeNames requests (null: NodeNames are refused); `exec` runs a
  // function with exclusive access to it (on its loop thread for an informer view). `binder`:
  // the API client for the bind verb (null: bind answers an Error).
  // `plugins`: the plugins the configuration may name (outlives the extender).
  Extender(const fw::SchedulerConfig& config, const fw::PluginRegistry& plugins,
           const std::string& profile, fw::ClusterBackend* cluster,
           std::function<void(const std::function<void()>&)> exec, ApiClient* binder);
  ~Extender();

  ExtenderReply filter(const std::string& body);
  ExtenderReply prioritize(const std::string& body);
  ExtenderReply preempt(const std::string& body);
  ExtenderReply bind(const std::string& body);
  const std::string& scheduler_name() const { return scheduler_name_; }

 private:
  struct Evaluation;
  struct SentNode;
  struct Args;
  struct CachedPod {
    size_t hash;
    nlohmann::json source;
    Pod pod;
  };
  static constexpr size_t kPodCacheSize = 8;
  // Parses args and evaluates the pod on the requested nodes.
  static Args parse_args(std::string_view body);
  Evaluation evaluate(const Args& args);
  Pod probe_pod(const nlohmann::json& pod_json);
  void refresh_sent_nodes(const std::vector<std::string_view>& items, Evaluation& ev);
  fw::Scheduler& scheduler_for(fw::ClusterBackend& b);

  fw::SchedulerConfig config_;
  const fw::PluginRegistry& plugins_;
  std::string scheduler_name_;
  fw::ClusterBackend* cluster_;
  std::function<void(const std::function<void()>&)> exec_;
  ApiClient* binder_;
  std::unique_ptr<fw::SnapshotBackend> sent_nodes_;       // the Nodes-mode cache
  std::unordered_map<std::string, SentNode> sent_;        // by name: the text last sent, its hash
  std::unordered_map<size_t, std::string> sent_by_hash_;  // text hash → node name
  std::unique_ptr<fw::Scheduler> cluster_scheduler_, sent_scheduler_;
  std::mutex sent_mu_;  // the Nodes-mode cache, by_node_, probe_counter_
  uint64_t probe_counter_ = 0;
  std::vector<const fw::NodeEvaluation*> by_node_;  // scratch: NodeId → its evaluation
  std::mutex pods_mu_;
  std::vector<CachedPod> pod_cache_;  // the last few pods, oldest first
};

// Serves the verbs at {prefix}/filter, /prioritize, /preempt, /bind until *stop or a signal;
// `ready` is called with the bound port. Malformed JSON → 400 with {"Error": "..."}; a body
// larger than limits.max_body_bytes → 413. HTTPS when tls is given (mutual TLS with a client
// CA); plaintext only on loopback or with `insecure` (net/transport_security.h).
struct ExtenderServeOptions {
  std::string listen;
  std::string url_prefix;
  int threads = 16;  // connections served at once (overrides limits.threads)
  net::ServerTls tls{};
  bool insecure = false;
  net::HttpLimits limits = default_extender_limits();
  static net::HttpLimits default_extender_limits() {
    net::HttpLimits l;
    l.max_body_bytes = 64u << 20;  // a NodeList of 5,000 nodes is about 20 MiB
    l.read_timeout_s = 10;
    l.write_timeout_s = 10;
    l.idle_timeout_s = 5;
    l.keep_alive_max = 1000;
    l.max_queued = 256;
    return l;
  }
};
int serve_extender(Extender& ext, const ExtenderServeOptions& opt,
                   const std::function<void(int port)>& ready, const std::atomic<bool>* stop);

}  // namespace orrery::k8s
