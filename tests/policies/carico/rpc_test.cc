// The gRPC aggregator in-process on loopback: Submit/Table round trips, malformed and oversized
// messages rejected (and the server keeps serving), merges with weights (#nodes − 1, 1).
#include <gtest/gtest.h>

#include <grpcpp/grpcpp.h>

#include <thread>

#include "policies/carico/proto/carico.grpc.pb.h"
#include "policies/carico/rpc/client.h"
#include "policies/carico/rpc/server.h"
#include "policies/carico/rpc/wire.h"

namespace orrery::carico::rpc {
namespace {

// A deadline for calls that are to succeed: far above any healthy round trip, even on a loaded
// 2-core machine (a connect there has taken over 600 ms).
constexpr std::chrono::milliseconds kCall{30000};

Subspace sub(double a, double b) {
  Eigen::MatrixXd m(2, 1);
  m << a, b;
  return svd_left(m, 1);
}

TEST(CaricoRpc, SubmitReturnsTheGlobalAndTableListsNodes) {
  AggregatorServer server(2, nullptr);
  const int port = server.start("127.0.0.1:0");
  AggregatorClient client("127.0.0.1:" + std::to_string(port));
  std::string err;
  auto g = client.submit("n1", sub(0.6, 0.2), {3.5, 1.2, 4}, kCall, &err);
  ASSERT_TRUE(g) << err;
  EXPECT_TRUE(g->empty());  // the first caller gets the (empty) global back at once
  const auto until = std::chrono::steady_clock::now() + kCall;
  while (server.core().merges() < 1 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_GE(server.core().merges(), 1u);
  g = client.submit("n2", sub(0.1, 0.5), {2, 0.8, 1}, kCall, &err);
  ASSERT_TRUE(g) << err;
  EXPECT_NEAR(g->sigma1(), sub(0.6, 0.2).sigma1(), 1e-12);
  auto rows = client.table(kCall, &err);
  ASSERT_TRUE(rows) << err;
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].node, "n1");
  EXPECT_EQ((*rows)[0].status.pods, 4);
  EXPECT_DOUBLE_EQ((*rows)[0].status.pod_capacity, 3.5);
  EXPECT_LT((*rows)[0].age_s, 5.0);
  server.shutdown();
}

TEST(CaricoRpc, MalformedAndOversizedMessagesAreRejected) {
  AggregatorServer server(2, nullptr);
  const int port = server.start("127.0.0.1:0");
  auto channel =
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials());
  auto stub = v1::Aggregator::NewStub(channel);
  auto call = [&](const v1::SubmitRequest& r) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + kCall);
    v1::SubmitReply reply;
    return stub->Submit(&ctx, r, &reply);
  };
  v1::SubmitRequest bad;
  bad.set_node("n1");
  bad.mutable_local()->set_dims(2);
  bad.mutable_local()->set_rank(1);
  bad.mutable_local()->add_u(0.5);  // one component for a 2-d vector
  bad.mutable_local()->add_sigma(1.0);
  EXPECT_EQ(call(bad).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  v1::SubmitRequest nan = bad;
  nan.mutable_local()->add_u(std::nan(""));
  EXPECT_EQ(call(nan).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  v1::SubmitRequest noname;
  EXPECT_EQ(call(noname).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  v1::SubmitRequest neg;
  neg.set_node("n1");
  neg.set_pod_capacity(-1);
  EXPECT_EQ(call(neg).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  v1::SubmitRequest huge;
  huge.set_node(std::string(200 * 1024, 'x'));
  EXPECT_EQ(call(huge).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  // Still serving, and nothing bad reached the table.
  v1::SubmitRequest good;
  good.set_node("ok");
  to_wire(sub(0.3, 0.3), good.mutable_local());
  EXPECT_TRUE(call(good).ok());
  EXPECT_EQ(server.core().table(mono_now_s()).size(), 1u);
  server.shutdown();
}

// Found by fuzz/carico_wire.cc (fuzz/corpus/carico_wire/regress-unsorted-sigma): singular values
// in increasing order passed validation, giving a Subspace whose sigma1()/u1() are not the
// dominant direction.
TEST(CaricoRpc, UnsortedSingularValuesAreRejected) {
  v1::Subspace m;
  m.set_dims(2);
  m.set_rank(2);
  for (double v : {1.0, 0.0, 0.0, 1.0}) m.add_u(v);
  m.add_sigma(0.5);
  m.add_sigma(2.0);
  std::string why;
  EXPECT_FALSE(from_wire(m, &why));
  EXPECT_EQ(why, "singular values are not in non-increasing order");
  m.set_sigma(1, 0.5);  // equal values are fine
  EXPECT_TRUE(from_wire(m, &why));
}

TEST(CaricoRpc, UnreachableAggregatorFailsFastAndBacksOff) {
  AggregatorClient client("127.0.0.1:1");
  std::string err;
  EXPECT_FALSE(client.submit("n", sub(0.1, 0.1), {}, std::chrono::milliseconds(200), &err));
  EXPECT_FALSE(err.empty());
  Backoff b;
  b.failed(0);
  EXPECT_DOUBLE_EQ(b.delay_s(), 0.1);
  for (int i = 0; i < 10; ++i) b.failed(0);
  EXPECT_DOUBLE_EQ(b.delay_s(), 5.0);
  EXPECT_FALSE(b.ready(4.9));
  b.succeeded();
  EXPECT_TRUE(b.ready(0));
}

TEST(CaricoAggregatorCore, MergesWithWeightsNodesMinusOneToOne) {
  AggregatorCore core(2);
  const Subspace a = sub(0.8, 0.1), b = sub(0.1, 0.8), c = sub(0.5, 0.5);
  core.submit("a", a, {}, 0);
  core.drain(0);
  EXPECT_NEAR(core.global().sigma1(), a.sigma1(), 1e-12);
  core.submit("b", b, {}, 0);
  core.drain(0);
  const Subspace g2 = merge(a, 0.5, b, 0.5, 2);  // 2 nodes: (1, 1) normalised
  EXPECT_NEAR(core.global().sigma1(), g2.sigma1(), 1e-12);
  core.submit("c", c, {}, 0);
  core.drain(0);
  const Subspace g3 = merge(g2, 2.0 / 3, c, 1.0 / 3, 2);  // 3 nodes: (2, 1)
  EXPECT_NEAR(core.global().sigma1(), g3.sigma1(), 1e-12);
  EXPECT_EQ(core.merges(), 3u);
}

}  // namespace
}  // namespace orrery::carico::rpc
