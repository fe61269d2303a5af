// Test-only PKI generated at test time with OpenSSL's C API (no private key is committed): a CA
// and certificates it signs, as PEM, with EC P-256 keys (fast to generate).
#pragma once

#include <string>
#include <vector>

namespace orrery::k8s::testing {

struct KeyPair {
  std::string cert_pem;
  std::string key_pem;
};

KeyPair make_ca(const std::string& common_name);
// A leaf certificate signed by `ca`: `dns`/`ips` become subjectAltNames (servers), `client`
// selects the clientAuth extended key usage instead of serverAuth.
KeyPair make_cert(const KeyPair& ca, const std::string& common_name,
                  const std::vector<std::string>& dns, const std::vector<std::string>& ips,
                  bool client);

// The PEM files of a TLS test: a CA, a server certificate for localhost / 127.0.0.1, a client
// certificate, and the key of a second server certificate that matches neither (for mismatch
// tests). Written into `dir` (a testing::ScratchDir) as ca.crt, tls.crt, tls.key, client.crt,
// client.key and other.key; the server's and the other key's PEM text are kept for tests that
// check logs never quote them. Fixtures inherit TlsMaterial to name the files as members.
struct TlsMaterial {
  std::string ca_file, cert, key, client_cert, client_key, other_key;
  std::string key_pem, other_key_pem;
};
template <class Dir>
TlsMaterial write_tls_files(const Dir& dir, const std::string& server_cn,
                            const std::string& client_cn) {
  const KeyPair ca = make_ca("orrery-test-ca");
  const KeyPair srv = make_cert(ca, server_cn, {"localhost"}, {"127.0.0.1"}, false);
  const KeyPair cli = make_cert(ca, client_cn, {}, {}, true);
  const KeyPair other = make_cert(ca, "other", {"localhost"}, {"127.0.0.1"}, false);
  TlsMaterial f;
  f.ca_file = dir.write("ca.crt", ca.cert_pem);
  f.cert = dir.write("tls.crt", srv.cert_pem);
  f.key = dir.write("tls.key", srv.key_pem);
  f.client_cert = dir.write("client.crt", cli.cert_pem);
  f.client_key = dir.write("client.key", cli.key_pem);
  f.other_key = dir.write("other.key", other.key_pem);
  f.key_pem = srv.key_pem;
  f.other_key_pem = other.key_pem;
  return f;
}

}  // namespace orrery::k8s::testing
