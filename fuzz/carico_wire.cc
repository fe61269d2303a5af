// CARICO's gRPC messages (policies/carico/proto/carico.proto) as the aggregator and the agents
// receive them. The input is a sequence of frames [kind:1][length:2 little-endian][bytes]; each
// frame is decoded with ParseFromArray, as gRPC's protobuf codec does, then:
//   kind even: a SubmitRequest through the server's path — valid_submit, then
//              AggregatorCore::submit and drain (the merge);
//   kind odd:  a SubmitReply through the client's path — from_wire of the global subspace.
// Invariants: what passes validation merges into a global subspace that is finite, with
// non-increasing non-negative singular values and at most 16 dims; the table lists each node once.
#include <cmath>
#include <set>

#include "fuzz_common.h"
#include "policies/carico/aggregator_core.h"
#include "policies/carico/rpc/wire.h"

using namespace orrery;
using namespace orrery::carico;

namespace {

void check_subspace(const Subspace& s) {
  if (s.empty()) return;
  FUZZ_CHECK(s.dims() >= 1 && s.dims() <= rpc::kMaxDims && s.rank() <= s.dims(),
             std::to_string(s.dims()));
  FUZZ_CHECK(s.u.allFinite() && s.sigma.allFinite(), "");
  for (int j = 0; j < s.rank(); ++j) {
    FUZZ_CHECK(s.sigma(j) >= 0, std::to_string(s.sigma(j)));
    if (j > 0) FUZZ_CHECK(s.sigma(j) <= s.sigma(j - 1) * (1 + 1e-9) + 1e-12, std::to_string(j));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  AggregatorCore core(2, 600);
  std::set<std::string> nodes;
  double now = 0;
  size_t pos = 0;
  while (pos + 3 <= size) {
    const uint8_t kind = data[pos];
    const size_t len = std::min<size_t>(data[pos + 1] | (data[pos + 2] << 8), size - pos - 3);
    const uint8_t* msg = data + pos + 3;
    pos += 3 + len;
    now += 1;
    std::string why;
    if (kind % 2 == 0) {
      v1::SubmitRequest req;
      if (!req.ParseFromArray(msg, static_cast<int>(len))) continue;
      Subspace local;
      if (!rpc::valid_submit(req, &local, &why)) {
        FUZZ_CHECK(!why.empty(), "submit");
        continue;
      }
      check_subspace(local);
      const NodeStatus status{req.pod_capacity(), req.capacity(), static_cast<int>(req.pods())};
      check_subspace(core.submit(req.node(), local, status, now));
      nodes.insert(req.node());
      core.drain(now);
      check_subspace(core.global());
      v1::SubmitReply reply;  // what the server answers, read back as the agent does
      rpc::to_wire(core.global(), reply.mutable_global());
      std::string bytes = reply.SerializeAsString();
      v1::SubmitReply back;
      FUZZ_CHECK(back.ParseFromString(bytes), "reply");
      FUZZ_CHECK(rpc::from_wire(back.global(), &why).has_value(), why);
    } else {
      v1::SubmitReply reply;
      if (!reply.ParseFromArray(msg, static_cast<int>(len))) continue;
      const std::optional<Subspace> g = rpc::from_wire(reply.global(), &why);
      if (g) {
        check_subspace(*g);
      } else {
        FUZZ_CHECK(!why.empty(), "reply");
      }
    }
  }
  const auto rows = core.table(now);
  std::set<std::string> seen;
  for (const NodeRow& r : rows)
    FUZZ_CHECK(seen.insert(r.node).second && nodes.count(r.node), r.node);
  return 0;
}
