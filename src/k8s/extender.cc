#include "k8s/extender.h"

#include <httplib.h>
#include <signal.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <thread>

#include "core/error.h"
#include "k8s/objects.h"
#include "k8s/profiles.h"
#include "k8s/serve.h"
#include "net/http_server.h"
#include "net/transport_security.h"
#include "obs/log.h"

namespace orrery::k8s {

using nlohmann::json;

namespace {

class BadRequest : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// A field of an extender struct, matched case-insensitively as Go's encoding/json does; null
// when absent or null.
const json& field(const json& obj, std::string_view name) {
  static const json null_value;
  if (!obj.is_object()) return null_value;
  if (auto it = obj.find(std::string(name)); it != obj.end()) return *it;
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (iequals(it.key(), name)) return it.value();
  return null_value;
}

json parse_body(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded()) throw BadRequest("malformed JSON request body");
  if (!j.is_object()) throw BadRequest("expected a JSON object");
  return j;
}

// Reasons a preemption cannot fix (upstream's UnschedulableAndUnresolvable plugins' messages).
bool unresolvable(const std::string& reason) {
  for (const char* s : {"didn't match Pod's node affinity/selector", "untolerated taint",
                        "were unschedulable", "didn't match the requested node name",
                        "node(s) didn't satisfy plugin(s)"})
    if (reason.find(s) != std::string::npos) return true;
  return false;
}

ExtenderReply reply(int status, const json& body) { return {status, body.dump()}; }

}  // namespace

struct Extender::Evaluation {
  std::vector<std::string> names;            // requested, in order
  std::vector<json> node_objects;            // Nodes mode: the items, parallel to names
  bool names_mode = false;
  std::vector<int8_t> feasible;              // per name: 1 feasible, 0 not, -1 unknown node
  std::vector<std::string> reasons;          // per name
  std::vector<int64_t> totals;               // per name
};

Extender::Extender(const fw::SchedulerConfig& config, const std::string& profile,
                   fw::ClusterBackend* cluster,
                   std::function<void(const std::function<void()>&)> exec, ApiClient* binder)
    : config_(config), cluster_(cluster), exec_(std::move(exec)), binder_(binder) {
  if (config_.profiles.empty()) throw InputError("the configuration has no profiles");
  scheduler_name_ = config_.profiles.front().scheduler_name;
  if (!profile.empty()) {
    auto it = std::find_if(config_.profiles.begin(), config_.profiles.end(),
                           [&](const auto& p) { return p.scheduler_name == profile; });
    if (it == config_.profiles.end())
      throw InputError("--profile: no profile named \"" + profile + "\" in the configuration");
    scheduler_name_ = profile;
  }
  sent_nodes_ = std::make_unique<fw::SnapshotBackend>(ClusterState{});
}

Extender::~Extender() {
  if (cluster_scheduler_) exec_([&] { cluster_scheduler_.reset(); });
}

fw::Scheduler& Extender::scheduler_for(fw::ClusterBackend& b) {
  auto& slot = &b == cluster_ ? cluster_scheduler_ : sent_scheduler_;
  if (!slot) slot = std::make_unique<fw::Scheduler>(b, build_serve_profiles(config_));
  return *slot;
}

