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

}  // namespace orrery::k8s::testing
