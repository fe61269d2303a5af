#include "net/transport_security.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <fstream>
#include <sstream>

#include "core/error.h"
#include "obs/log.h"

namespace orrery::net {

bool is_loopback_host(const std::string& text) {
  std::string host = text;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

namespace {

void check(const std::string& what, const std::string& flag, const std::string& host, bool tls,
           bool insecure, const char* tls_flags) {
  if (tls) return;
  const std::string shown = host.empty() ? "0.0.0.0" : host;
  if (is_loopback_host(host)) {
    obs::warn("plaintext on a loopback address (development only; production uses TLS)",
              {{"component", what}, {"address", shown}});
    return;
  }
  if (!insecure)
    throw InputError(flag + ": refusing plaintext " + what + " on " + shown +
                     " (not a loopback address): give " + tls_flags +
                     ", or --insecure to accept an unencrypted, unauthenticated connection");
  obs::warn("plaintext on a non-loopback address because --insecure was given",
            {{"component", what}, {"address", shown}});
}

}  // namespace

void check_server_plaintext(const std::string& what, const std::string& flag,
                            const std::string& host, bool tls, bool insecure) {
  check(what, flag, host, tls, insecure, "--tls-cert-file and --tls-private-key-file");
}

void check_client_plaintext(const std::string& what, const std::string& flag,
                            const std::string& host, bool tls, bool insecure) {
  check(what, flag, host, tls, insecure, "--ca-file");
}

std::string read_pem_file(const std::string& path, const std::string& flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(flag + ": cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (text.size() > (1u << 20))
    throw InputError(flag + ": " + path + " is larger than 1 MiB; expected PEM");
  if (text.find("-----BEGIN ") == std::string::npos)
    throw InputError(flag + ": " + path + " is not a PEM file (no -----BEGIN line)");
  return text;
}

void validate_key_pair(const std::string& cert_file, const std::string& key_file,
                       const std::string& cert_flag, const std::string& key_flag) {
  const std::string cert_pem = read_pem_file(cert_file, cert_flag);
  const std::string key_pem = read_pem_file(key_file, key_flag);
  BIO* cb = BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size()));
  BIO* kb = BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size()));
  X509* cert = PEM_read_bio_X509(cb, nullptr, nullptr, nullptr);
  EVP_PKEY* key = PEM_read_bio_PrivateKey(kb, nullptr, nullptr, nullptr);
  std::string error;
  if (!cert) {
    error = cert_flag + ": " + cert_file + " holds no PEM certificate";
  } else if (!key) {
    error = key_flag + ": " + key_file + " holds no PEM private key (or it is encrypted)";
  } else if (X509_check_private_key(cert, key) != 1) {
    error =
        key_flag + ": the private key " + key_file + " does not match the certificate " + cert_file;
  }
  X509_free(cert);
  EVP_PKEY_free(key);
  BIO_free(cb);
  BIO_free(kb);
  ERR_clear_error();
  if (!error.empty()) throw InputError(error);
}

}  // namespace orrery::net
