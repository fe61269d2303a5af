// Kubernetes resource quantities ("100m", "1.5", "512Mi", "1G", "1e3", "0.5Gi"), parsed exactly as
// k8s.io/apimachinery/pkg/api/resource does for the values the scheduler reads:
//   sign? digits ('.' digits)? suffix
//   suffix: "" | n u m k M G T P E (decimal SI) | Ki Mi Gi Ti Pi Ei (binary SI) | e<int> | E<int>
// and converted with upstream rounding: MilliValue() and Value() round up (towards +infinity for
// the non-negative values the scheduler accepts). CPU is kept in millicores, everything else in
// units (bytes for memory and storage).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace orrery {

// Parsed quantity scaled to 10^scale units, rounded up: scale 3 gives milli-units (CPU), scale 0
// gives units (bytes, counts). Returns std::nullopt with `error` set if the text is not a valid
// quantity or does not fit in int64.
std::optional<int64_t> parse_quantity(std::string_view text, int scale, std::string* error);

// Convenience wrappers that throw InputError("<where>: ...") on bad input.
int64_t parse_milli_quantity(std::string_view text, const std::string& where);
int64_t parse_unit_quantity(std::string_view text, const std::string& where);

// Human-readable forms for tables: millicores as "250m"/"2", bytes as "512Mi"/"1Gi"/"1500".
std::string format_milli(int64_t milli);
std::string format_bytes(int64_t bytes);

}  // namespace orrery