Extender::Evaluation Extender::evaluate(const json& args) {
  Evaluation ev;
  const json& pod_json = field(args, "Pod");
  if (!pod_json.is_object()) throw BadRequest("Pod: expected a v1 Pod object");
  const json& nodes = field(args, "Nodes");
  const json& names = field(args, "NodeNames");
  if (!nodes.is_null()) {
    const json& items = field(nodes, "items");
    if (!items.is_null() && !items.is_array()) throw BadRequest("Nodes.items: expected a list");
    if (items.is_array())
      for (const json& n : items) {
        ev.names.push_back(object_key(n, false));
        ev.node_objects.push_back(n);
      }
  } else if (!names.is_null()) {
    if (!names.is_array()) throw BadRequest("NodeNames: expected a list of names");
    ev.names_mode = true;
    for (const json& n : names) {
      if (!n.is_string()) throw BadRequest("NodeNames: expected strings");
      ev.names.push_back(n.get<std::string>());
    }
  }
  Pod pod;
  try {
    pod = pod_from_json(pod_json, PriorityClasses{});
  } catch (const InputError& e) {
    throw BadRequest(std::string("Pod: ") + e.what());
  }
  auto spec = std::make_shared<PodSpec>(*pod.spec);
  spec->scheduler_name = intern(scheduler_name_);
  spec->finalize();
  pod.spec = spec;
  pod.name += "~extender-" + std::to_string(++probe_counter_);
  pod.node_name.clear();
  pod.phase = PodPhase::kPending;
  pod.uid.clear();

  auto run = [&](fw::ClusterBackend& b) {
    ClusterState& st = b.state();
    if (!ev.names_mode) {  // refresh the node cache from the objects sent
      for (const json& n : ev.node_objects) {
        const std::string name = object_key(n, false);
        const uint64_t h = scheduling_hash(n, false);
        auto known = st.find_node(name);
        if (known && sent_hash_[name] == h) continue;
        Node node;
        try {
          node = node_from_json(n);
        } catch (const InputError& e) {
          throw BadRequest(std::string("Nodes: ") + e.what());
        }
        sent_hash_[name] = h;
        if (known) {
          st.update_node(*known, std::move(node));
        } else {
          st.add_node(std::move(node));
        }
      }
    }
    fw::Scheduler& sched = scheduler_for(b);
    const PodId id = st.add_pod(pod);
    std::vector<fw::NodeEvaluation> evals;
    try {
      evals = sched.evaluate(id);
    } catch (...) {
      st.remove_pod(id);
      throw;
    }
    st.remove_pod(id);
    std::unordered_map<NodeId, const fw::NodeEvaluation*> by_node;
    for (const auto& e : evals) by_node[e.node] = &e;
    for (const std::string& name : ev.names) {
      auto n = st.find_node(name);
      const fw::NodeEvaluation* e = n ? by_node[*n] : nullptr;
      if (!e) {
        ev.feasible.push_back(-1);
        ev.reasons.push_back("node \"" + name + "\" is not in the extender's cluster view");
        ev.totals.push_back(0);
        continue;
      }
      ev.feasible.push_back(e->feasible ? 1 : 0);
      std::string why;
      for (const auto& r : e->reasons) why += (why.empty() ? "" : ", ") + r;
      ev.reasons.push_back(why);
      ev.totals.push_back(e->total);
    }
  };
  if (ev.names_mode) {
    if (!cluster_)
      throw BadRequest("NodeNames given, but the extender has no cluster view (start it with "
                       "--cluster SNAPSHOT or --kubeconfig, or set nodeCacheCapable: false)");
    std::exception_ptr err;
    exec_([&] {
      try {
        run(*cluster_);
      } catch (...) {
        err = std::current_exception();
      }
    });
    if (err) std::rethrow_exception(err);
  } else {
    std::lock_guard<std::mutex> lock(sent_mu_);
    run(*sent_nodes_);
  }
  return ev;
}

ExtenderReply Extender::filter(const std::string& body) {
  try {
    const Evaluation ev = evaluate(parse_body(body));
    json out = {{"Nodes", nullptr}, {"NodeNames", nullptr}, {"FailedNodes", json::object()},
                {"FailedAndUnresolvableNodes", json::object()}, {"Error", ""}};
    json kept = json::array();
    for (size_t i = 0; i < ev.names.size(); ++i) {
      if (ev.feasible[i] == 1) {
        kept.push_back(ev.names_mode ? json(ev.names[i]) : ev.node_objects[i]);
      } else if (ev.feasible[i] == -1 || unresolvable(ev.reasons[i])) {
        out["FailedAndUnresolvableNodes"][ev.names[i]] = ev.reasons[i];
      } else {
        out["FailedNodes"][ev.names[i]] = ev.reasons[i];
      }
    }
    if (ev.names_mode) {
      out["NodeNames"] = kept;
    } else {
      out["Nodes"] = {{"apiVersion", "v1"}, {"kind", "NodeList"}, {"metadata", json::object()},
                      {"items", kept}};
    }
    return reply(200, out);
  } catch (const BadRequest& e) {
    return reply(400, {{"Error", e.what()}});
  } catch (const std::exception& e) {
    return reply(200, {{"Nodes", nullptr}, {"NodeNames", nullptr}, {"FailedNodes", json::object()},
                       {"FailedAndUnresolvableNodes", json::object()}, {"Error", e.what()}});
  }
}

