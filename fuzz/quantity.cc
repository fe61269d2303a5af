// Kubernetes quantities (core/quantity.h), as every cpu/memory/storage field reads them.
// Invariants: a parsed quantity formats (format_milli / format_bytes) and re-parses to the same
// value; the milli and unit scales agree (unit = ceil(x), milli = ceil(1000 x)); the throwing
// wrappers agree with parse_quantity and throw only InputError.
#include "core/quantity.h"

#include "fuzz_common.h"

using namespace orrery;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  std::string err;
  const std::optional<int64_t> milli = parse_quantity(text, 3, &err);
  const std::optional<int64_t> unit = parse_quantity(text, 0, &err);
  if (milli) {
    const std::string f = format_milli(*milli);
    FUZZ_CHECK(parse_quantity(f, 3, &err) == milli, f);
  }
  if (unit) {
    const std::string f = format_bytes(*unit);
    FUZZ_CHECK(parse_quantity(f, 0, &err) == unit, f);
  }
  if (milli && unit && *milli >= 0 && *unit >= 0 && *unit < INT64_MAX / 1000) {
    FUZZ_CHECK(*milli <= *unit * 1000 && *milli > (*unit - 1) * 1000,
               std::to_string(*milli) + " vs " + std::to_string(*unit));
  }
  int64_t m = 0;
  const bool ok = fuzz::accepts([&] { m = parse_milli_quantity(text, "fuzz"); });
  FUZZ_CHECK(ok == milli.has_value() && (!ok || m == *milli), std::string(text));
  int64_t u = 0;
  const bool ok_u = fuzz::accepts([&] { u = parse_unit_quantity(text, "fuzz"); });
  FUZZ_CHECK(ok_u == unit.has_value() && (!ok_u || u == *unit), std::string(text));
  return 0;
}
