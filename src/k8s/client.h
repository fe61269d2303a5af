// The API client: HTTP(S) requests to one API server with the credentials of a ClusterConfig,
// over cpp-httplib (OpenSSL for TLS; see src/k8s/README.md for why this library).
//
// Thread-safe: every call takes a connection from a small pool (keep-alive, one TLS handshake per
// connection) and gives it back. Streams (watches) get a connection of their own, which
// interrupt() closes from any thread, e.g. on shutdown.
//
// Every request names its API call (api_calls.h): the list of calls the client can make is one
// table, checked against the RBAC manifest by a test.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "k8s/api_calls.h"
#include "k8s/kubeconfig.h"

namespace httplib {
class ClientImpl;
class Result;
}  // namespace httplib

namespace orrery::k8s {

struct Response {
  int status = 0;     // HTTP status; 0 when no response came (see error)
  std::string body;   // the body (a Status object for API errors)
  std::string error;  // transport error ("Connection refused", ...) when status == 0
  bool ok() const { return status >= 200 && status < 300; }
  // "409 Conflict: Operation cannot be fulfilled ..." / "transport: Connection refused".
  std::string describe() const;
  // The `reason` and `message` of a Status body ("" when the body is not one).
  std::string status_reason() const;
  std::string status_message() const;
};

// Response::error of a request the action gate refused (ApiClient::set_action_gate).
inline constexpr const char* kNotTheLeader = "not the leader";

struct ClientOptions {
  int connect_timeout_ms = 5000;
  int request_timeout_ms = 30000;
  // A watch read that sees nothing for this long is a dead stream (the server sends bookmarks
  // and closes streams at timeoutSeconds, so a healthy stream is never this quiet).
  int stream_idle_timeout_ms = 120000;
  std::string user_agent = "orrery";
};

class ApiClient {
 public:
  explicit ApiClient(ClusterConfig config, ClientOptions options = {});
  ~ApiClient();
  ApiClient(const ApiClient&) = delete;
  ApiClient& operator=(const ApiClient&) = delete;

  // `path` is the API path with its query ("/api/v1/nodes?limit=500"); `call` names the API
  // call (checked in debug builds to be in kApiCalls).
  Response get(ApiCall call, const std::string& path);
  Response post(ApiCall call, const std::string& path, const std::string& json_body);
  Response put(ApiCall call, const std::string& path, const std::string& json_body);
  Response patch(ApiCall call, const std::string& path, const std::string& body,
                 const std::string& content_type = "application/merge-patch+json");
  Response del(ApiCall call, const std::string& path);

  // GET that streams the body: on_line is called for each complete line (a watch event) as it
  // arrives; returning false ends the stream. Returns the status and, for an error status, its
  // body; a stream that ends (closed by the server, dropped, interrupted) returns normally with
  // `error` saying why when it was not a clean end.
  Response stream(ApiCall call, const std::string& path,
                  const std::function<bool(std::string_view line)>& on_line);

  // Leader election: every request of a call that acts on the cluster (ApiCallInfo::acts) asks
  // `gate` at the moment its body is written to the connection, after the request line and
  // headers. A refusal abandons the request: the connection is closed with the body unsent, so
  // the server never acts on it, and the Response has status 0 and error kNotTheLeader. A
  // request decided before the process was paused is thus dropped, not sent, when it resumes
  // past its renew deadline. Set before the first request (not thread-safe).
  void set_action_gate(std::function<bool()> gate) { action_gate_ = std::move(gate); }

  // Closes every open stream and makes later calls fail at once ("interrupted"). For shutdown.
  void interrupt();
  bool interrupted() const { return interrupted_.load(); }

  const ClusterConfig& config() const { return config_; }

 private:
  std::unique_ptr<httplib::ClientImpl> connect(int read_timeout_ms) const;
  std::unique_ptr<httplib::ClientImpl> acquire();
  void release(std::unique_ptr<httplib::ClientImpl> c);
  Response request(ApiCall call, const char* method, const std::string& path,
                   const std::string* body, const std::string& content_type);
  // Sends one request on `c`; with `refused` set, the body is written through the action gate.
  httplib::Result send(httplib::ClientImpl& c, const std::string& method, const std::string& path,
                       const std::string* body, const std::string& content_type,
                       bool* refused) const;

  ClusterConfig config_;
  ClientOptions options_;
  std::function<bool()> action_gate_;
  std::atomic<bool> interrupted_{false};
  std::mutex mu_;
  std::vector<std::unique_ptr<httplib::ClientImpl>> pool_;  // idle connections
  std::vector<httplib::ClientImpl*> streams_;               // open streams
};

}  // namespace orrery::k8s