ExtenderReply Extender::prioritize(const std::string& body) {
  try {
    const Evaluation ev = evaluate(parse_body(body));
    int64_t top = 0;
    for (size_t i = 0; i < ev.names.size(); ++i)
      if (ev.feasible[i] == 1) top = std::max(top, ev.totals[i]);
    json out = json::array();
    for (size_t i = 0; i < ev.names.size(); ++i) {
      const int64_t score = ev.feasible[i] == 1 && top > 0 ? ev.totals[i] * 10 / top : 0;
      out.push_back({{"Host", ev.names[i]}, {"Score", score}});
    }
    return reply(200, out);
  } catch (const BadRequest& e) {
    return reply(400, {{"Error", e.what()}});
  } catch (const std::exception& e) {
    return reply(500, {{"Error", e.what()}});
  }
}

ExtenderReply Extender::preempt(const std::string& body) {
  try {
    const json args = parse_body(body);
    const json& pod_json = field(args, "Pod");
    // Candidate nodes and their victims' UIDs, from either map.
    std::map<std::string, std::pair<std::vector<std::string>, int64_t>> candidates;
    for (const char* key : {"NodeNameToMetaVictims", "NodeNameToVictims"}) {
      const json& m = field(args, key);
      if (m.is_null()) continue;
      if (!m.is_object()) throw BadRequest(std::string(key) + ": expected an object");
      for (auto it = m.begin(); it != m.end(); ++it) {
        auto& c = candidates[it.key()];
        const json& pods = field(it.value(), "Pods");
        if (pods.is_array()) {
          for (const json& p : pods) {
            std::string uid = field(p, "UID").is_string() ? field(p, "UID").get<std::string>() : "";
            if (uid.empty()) uid = object_uid(p);
            if (!uid.empty()) c.first.push_back(uid);
          }
        }
        const json& pdb = field(it.value(), "NumPDBViolations");
        if (pdb.is_number_integer()) c.second = pdb.get<int64_t>();
      }
    }
    json result = {{"NodeNameToMetaVictims", json::object()}};
    if (candidates.empty()) return reply(200, result);
    // The pod must fit on the node once its victims are gone: evaluate with them unassigned.
    json names = json::array();
    for (const auto& [n, c] : candidates) names.push_back(n);
    std::vector<std::pair<PodId, NodeId>> lifted;
    auto lift = [&](bool on) {
      if (!cluster_) return;
      exec_([&] {
        ClusterState& st = cluster_->state();
        if (on) {
          std::set<std::string> uids;
          for (const auto& [n, c] : candidates) uids.insert(c.first.begin(), c.first.end());
          for (PodId p : st.pods())
            if (uids.count(st.pod(p).uid) && st.pod_node(p) != kNoNode) {
              lifted.emplace_back(p, st.pod_node(p));
              st.unassign(p);
            }
        } else {
          for (auto [p, n] : lifted) st.assign(p, n);
        }
      });
    };
    Evaluation ev;
    if (cluster_) {
      lift(true);
      try {
        ev = evaluate({{"Pod", pod_json}, {"NodeNames", names}});
      } catch (...) {
        lift(false);
        throw;
      }
      lift(false);
    } else {
      ev.names = names.get<std::vector<std::string>>();
      ev.feasible.assign(ev.names.size(), 1);  // no view of the victims: trust the scheduler
    }
    for (size_t i = 0; i < ev.names.size(); ++i) {
      if (ev.feasible[i] != 1) continue;
      const auto& c = candidates[ev.names[i]];
      json pods = json::array();
      for (const auto& uid : c.first) pods.push_back({{"UID", uid}});
      result["NodeNameToMetaVictims"][ev.names[i]] = {{"Pods", pods}, {"NumPDBViolations", c.second}};
    }
    return reply(200, result);
  } catch (const BadRequest& e) {
    return reply(400, {{"Error", e.what()}});
  } catch (const std::exception& e) {
    return reply(500, {{"Error", e.what()}});
  }
}

