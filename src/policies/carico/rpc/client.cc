#include "policies/carico/rpc/client.h"

#include <grpcpp/grpcpp.h>

#include "policies/carico/proto/carico.grpc.pb.h"
#include "policies/carico/rpc/wire.h"

namespace orrery::carico::rpc {

class Channel {
 public:
  explicit Channel(const std::string& target) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(4 * 1024 * 1024);
    args.SetMaxSendMessageSize(kMaxMessageBytes);
    // Reconnect quickly after the aggregator restarts (the default backoff grows to minutes).
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
    channel = grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
    stub = v1::Aggregator::NewStub(channel);
  }
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::Aggregator::Stub> stub;
};

AggregatorClient::AggregatorClient(const std::string& target)
    : ch_(std::make_unique<Channel>(target)) {}
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
