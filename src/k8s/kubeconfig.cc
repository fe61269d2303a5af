#include "k8s/kubeconfig.h"

#include <openssl/evp.h>

#include <cstdlib>
#include <filesystem>

#include "core/error.h"
#include "io/k8s_objects.h"
#include "io/yaml_util.h"

namespace orrery::k8s {

namespace {

using yaml::Ctx;

// Standard base64 (kubeconfig *-data fields); fails on anything else.
std::string decode_base64(const Ctx& c) {
  std::string in;
  for (char ch : c.str())
    if (ch != '\n' && ch != '\r' && ch != ' ') in += ch;
  if (in.size() % 4 != 0) c.fail("expected base64 data (length not a multiple of 4)");
  std::string out(in.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()),
                                static_cast<int>(in.size()));
  if (n < 0) c.fail("expected base64 data");
  size_t pad = 0;
  if (!in.empty() && in.back() == '=') ++pad;
  if (in.size() > 1 && in[in.size() - 2] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

std::string resolve(const std::string& base_dir, const std::string& file) {
  if (file.empty() || file[0] == '/') return file;
  return (std::filesystem::path(base_dir) / file).string();
}

// The named entry of a list such as clusters: [{name, cluster: {...}}].
Ctx find_named(const Ctx& root, const std::string& list, const std::string& name,
               const std::string& field, const Ctx& referrer) {
  Ctx l = root.child(list);
  if (!l.defined()) referrer.fail("names " + list.substr(0, list.size() - 1) + " \"" + name +
                                  "\" but the file has no " + list);
  l.expect_seq();
  for (size_t i = 0; i < l.size(); ++i) {
    Ctx e = l.item(i);
    e.expect_map();
    if (e.str_or("name", "") == name) {
      Ctx body = e.child(field);
      if (!body.defined()) e.fail("expected a " + field + " mapping");
      body.expect_map();
      return body;
    }
  }
  referrer.fail("no " + list.substr(0, list.size() - 1) + " named \"" + name + "\" in " + list);
}

// A file named by the kubeconfig (certificate, key, CA, token): its text, or an error naming
// the field.
std::string read_named_file(const Ctx& c, const std::string& path) {
  try {
    return read_text_file(path);
  } catch (const InputError& e) {
    c.fail(std::string("cannot read the file it names: ") + e.what());
  }
}

}  // namespace

void parse_server_url(const std::string& url, const std::string& where, ClusterConfig* out) {
  std::string rest;
  if (url.rfind("https://", 0) == 0) {
    out->https = true;
    rest = url.substr(8);
  } else if (url.rfind("http://", 0) == 0) {
    out->https = false;
    rest = url.substr(7);
  } else {
    throw InputError(where + ": expected an http:// or https:// URL, got \"" + url + "\"");
  }
  const size_t slash = rest.find('/');
  std::string hostport = rest.substr(0, slash);
  out->base_path = slash == std::string::npos ? "" : rest.substr(slash);
  while (!out->base_path.empty() && out->base_path.back() == '/') out->base_path.pop_back();
  out->port = out->https ? 443 : 80;
  if (!hostport.empty() && hostport[0] == '[') {  // [ipv6]:port
    const size_t close = hostport.find(']');
    if (close == std::string::npos) throw InputError(where + ": unterminated [ in \"" + url + "\"");
    out->host = hostport.substr(1, close - 1);
    hostport = hostport.substr(close + 1);
    if (!hostport.empty() && hostport[0] == ':') hostport = "x" + hostport;
    else hostport.clear();
  } else {
    out->host = hostport.substr(0, hostport.find(':'));
  }
  if (const size_t colon = hostport.find(':'); colon != std::string::npos) {
    const std::string p = hostport.substr(colon + 1);
    char* end = nullptr;
    const long port = std::strtol(p.c_str(), &end, 10);
    if (p.empty() || *end != '\0' || port <= 0 || port > 65535)
      throw InputError(where + ": bad port \"" + p + "\" in \"" + url + "\"");
    out->port = static_cast<int>(port);
  }
  if (out->host.empty()) throw InputError(where + ": no host in \"" + url + "\"");
  out->server = url;
}

ClusterConfig parse_kubeconfig(const std::string& text, const std::string& path,
                               const std::string& context) {
  const Ctx root{path, yaml::parse_document(text, path), ""};
  if (!root.defined()) root.fail("empty kubeconfig");
  root.expect_map();
  const std::string dir = std::filesystem::path(path).parent_path().string();
  std::string ctx_name = context;
  if (ctx_name.empty()) {
    Ctx cur = root.child("current-context");
    if (!cur.defined() || cur.str().empty())
      cur.fail("no current-context (name a context with --context)");
    ctx_name = cur.str();
  }
  const Ctx ctx = find_named(root, "contexts", ctx_name, "context",
                             context.empty() ? root.child("current-context") : root);
  Ctx cluster_ref = ctx.child("cluster");
  if (!cluster_ref.defined()) ctx.fail("context without a cluster");
  const Ctx cluster = find_named(root, "clusters", cluster_ref.str(), "cluster", cluster_ref);
  ClusterConfig out;
  Ctx server = cluster.child("server");
  if (!server.defined()) cluster.fail("cluster without a server");
  parse_server_url(server.str(), server.where(), &out);
  if (cluster.has("certificate-authority-data")) {
    out.ca_pem = decode_base64(cluster.child("certificate-authority-data"));
  } else if (cluster.has("certificate-authority")) {
    Ctx f = cluster.child("certificate-authority");
    out.ca_pem = read_named_file(f, resolve(dir, f.str()));
  }
  out.insecure_skip_tls_verify = cluster.bool_or("insecure-skip-tls-verify", false);

  if (ctx.has("user")) {
    Ctx user_ref = ctx.child("user");
    const Ctx user = find_named(root, "users", user_ref.str(), "user", user_ref);
    if (user.has("token")) out.token = user.child("token").str();
    if (user.has("tokenFile")) {
      Ctx f = user.child("tokenFile");
      out.token_file = resolve(dir, f.str());
      read_named_file(f, out.token_file);  // must be readable now
    }
    if (user.has("client-certificate-data")) {
      out.client_cert_pem = decode_base64(user.child("client-certificate-data"));
    } else if (user.has("client-certificate")) {
      Ctx f = user.child("client-certificate");
      out.client_cert_pem = read_named_file(f, resolve(dir, f.str()));
    }
    if (user.has("client-key-data")) {
      out.client_key_pem = decode_base64(user.child("client-key-data"));
    } else if (user.has("client-key")) {
      Ctx f = user.child("client-key");
      out.client_key_pem = read_named_file(f, resolve(dir, f.str()));
    }
    if (out.client_cert_pem.empty() != out.client_key_pem.empty()) {
      user.fail("a client certificate needs a client key and the other way round");
    }
    if (user.has("username") || user.has("password")) {
      out.username = user.str_or("username", "");
      out.password = user.str_or("password", "");
    }
    if (user.has("exec")) user.child("exec").fail("exec credential plugins are not supported");
    if (user.has("auth-provider"))
      user.child("auth-provider").fail("auth-provider plugins are not supported");
  }
  if (out.insecure_skip_tls_verify && !out.ca_pem.empty()) {
    cluster.fail("insecure-skip-tls-verify and a certificate authority are both set (client-go "
                 "refuses this too)");
  }
  out.source = "kubeconfig " + path + " context " + ctx_name;
  return out;
}

ClusterConfig load_kubeconfig(const std::string& path, const std::string& context) {
  return parse_kubeconfig(read_text_file(path), path, context);
}

ClusterConfig in_cluster_config(const std::string& root) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !*host || !port || !*port) {
    throw InputError(
        "--in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set (is this "
        "running in a pod?)");
  }
  ClusterConfig out;
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";
  parse_server_url("https://" + h + ":" + port, "--in-cluster", &out);
  out.token_file = root + "/token";
  out.token = read_text_file(out.token_file);
  out.ca_pem = read_text_file(root + "/ca.crt");
  out.source = "in-cluster";
  return out;
}

std::string current_token(const ClusterConfig& c) {
  std::string t = c.token;
  if (!c.token_file.empty()) {
    try {
      t = read_text_file(c.token_file);
    } catch (const InputError&) {
      // keep the last known token; the request will say 401 if it is stale
    }
  }
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
  return t;
}

}  // namespace orrery::k8s