ExtenderReply Extender::bind(const std::string& body) {
  try {
    const json args = parse_body(body);
    auto str = [&](const char* k) {
      const json& v = field(args, k);
      if (!v.is_string() || v.get<std::string>().empty())
        throw BadRequest(std::string(k) + ": expected a non-empty string");
      return v.get<std::string>();
    };
    const std::string name = str("PodName"), ns = str("PodNamespace"), node = str("Node");
    const std::string uid = field(args, "PodUID").is_string() ? field(args, "PodUID").get<std::string>() : "";
    if (!binder_) return reply(200, {{"Error", "the bind verb needs --kubeconfig or --in-cluster"}});
    json b = {{"apiVersion", "v1"},
              {"kind", "Binding"},
              {"metadata", {{"name", name}, {"namespace", ns}}},
              {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
    if (!uid.empty()) b["metadata"]["uid"] = uid;
    Response r = binder_->post(ApiCall::kBindPod,
                               "/api/v1/namespaces/" + ns + "/pods/" + name + "/binding", b.dump());
    return reply(200, {{"Error", r.ok() ? "" : r.describe()}});
  } catch (const BadRequest& e) {
    return reply(400, {{"Error", e.what()}});
  }
}

namespace {

// cpp-httplib 0.11 listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, compiled into
// Debian's library): find our listening socket and raise it, so a burst of concurrent clients is
// queued by the kernel instead of waiting for SYN retransmissions.
void raise_backlog(int port) {
  for (int fd = 3; fd < 4096; ++fd) {
    int listening = 0;
    socklen_t len = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening) continue;
    sockaddr_storage addr{};
    socklen_t alen = sizeof addr;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &alen) != 0) continue;
    int p = 0;
    if (addr.ss_family == AF_INET) p = ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
    if (addr.ss_family == AF_INET6) p = ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
    if (p == port) ::listen(fd, SOMAXCONN);
  }
}

}  // namespace

int serve_extender(Extender& ext, const ExtenderServeOptions& opt,
                   const std::function<void(int)>& ready, const std::atomic<bool>* stop) {
  auto [host, port] = parse_listen(opt.listen, "--listen");
  std::string prefix = opt.url_prefix;
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (!prefix.empty() && prefix.front() != '/') prefix = "/" + prefix;
  net::check_server_plaintext("extender", "--listen", host, opt.tls.enabled(), opt.insecure);
  net::HttpLimits limits = opt.limits;
  limits.threads = opt.threads;
  std::unique_ptr<httplib::Server> owned = net::make_http_server(opt.tls, limits);
  httplib::Server& server = *owned;
  server.set_tcp_nodelay(true);  // small JSON replies: no Nagle/delayed-ACK stalls
  auto verb = [&](const std::string& name, ExtenderReply (Extender::*fn)(const std::string&)) {
    server.Post(prefix + "/" + name, [&ext, fn](const httplib::Request& req, httplib::Response& res) {
      ExtenderReply r = (ext.*fn)(req.body);
      res.status = r.status;
      res.set_content(r.body, "application/json");
    });
  };
  verb("filter", &Extender::filter);
  verb("prioritize", &Extender::prioritize);
  verb("preempt", &Extender::preempt);
  verb("bind", &Extender::bind);
  server.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok", "text/plain");
  });
  const int bound = port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
  if (bound < 0) throw InputError("--listen: cannot listen on " + opt.listen);
  raise_backlog(bound);
  obs::info("extender listening", {{"address", host + ":" + std::to_string(bound)},
                                   {"prefix", prefix},
                                   {"profile", ext.scheduler_name()},
                                   {"tls", !opt.tls.enabled()               ? "off"
                                           : opt.tls.client_ca_file.empty() ? "on"
                                                                            : "mutual"}});
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread t([&] { server.listen_after_bind(); });
  if (ready) ready(bound);
  while (!(stop && stop->load())) {
    timespec ts{0, 100 * 1000 * 1000};
    const int sig = sigtimedwait(&set, nullptr, &ts);
    if (sig == SIGTERM || sig == SIGINT) break;
  }
  obs::info("extender stopping");
  server.stop();
  t.join();
  return 0;
}

}  // namespace orrery::k8s
