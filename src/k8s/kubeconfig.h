// How to reach an API server: a kubeconfig file (client-go's clientcmd rules for the parts orrery
// reads) or the in-cluster service account.
//
// Kubeconfig: `current-context` unless a context is named; the context's cluster (server, CA data
// or file, insecure-skip-tls-verify) and user (token, tokenFile, client certificate and key as
// data or file, username/password). Relative file paths are taken from the kubeconfig's folder,
// as clientcmd does. `http://` servers are accepted (local test servers); TLS verification is on
// unless insecure-skip-tls-verify is true. Unknown fields are ignored; a missing or malformed
// field is an InputError naming the file, line and field ("kc.yaml:7: users[0].user.token: ...").
//
// In-cluster: KUBERNETES_SERVICE_HOST / KUBERNETES_SERVICE_PORT, the token and CA under
// /var/run/secrets/kubernetes.io/serviceaccount (the token file is re-read when it rotates).
#pragma once

#include <cstdint>
#include <string>

namespace orrery::k8s {

struct ClusterConfig {
  std::string server;  // as given: https://host:port or http://host:port
  bool https = true;
  std::string host;
  int port = 443;
  std::string base_path;  // a path prefix after host:port, without the trailing '/' ("" usually)

  std::string ca_pem;   // CA certificates (PEM) to verify the server with; empty: system store
  bool insecure_skip_tls_verify = false;

  std::string token;       // bearer token
  std::string token_file;  // re-read on every new connection when set (rotated tokens)
  std::string client_cert_pem, client_key_pem;
  std::string username, password;  // basic auth

  std::string source;  // "kubeconfig FILE context C" or "in-cluster", for logs
};

// Parses a kubeconfig file; `context` empty: current-context. Throws InputError.
ClusterConfig load_kubeconfig(const std::string& path, const std::string& context = "");
ClusterConfig parse_kubeconfig(const std::string& text, const std::string& path,
                               const std::string& context = "");

// The in-cluster configuration; `root` replaces /var/run/secrets/kubernetes.io/serviceaccount
// (tests). Throws InputError naming what is missing.
ClusterConfig in_cluster_config(
    const std::string& root = "/var/run/secrets/kubernetes.io/serviceaccount");

// Splits a server URL into scheme, host, port and base path. Throws InputError (prefixed with
// `where`) when it is not http(s)://host[:port][/path].
void parse_server_url(const std::string& url, const std::string& where, ClusterConfig* out);

// The bearer token to send now (token_file re-read when set), "" when none.
std::string current_token(const ClusterConfig& c);

}  // namespace orrery::k8s
