#include "policies/carico/rpc/client.h"

#include <grpcpp/grpcpp.h>

#include "core/error.h"
#include "net/transport_security.h"
#include "policies/carico/proto/carico.grpc.pb.h"
#include "policies/carico/rpc/wire.h"

namespace orrery::carico::rpc {

namespace {

std::shared_ptr<grpc::ChannelCredentials> channel_credentials(const ClientTls& tls) {
  if (!tls.enabled()) return grpc::InsecureChannelCredentials();
  if (tls.cert_file.empty() != tls.key_file.empty())
    throw InputError(
        "--cert-file and --key-file go together (the client certificate for mutual TLS)");
  grpc::SslCredentialsOptions o;
  o.pem_root_certs = net::read_pem_file(tls.ca_file, "--ca-file");
  if (!tls.cert_file.empty()) {
    net::validate_key_pair(tls.cert_file, tls.key_file, "--cert-file", "--key-file");
    o.pem_cert_chain = net::read_pem_file(tls.cert_file, "--cert-file");
    o.pem_private_key = net::read_pem_file(tls.key_file, "--key-file");
  }
  return grpc::SslCredentials(o);
}

}  // namespace

class Channel {
 public:
  Channel(const std::string& target, const ClientTls& tls) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(4 * 1024 * 1024);
    args.SetMaxSendMessageSize(kMaxMessageBytes);
    // Reconnect quickly after the aggregator restarts (the default backoff grows to minutes).
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
    channel = grpc::CreateCustomChannel(target, channel_credentials(tls), args);
    stub = v1::Aggregator::NewStub(channel);
  }
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::Aggregator::Stub> stub;
};

AggregatorClient::AggregatorClient(const std::string& target, const ClientTls& tls)
    : ch_(std::make_unique<Channel>(target, tls)) {}
AggregatorClient::~AggregatorClient() = default;

std::optional<Subspace> AggregatorClient::submit(const std::string& node, const Subspace& local,
                                                 const NodeStatus& status,
                                                 std::chrono::milliseconds deadline,
                                                 std::string* error) {
  v1::SubmitRequest req;
  req.set_node(node);
  to_wire(local, req.mutable_local());
  req.set_pod_capacity(status.pod_capacity);
  req.set_capacity(status.capacity);
  req.set_pods(static_cast<uint32_t>(std::max(0, status.pods)));
  v1::SubmitReply reply;
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + deadline);
  const grpc::Status st = ch_->stub->Submit(&ctx, req, &reply);
  if (!st.ok()) {
    *error = st.error_message().empty() ? "code " + std::to_string(st.error_code())
                                        : st.error_message();
    return std::nullopt;
  }
  std::string why;
  auto g = from_wire(reply.global(), &why);
  if (!g) *error = "malformed global subspace from the aggregator: " + why;
  return g;
}

std::optional<std::vector<NodeRow>> AggregatorClient::table(std::chrono::milliseconds deadline,
                                                            std::string* error) {
  v1::TableRequest req;
  v1::TableReply reply;
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + deadline);
  const grpc::Status st = ch_->stub->Table(&ctx, req, &reply);
  if (!st.ok()) {
    *error = st.error_message().empty() ? "code " + std::to_string(st.error_code())
                                        : st.error_message();
    return std::nullopt;
  }
  std::vector<NodeRow> rows;
  for (const auto& e : reply.nodes())
    rows.push_back({e.node(), {e.pod_capacity(), e.capacity(), static_cast<int>(e.pods())}, e.age_s()});
  return rows;
}

}  // namespace orrery::carico::rpc
