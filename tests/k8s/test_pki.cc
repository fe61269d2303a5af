#include "k8s/test_pki.h"

#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <stdexcept>

namespace orrery::k8s::testing {

namespace {

EVP_PKEY* new_key() {
  EVP_PKEY* k = EVP_EC_gen("P-256");
  if (!k) throw std::runtime_error("EC key generation failed");
  return k;
}

std::string to_pem(X509* c) {
  BIO* b = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(b, c);
  char* data;
  long n = BIO_get_mem_data(b, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(b);
  return out;
}

std::string to_pem(EVP_PKEY* k) {
  BIO* b = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(b, k, nullptr, nullptr, 0, nullptr, nullptr);
  char* data;
  long n = BIO_get_mem_data(b, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(b);
  return out;
}

void add_ext(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (!ext) throw std::runtime_error("bad extension " + value);
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

X509* new_cert(const std::string& cn, EVP_PKEY* key, long serial) {
  X509* c = X509_new();
  X509_set_version(c, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(c), serial);
  X509_gmtime_adj(X509_getm_notBefore(c), -3600);
  X509_gmtime_adj(X509_getm_notAfter(c), 24 * 3600);
  X509_set_pubkey(c, key);
  X509_NAME* name = X509_get_subject_name(c);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  return c;
}

X509* parse_cert(const std::string& pem) {
  BIO* b = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* c = PEM_read_bio_X509(b, nullptr, nullptr, nullptr);
  BIO_free(b);
  return c;
}

EVP_PKEY* parse_key(const std::string& pem) {
  BIO* b = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  EVP_PKEY* k = PEM_read_bio_PrivateKey(b, nullptr, nullptr, nullptr);
  BIO_free(b);
  return k;
}

}  // namespace

KeyPair make_ca(const std::string& common_name) {
  EVP_PKEY* key = new_key();
  X509* c = new_cert(common_name, key, 1);
  X509_set_issuer_name(c, X509_get_subject_name(c));
  add_ext(c, c, NID_basic_constraints, "critical,CA:TRUE");
  add_ext(c, c, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature");
  add_ext(c, c, NID_subject_key_identifier, "hash");
  X509_sign(c, key, EVP_sha256());
  KeyPair out{to_pem(c), to_pem(key)};
  X509_free(c);
  EVP_PKEY_free(key);
  return out;
}

KeyPair make_cert(const KeyPair& ca, const std::string& common_name,
                  const std::vector<std::string>& dns, const std::vector<std::string>& ips,
                  bool client) {
  static long serial = 100;
  X509* ca_cert = parse_cert(ca.cert_pem);
  EVP_PKEY* ca_key = parse_key(ca.key_pem);
  EVP_PKEY* key = new_key();
  X509* c = new_cert(common_name, key, ++serial);
  X509_set_issuer_name(c, X509_get_subject_name(ca_cert));
  add_ext(c, ca_cert, NID_basic_constraints, "critical,CA:FALSE");
  add_ext(c, ca_cert, NID_key_usage, "critical,digitalSignature,keyEncipherment");
  add_ext(c, ca_cert, NID_ext_key_usage, client ? "clientAuth" : "serverAuth");
  std::string san;
  for (const auto& d : dns) san += (san.empty() ? "" : ",") + std::string("DNS:") + d;
  for (const auto& i : ips) san += (san.empty() ? "" : ",") + std::string("IP:") + i;
  if (!san.empty()) add_ext(c, ca_cert, NID_subject_alt_name, san);
  X509_sign(c, ca_key, EVP_sha256());
  KeyPair out{to_pem(c), to_pem(key)};
  X509_free(c);
  X509_free(ca_cert);
  EVP_PKEY_free(ca_key);
  EVP_PKEY_free(key);
  return out;
}

}  // namespace orrery::k8s::testing
