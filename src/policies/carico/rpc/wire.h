// Conversions between the model and the protocol messages, with the checks the aggregator
// applies to what it receives (a malformed message is rejected, never merged).
#pragma once

#include <optional>
#include <string>

#include "policies/carico/proto/carico.pb.h"
#include "policies/carico/subspace.h"

namespace orrery::carico::rpc {

inline constexpr int kMaxDims = 16;
inline constexpr size_t kMaxNodeName = 253;
// Largest message either side accepts (a Submit of 16 × 16 doubles is ~2.3 KiB).
inline constexpr int kMaxMessageBytes = 64 * 1024;

void to_wire(const Subspace& s, v1::Subspace* out);
// nullopt (with *why) when the message is not a valid subspace: dims/rank out of range, wrong
// array sizes, non-finite or negative values, singular values not in non-increasing order. An
// empty message (dims 0) is an empty subspace.
std::optional<Subspace> from_wire(const v1::Subspace& m, std::string* why);
// Checks a whole SubmitRequest (node name, numbers, subspace).
bool valid_submit(const v1::SubmitRequest& r, Subspace* local, std::string* why);

}  // namespace orrery::carico::rpc
