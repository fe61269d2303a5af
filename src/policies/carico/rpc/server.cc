#include "policies/carico/rpc/server.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <stdexcept>

#include "net/transport_security.h"
#include "obs/log.h"
#include "policies/carico/proto/carico.grpc.pb.h"
#include "policies/carico/rpc/wire.h"

namespace orrery::carico::rpc {

double mono_now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class AggregatorServer::Service final : public v1::Aggregator::Service {
 public:
  Service(AggregatorCore& core, obs::Registry* metrics) : core_(core) {
    if (metrics) {
      auto& calls = metrics->counter("carico_aggregator_calls_total",
                                     "Calls served by the CARICO aggregator", {"method", "code"});
      submit_ok_ = &calls.with({"Submit", "OK"});
      submit_bad_ = &calls.with({"Submit", "INVALID_ARGUMENT"});
      table_ok_ = &calls.with({"Table", "OK"});
      nodes_ = &metrics->gauge("carico_aggregator_nodes", "Nodes in the aggregator's table").with();
    }
  }

  grpc::Status Submit(grpc::ServerContext* ctx, const v1::SubmitRequest* req,
                      v1::SubmitReply* reply) override {
    Subspace local;
    std::string why;
    if (!valid_submit(*req, &local, &why)) {
      obs::warn("rejected a malformed Submit", {{"peer", ctx->peer()}, {"reason", why}});
      if (submit_bad_) submit_bad_->inc();
      return {grpc::StatusCode::INVALID_ARGUMENT, why};
    }
    const NodeStatus status{req->pod_capacity(), req->capacity(), static_cast<int>(req->pods())};
    const Subspace global = core_.submit(req->node(), local, status, mono_now_s());
    to_wire(global, reply->mutable_global());
    reply->set_merges(core_.merges());
    if (submit_ok_) submit_ok_->inc();
    return grpc::Status::OK;
  }

  grpc::Status Table(grpc::ServerContext*, const v1::TableRequest*,
                     v1::TableReply* reply) override {
    const auto rows = core_.table(mono_now_s());
    for (const NodeRow& r : rows) {
      v1::NodeEntry* e = reply->add_nodes();
      e->set_node(r.node);
      e->set_pod_capacity(r.status.pod_capacity);
      e->set_capacity(r.status.capacity);
      e->set_pods(static_cast<uint32_t>(std::max(0, r.status.pods)));
      e->set_age_s(r.age_s);
    }
    if (nodes_) nodes_->set(static_cast<double>(rows.size()));
    if (table_ok_) table_ok_->inc();
    return grpc::Status::OK;
  }

 private:
  AggregatorCore& core_;
  obs::Counter *submit_ok_ = nullptr, *submit_bad_ = nullptr, *table_ok_ = nullptr;
  obs::Gauge* nodes_ = nullptr;
};

AggregatorServer::AggregatorServer(int rank, obs::Registry* metrics)
    : core_(rank), service_(std::make_unique<Service>(core_, metrics)) {
  if (metrics)
    merges_ = &metrics->counter("carico_aggregator_merges_total",
                                "Subspace-Merges done by the background thread").with();
}

AggregatorServer::~AggregatorServer() { shutdown(); }

namespace {

std::shared_ptr<grpc::ServerCredentials> server_credentials(const net::ServerTls& tls) {
  if (!tls.enabled()) return grpc::InsecureServerCredentials();
  net::validate_key_pair(tls.cert_file, tls.key_file, "--tls-cert-file", "--tls-private-key-file");
  grpc::SslServerCredentialsOptions o(
      tls.client_ca_file.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                 : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  if (!tls.client_ca_file.empty())
    o.pem_root_certs = net::read_pem_file(tls.client_ca_file, "--client-ca-file");
  o.pem_key_cert_pairs.push_back({net::read_pem_file(tls.key_file, "--tls-private-key-file"),
                                  net::read_pem_file(tls.cert_file, "--tls-cert-file")});
  return grpc::SslServerCredentials(o);
}

}  // namespace

int AggregatorServer::start(const std::string& listen, const AggregatorServerOptions& opt) {
  int port = 0;
  grpc::ServerBuilder b;
  b.AddListeningPort(listen, server_credentials(opt.tls), &port);
  b.SetMaxReceiveMessageSize(kMaxMessageBytes);
  b.SetMaxSendMessageSize(4 * 1024 * 1024);
  b.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, opt.handshake_timeout_ms);
  b.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, opt.max_connection_idle_ms);
  b.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, opt.max_concurrent_streams);
  grpc::ResourceQuota quota("carico-aggregator");
  quota.SetMaxThreads(std::max(2, opt.max_threads));
  b.SetResourceQuota(quota);
  b.RegisterService(service_.get());
  server_ = b.BuildAndStart();
  if (!server_ || port == 0) throw std::runtime_error("cannot listen on " + listen);
  merger_ = std::thread([this] { merge_loop(); });
  return port;
}

void AggregatorServer::merge_loop() {
  while (core_.wait_for_work(stop_)) {
    const size_t n = core_.drain(mono_now_s());
    if (merges_) merges_->inc(static_cast<double>(n));
  }
}

void AggregatorServer::shutdown() {
  if (server_) {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    server_->Wait();
    server_.reset();
  }
  stop_ = true;
  core_.wake();
  if (merger_.joinable()) merger_.join();
}

}  // namespace orrery::carico::rpc
