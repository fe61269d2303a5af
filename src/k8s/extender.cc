#include "k8s/extender.h"

#include <httplib.h>
#include <signal.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <thread>

#include "core/error.h"
#include "io/json_items.h"
#include "k8s/objects.h"
#include "k8s/serve.h"
#include "net/http_server.h"
#include "net/transport_security.h"
#include "obs/log.h"
#include "plugins/register.h"

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
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
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
  for (const char* s :
       {"didn't match Pod's node affinity/selector", "untolerated taint", "were unschedulable",
        "didn't match the requested node name", "node(s) didn't satisfy plugin(s)"})
    if (reason.find(s) != std::string::npos) return true;
  return false;
}

// Error texts may quote the request's bytes, which need not be UTF-8: those are replaced (U+FFFD)
// rather than thrown about (the fuzzer's find: a 400 reply aborted the process).
ExtenderReply reply(int status, const json& body) {
  return {status, body.dump(-1, ' ', false, json::error_handler_t::replace)};
}

// Appends `s` as a JSON string. Node names are DNS labels, so the common case copies the bytes;
// anything that needs escaping goes through nlohmann's serializer.
void append_string(std::string& out, std::string_view s) {
  for (char c : s) {
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20 ||
        static_cast<unsigned char>(c) >= 0x80) {
      out += json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
      return;
    }
  }
  out += '"';
  out += s;
  out += '"';
}

// {"name": "reason", ...}
void append_reasons(std::string& out,
                    const std::vector<std::pair<std::string_view, std::string_view>>& m) {
  out += '{';
  for (size_t i = 0; i < m.size(); ++i) {
    if (i) out += ',';
    append_string(out, m[i].first);
    out += ':';
    append_string(out, m[i].second);
  }
  out += '}';
}

}  // namespace

struct Extender::Evaluation {
  std::vector<std::string> names;  // requested, in order
  // Nodes mode: each item's text as sent (from the node cache), parallel to names.
  std::vector<std::shared_ptr<const std::string>> node_texts;
  bool names_mode = false;
  std::vector<int8_t> feasible;      // per name: 1 feasible, 0 not, -1 unknown node
  std::vector<std::string> reasons;  // per name
  std::vector<int64_t> totals;       // per name
};

struct Extender::SentNode {
  size_t hash = 0;
  std::shared_ptr<const std::string> text;
};

// ExtenderArgs as found in the body by the scanner (io/json_items.h, which checks the whole
// body's grammar): only the Pod, the NodeNames and the node objects that changed are parsed.
struct Extender::Args {
  json pod;
  bool has_nodes = false, has_names = false;
  std::vector<std::string> names;
  std::vector<std::string_view> node_items;  // Nodes.items, as text
};

namespace {

// The member named `name`, matched as Go's encoding/json does (an exact match first, then any
// letter case); nullptr when absent or null.
const orrery::json::Member* member(std::string_view text,
                                   const std::vector<orrery::json::Member>& ms,
                                   std::string_view name) {
  const orrery::json::Member* found = nullptr;
  for (const auto& m : ms) {
    if (m.plain && m.key == name) {
      found = &m;
      break;
    }
    if (!found && m.plain && iequals(m.key, name)) found = &m;
  }
  if (found && text.substr(found->value.begin, found->value.end - found->value.begin) == "null")
    return nullptr;
  return found;
}

std::string_view slice(std::string_view text, const orrery::json::Span& s) {
  return text.substr(s.begin, s.end - s.begin);
}

}  // namespace

Extender::Args Extender::parse_args(std::string_view body) {
  Args a;
  try {
    auto top = orrery::json::object_members(body);
    if (!top) throw BadRequest("expected a JSON object");
    const auto* pod = member(body, *top, "Pod");
    if (!pod) throw BadRequest("Pod: expected a v1 Pod object");
    a.pod = json::parse(slice(body, pod->value));
    if (!a.pod.is_object()) throw BadRequest("Pod: expected a v1 Pod object");
    if (const auto* nodes = member(body, *top, "Nodes")) {
      a.has_nodes = true;
      const std::string_view list = slice(body, nodes->value);
      auto ms = orrery::json::object_members(list);
      if (!ms) throw BadRequest("Nodes: expected a v1 NodeList object");
      if (const auto* items = member(list, *ms, "items")) {
        const std::string_view arr = slice(list, items->value);
        auto spans = orrery::json::array_elements(arr);
        if (!spans) throw BadRequest("Nodes.items: expected a list");
        a.node_items.reserve(spans->size());
        for (const auto& sp : *spans) a.node_items.push_back(slice(arr, sp));
      }
    } else if (const auto* names = member(body, *top, "NodeNames")) {
      a.has_names = true;
      const json list = json::parse(slice(body, names->value));
      if (!list.is_array()) throw BadRequest("NodeNames: expected a list of names");
      a.names.reserve(list.size());
      for (const json& n : list) {
        if (!n.is_string()) throw BadRequest("NodeNames: expected strings");
        a.names.push_back(n.get<std::string>());
      }
    }
  } catch (const orrery::json::SyntaxError& e) {
    throw BadRequest("malformed JSON request body: line " + std::to_string(e.line) + ": " +
                     e.what());
  } catch (const json::exception& e) {
    throw BadRequest(std::string("malformed JSON request body: ") + e.what());
  }
  return a;
}

