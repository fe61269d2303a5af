// An informer for one resource, as client-go's Reflector does it:
//
//   list (in chunks of `page_size`, following metadata.continue) → replace(items, rv)
//   watch from rv with allowWatchBookmarks=true and a jittered timeoutSeconds → event(type, obj)
//   a stream that ends cleanly (the server's timeout) → watch again from the last rv
//   410 Gone / reason Expired, as the HTTP status or an in-stream ERROR → relist (at once; after
//     a jittered backoff when the watch before it also expired without showing an event)
//   a dropped stream, an unreachable server, any other error → jittered exponential backoff,
//     then watch again (or relist when the list never finished)
//
// It runs on a thread of its own and calls its Sink there; the sink posts to the owner's loop.
// A line that is not JSON, or an event without an object, is logged and skipped: the stream goes
// on. stop() ends the thread promptly (it interrupts the client's streams only via the shared
// flag; the owner interrupts the ApiClient on shutdown).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "k8s/client.h"
#include "k8s/objects.h"

namespace orrery::k8s {

struct InformerSpec {
  std::string kind;  // "Pod", "Node", "PriorityClass" (logs)
  ApiCall list_call;
  ApiCall watch_call;
  std::string path;            // "/api/v1/pods"
  std::string field_selector;  // "" or "spec.schedulerName=orrery,status.phase!=Succeeded"
  int page_size = 500;
};

struct Backoff {
  int initial_ms = 800;  // client-go's reflector: 800 ms doubling to 30 s, jittered
  int max_ms = 30000;
  double jitter = 1.0;  // wait.Jitter factor: a delay d becomes d + rand[0, jitter·d)
  int watch_timeout_s = 300;  // min timeoutSeconds of a watch (client-go: 5 min, jittered ×[1,2))
};

class InformerSink {
 public:
  virtual ~InformerSink() = default;
  // A full list: the current set of objects, replacing everything known before.
  virtual void replace(const std::string& kind, std::vector<JsonValue> items) = 0;
  // type: ADDED, MODIFIED or DELETED.
  virtual void event(const std::string& kind, const std::string& type, JsonValue object) = 0;
};

class Informer {
 public:
  // `on_restart(reason)`: a watch restarted ("expired", "dropped", "error", "timeout").
  Informer(ApiClient& client, InformerSpec spec, InformerSink& sink, Backoff backoff,
           std::function<void(const std::string& kind, const std::string& reason)> on_restart = {});
  ~Informer();
  void start();
  void stop();
  bool synced() const { return synced_.load(); }
  // The next delay of a backoff sequence (exposed for tests): min(max, initial·2^attempt), plus
  // jitter drawn from `u` in [0, 1).
  static int backoff_ms(const Backoff& b, int attempt, double u);

 private:
  void run();
  bool list();
  // Returns false when a relist is needed.
  bool watch();
  void wait_ms(int ms);
  std::string query(const std::string& extra) const;

  ApiClient& client_;
  InformerSpec spec_;
  InformerSink& sink_;
  Backoff backoff_;
  std::function<void(const std::string&, const std::string&)> on_restart_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> synced_{false};
  std::string rv_;
  int failures_ = 0;
  int expiries_ = 0;  // watches in a row that expired (410) without an event
  uint64_t rng_state_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace orrery::k8s
