#include "k8s/informer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "k8s/watch_stream.h"
#include "obs/log.h"

namespace orrery::k8s {

namespace {

std::string url_escape(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

double uniform(uint64_t* s) {  // splitmix64 → [0, 1)
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) / static_cast<double>(1ULL << 53);
}

bool is_expired(int code, const std::string& reason) {
  return code == 410 || reason == "Expired" || reason == "Gone";
}

}  // namespace

Informer::Informer(ApiClient& client, InformerSpec spec, InformerSink& sink, Backoff backoff,
                   std::function<void(const std::string&, const std::string&)> on_restart)
    : client_(client),
      spec_(std::move(spec)),
      sink_(sink),
      backoff_(backoff),
      on_restart_(std::move(on_restart)),
      rng_state_(std::random_device{}()) {}

Informer::~Informer() { stop(); }

void Informer::start() { thread_ = std::thread([this] { run(); }); }

void Informer::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int Informer::backoff_ms(const Backoff& b, int attempt, double u) {
  double d = b.initial_ms * std::pow(2.0, std::min(attempt, 30));
  d = std::min(d, static_cast<double>(b.max_ms));
  return static_cast<int>(d + u * b.jitter * d);
}

void Informer::wait_ms(int ms) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::milliseconds(ms), [&] { return stop_.load(); });
}

std::string Informer::query(const std::string& extra) const {
  std::string q = spec_.path + "?" + extra;
  if (!spec_.field_selector.empty()) q += "&fieldSelector=" + url_escape(spec_.field_selector);
  return q;
}

bool Informer::list() {
  std::vector<JsonValue> items;
  std::string cont;
  std::string rv;
  do {
    std::string extra = "limit=" + std::to_string(spec_.page_size);
    if (!cont.empty()) extra += "&continue=" + url_escape(cont);
    Response r = client_.get(spec_.list_call, query(extra));
    if (!r.ok()) {
      if (client_.interrupted() || stop_) return false;
      obs::warn("list failed; retrying with backoff",
                {{"kind", spec_.kind}, {"error", r.describe()},
                 {"server", client_.config().server}});
      return false;  // an expired continue token (410) restarts the list from the top
    }
    std::optional<ListPage> page = decode_list_page(r.body);
    if (!page) {
      obs::warn("list returned a malformed body; retrying", {{"kind", spec_.kind}});
      return false;
    }
    for (auto& it : page->items) items.push_back(std::move(it));
    rv = std::move(page->resource_version);
    cont = std::move(page->continue_token);
  } while (!cont.empty() && !stop_);
  if (stop_) return false;
  rv_ = rv;
  obs::debug("listed", {{"kind", spec_.kind}, {"items", std::to_string(items.size())},
                        {"resourceVersion", rv_}});
  sink_.replace(spec_.kind, std::move(items));
  synced_ = true;
  return true;
}

bool Informer::watch() {
  const int timeout =
      backoff_.watch_timeout_s + static_cast<int>(uniform(&rng_state_) * backoff_.watch_timeout_s);
  const std::string extra = "watch=1&allowWatchBookmarks=true&resourceVersion=" + url_escape(rv_) +
                            "&timeoutSeconds=" + std::to_string(timeout);
  bool expired = false;
  bool saw_event = false;
  Response r = client_.stream(spec_.watch_call, query(extra), [&](std::string_view line) {
    if (stop_) return false;
    std::optional<WatchEvent> ev = decode_watch_event(line);
    if (!ev) {
      obs::warn("skipping a malformed watch event",
                {{"kind", spec_.kind}, {"event", std::string(line.substr(0, 200))}});
      return true;
    }
    const std::string& type = ev->type;
    JsonValue& obj = ev->object;
    if (type == "ERROR") {
      const int code = obj.value("code", 0);
      const std::string reason = obj.value("reason", "");
      if (is_expired(code, reason)) {
        expired = true;
      } else {
        obs::warn("watch error event", {{"kind", spec_.kind}, {"code", std::to_string(code)},
                                        {"message", obj.value("message", "")}});
      }
      return false;
    }
    const std::string rv = resource_version(obj);
    if (!rv.empty()) rv_ = rv;
    saw_event = true;
    if (type == "BOOKMARK") return true;
    if (type != "ADDED" && type != "MODIFIED" && type != "DELETED") {
      obs::warn("skipping a watch event of unknown type", {{"kind", spec_.kind}, {"type", type}});
      return true;
    }
    sink_.event(spec_.kind, type, std::move(obj));
    return true;
  });
  if (stop_ || client_.interrupted()) return true;
  if (r.status != 200 && r.status != 0) {
    if (is_expired(r.status, r.status_reason())) expired = true;
  }
  if (expired) {
    if (on_restart_) on_restart_(spec_.kind, "expired");
    // A watch that expires before showing any event, right after its list, would otherwise relist
    // in a tight loop (a server whose history is gone as fast as it lists): back off, as
    // client-go's reflector does between ListAndWatch runs. Any event seen resets the sequence.
    if (saw_event) expiries_ = 0;
    if (expiries_ == 0) {
      obs::info("watch expired (410 Gone); relisting",
                {{"kind", spec_.kind}, {"resourceVersion", rv_}});
    } else {
      const int delay = backoff_ms(backoff_, expiries_ - 1, uniform(&rng_state_));
      obs::warn("watch expired again without an event; relisting after backoff",
                {{"kind", spec_.kind}, {"resourceVersion", rv_},
                 {"backoff_ms", std::to_string(delay)}});
      wait_ms(delay);
    }
    ++expiries_;
    return false;
  }
  expiries_ = 0;
  if (r.status == 200 && r.error.empty()) {  // the server closed the stream at timeoutSeconds
    if (on_restart_) on_restart_(spec_.kind, "timeout");
    failures_ = 0;
    return true;
  }
  if (saw_event) failures_ = 0;
  const int delay = backoff_ms(backoff_, failures_++, uniform(&rng_state_));
  obs::warn("watch stream ended; reconnecting after backoff",
            {{"kind", spec_.kind}, {"error", r.error.empty() ? r.describe() : r.error},
             {"server", client_.config().server}, {"backoff_ms", std::to_string(delay)}});
  if (on_restart_) on_restart_(spec_.kind, r.status == 0 ? "dropped" : "error");
  wait_ms(delay);
  return true;
}

void Informer::run() {
  bool need_list = true;
  while (!stop_ && !client_.interrupted()) {
    if (need_list) {
      if (!list()) {
        if (stop_ || client_.interrupted()) break;
        const int delay = backoff_ms(backoff_, failures_++, uniform(&rng_state_));
        obs::warn("cannot list; retrying after backoff",
                  {{"kind", spec_.kind}, {"server", client_.config().server},
                   {"attempt", std::to_string(failures_)}, {"backoff_ms", std::to_string(delay)}});
        wait_ms(delay);
        continue;
      }
      failures_ = 0;
      need_list = false;
    }
    need_list = !watch();
  }
}

}  // namespace orrery::k8s