Extender::Extender(const fw::SchedulerConfig& config, const fw::PluginRegistry& plugins,
                   const std::string& profile, fw::ClusterBackend* cluster,
                   std::function<void(const std::function<void()>&)> exec, ApiClient* binder)
    : config_(config),
      plugins_(plugins),
      cluster_(cluster),
      exec_(std::move(exec)),
      binder_(binder) {
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
  if (!slot) {
    std::vector<std::string> warnings;
    auto profiles = plugins::build_profiles(config_, plugins_, &warnings);
    for (const auto& w : warnings) obs::warn(w);
    slot = std::make_unique<fw::Scheduler>(b, std::move(profiles));
  }
  return *slot;
}

// kube-scheduler sends the same pod to filter, then prioritize (and again on each retry): the
// parsed pod is kept for a few recent pod objects, keyed by the object's hash and compared in full.
Pod Extender::probe_pod(const json& pod_json) {
  const size_t h = std::hash<json>{}(pod_json);
  {
    std::lock_guard<std::mutex> lock(pods_mu_);
    for (const auto& c : pod_cache_)
      if (c.hash == h && c.source == pod_json) return c.pod;
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
  pod.node_name.clear();
  pod.phase = PodPhase::kPending;
  pod.uid.clear();
  std::lock_guard<std::mutex> lock(pods_mu_);
  if (pod_cache_.size() >= kPodCacheSize) pod_cache_.erase(pod_cache_.begin());
  pod_cache_.push_back({h, pod_json, pod});
  return pod;
}

// Nodes mode: brings the node cache up to date with the objects sent. An object whose text is
// the one sent last time for that node (found by the text's hash, then compared) is neither
// parsed nor re-serialised. Under sent_mu_.
void Extender::refresh_sent_nodes(const std::vector<std::string_view>& items, Evaluation& ev) {
  ClusterState& st = sent_nodes_->state();
  for (std::string_view text : items) {
    const size_t h = std::hash<std::string_view>{}(text);
    if (auto it = sent_by_hash_.find(h); it != sent_by_hash_.end()) {
      const SentNode& cached = sent_.at(it->second);
      if (*cached.text == text) {
        ev.node_texts.push_back(cached.text);
        ev.names.push_back(it->second);
        continue;
      }
    }
    json n = json::parse(text);  // the scanner accepted the text: this does not throw
    std::string name = object_key(n, false);
    Node node;
    try {
      node = node_from_json(n);
    } catch (const InputError& e) {
      throw BadRequest(std::string("Nodes: ") + e.what());
    }
    SentNode& cached = sent_[name];
    if (cached.text) sent_by_hash_.erase(cached.hash);
    cached.hash = h;
    cached.text = std::make_shared<const std::string>(text);
    sent_by_hash_[h] = name;
    if (auto known = st.find_node(name)) {
      st.update_node(*known, std::move(node));
    } else {
      st.add_node(std::move(node));
    }
    ev.node_texts.push_back(cached.text);
    ev.names.push_back(std::move(name));
  }
}

Extender::Evaluation Extender::evaluate(const Args& args) {
  Evaluation ev;
  ev.names_mode = !args.has_nodes && args.has_names;
  if (ev.names_mode) ev.names = args.names;
  const std::vector<std::string_view>* items = args.has_nodes ? &args.node_items : nullptr;
  Pod pod = probe_pod(args.pod);

  auto run = [&](fw::ClusterBackend& b) {
    ClusterState& st = b.state();
    if (items) refresh_sent_nodes(*items, ev);
    fw::Scheduler& sched = scheduler_for(b);
    pod.name += "~extender-" + std::to_string(++probe_counter_);
    const PodId id = st.add_pod(pod);
    std::vector<fw::NodeEvaluation> evals;
    try {
      evals = sched.evaluate(id, /*details=*/false);
    } catch (...) {
      st.remove_pod(id);
      throw;
    }
    st.remove_pod(id);
    by_node_.assign(by_node_.size(), nullptr);
    for (const auto& e : evals) {
      if (e.node >= by_node_.size()) by_node_.resize(e.node + 1, nullptr);
      by_node_[e.node] = &e;
    }
    const size_t n_names = ev.names.size();
    ev.feasible.reserve(n_names);
    ev.reasons.resize(n_names);
    ev.totals.reserve(n_names);
    for (size_t i = 0; i < n_names; ++i) {
      const std::string& name = ev.names[i];
      auto n = st.find_node(name);
      const fw::NodeEvaluation* e = n && *n < by_node_.size() ? by_node_[*n] : nullptr;
      if (!e) {
        ev.feasible.push_back(-1);
        ev.reasons[i] = "node \"" + name + "\" is not in the extender's cluster view";
        ev.totals.push_back(0);
        continue;
      }
      ev.feasible.push_back(e->feasible ? 1 : 0);
      std::string& why = ev.reasons[i];
      for (const auto& r : e->reasons) {
        if (!why.empty()) why += ", ";
        why += r;
      }
      ev.totals.push_back(e->total);
    }
  };
  if (ev.names_mode) {
    if (!cluster_)
      throw BadRequest(
          "NodeNames given, but the extender has no cluster view (start it with "
          "--cluster SNAPSHOT or --kubeconfig, or set nodeCacheCapable: false)");
    std::exception_ptr err;
    exec_([&] {
      try {
        std::lock_guard<std::mutex> lock(sent_mu_);  // by_node_ and the probe counter
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

namespace {

std::string filter_result(const std::vector<std::string>& names,
                          const std::vector<int8_t>& feasible,
                          const std::vector<std::string>& reasons, bool names_mode,
                          const std::vector<std::shared_ptr<const std::string>>& texts) {
  std::vector<std::pair<std::string_view, std::string_view>> failed, unresolvable_nodes;
  std::string kept;
  kept.reserve(names_mode ? names.size() * 16 : 0);
  bool first = true;
  for (size_t i = 0; i < names.size(); ++i) {
    if (feasible[i] == 1) {
      if (!first) kept += ',';
      first = false;
      if (names_mode) {
        append_string(kept, names[i]);
      } else {
        kept += *texts[i];
      }
    } else if (feasible[i] == -1 || unresolvable(reasons[i])) {
      unresolvable_nodes.emplace_back(names[i], reasons[i]);
    } else {
      failed.emplace_back(names[i], reasons[i]);
    }
  }
  std::string out;
  out.reserve(kept.size() + 128);
  if (names_mode) {
    out += "{\"Nodes\":null,\"NodeNames\":[";
    out += kept;
    out += "]";
  } else {
    out += "{\"Nodes\":{\"apiVersion\":\"v1\",\"kind\":\"NodeList\",\"metadata\":{},\"items\":[";
    out += kept;
    out += "]},\"NodeNames\":null";
  }
  out += ",\"FailedNodes\":";
  append_reasons(out, failed);
  out += ",\"FailedAndUnresolvableNodes\":";
  append_reasons(out, unresolvable_nodes);
  out += ",\"Error\":\"\"}";
  return out;
}

}  // namespace

ExtenderReply Extender::filter(const std::string& body) {
  try {
    const Evaluation ev = evaluate(parse_args(body));
    return {200, filter_result(ev.names, ev.feasible, ev.reasons, ev.names_mode, ev.node_texts)};
  } catch (const BadRequest& e) {
    return reply(400, {{"Error", e.what()}});
  } catch (const std::exception& e) {
    return reply(200, {{"Nodes", nullptr},
                       {"NodeNames", nullptr},
                       {"FailedNodes", json::object()},
                       {"FailedAndUnresolvableNodes", json::object()},
                       {"Error", e.what()}});
  }
}

ExtenderReply Extender::prioritize(const std::string& body) {
  try {
    const Evaluation ev = evaluate(parse_args(body));
    int64_t top = 0;
    for (size_t i = 0; i < ev.names.size(); ++i)
      if (ev.feasible[i] == 1) top = std::max(top, ev.totals[i]);
    std::string out;
    out.reserve(ev.names.size() * 40 + 2);
    out += '[';
    for (size_t i = 0; i < ev.names.size(); ++i) {
      const int64_t score = ev.feasible[i] == 1 && top > 0 ? ev.totals[i] * 10 / top : 0;
      if (i) out += ',';
      out += "{\"Host\":";
      append_string(out, ev.names[i]);
      out += ",\"Score\":";
      out += std::to_string(score);
      out += '}';
    }
    out += ']';
    return {200, std::move(out)};
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
        ev = evaluate(parse_args(json{{"Pod", pod_json}, {"NodeNames", names}}.dump(
            -1, ' ', false, json::error_handler_t::replace)));
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
      result["NodeNameToMetaVictims"][ev.names[i]] = {{"Pods", pods},
                                                      {"NumPDBViolations", c.second}};
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
    const std::string uid =
        field(args, "PodUID").is_string() ? field(args, "PodUID").get<std::string>() : "";
    if (!binder_)
      return reply(200, {{"Error", "the bind verb needs --kubeconfig or --in-cluster"}});
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
    server.Post(prefix + "/" + name,
                [&ext, fn](const httplib::Request& req, httplib::Response& res) {
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
  const int bound =
      port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
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
