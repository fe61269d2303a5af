// The plaintext rule of orrery's network endpoints (docs/RELIABILITY.md, "Server limits and
// security"):
//
//   TLS files given            TLS (mutual TLS when a client CA / client certificate is given)
//   no TLS, loopback address   plaintext allowed for development, with a warning in the log
//   no TLS, any other address  refused (exit 1) unless the caller passed --insecure explicitly;
//                              then plaintext with a warning
//
// The deploy/ manifests always run with TLS (certificates from Secrets mounted read-only).
#pragma once

#include <string>

namespace orrery::net {

// 127.0.0.0/8, ::1, "localhost" (and "[::1]").
bool is_loopback_host(const std::string& host);

// Applies the rule for a server listening on `host` (`what` names it in messages, `flag` is the
// listen flag). Throws InputError when plaintext is not allowed.
void check_server_plaintext(const std::string& what, const std::string& flag,
                            const std::string& host, bool tls, bool insecure);
// The same rule for a client connecting to `host` without a CA file.
void check_client_plaintext(const std::string& what, const std::string& flag,
                            const std::string& host, bool tls, bool insecure);

// The whole of a PEM file for credentials; throws InputError naming `flag` and the path (never
// the content) when it cannot be read, is empty or is not PEM.
std::string read_pem_file(const std::string& path, const std::string& flag);

// Checks that `cert_file` and `key_file` load as PEM and belong together (OpenSSL), before a
// server that would only fail at the first handshake starts. Throws InputError naming the flag
// and path (never the content).
void validate_key_pair(const std::string& cert_file, const std::string& key_file,
                       const std::string& cert_flag, const std::string& key_flag);

}  // namespace orrery::net
