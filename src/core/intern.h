// Process-wide string interning: label keys/values, taint keys/values, names. Interned ids are
// stable for the life of the process and safe to share between threads (parameter sweeps run
// independent simulations on a thread pool). Interning takes a lock; reading a string back does
// not.
#pragma once

#include <cstdint>
#include <string_view>

namespace orrery {

using StrId = uint32_t;
inline constexpr StrId kNoStr = 0;  // id 0 is the empty string

StrId intern(std::string_view s);
// The id of `s` if it was interned before, kNoStr otherwise (and for the empty string).
StrId find_interned(std::string_view s);
std::string_view interned(StrId id);

}  // namespace orrery
