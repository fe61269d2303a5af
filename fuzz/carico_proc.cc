// CARICO's /proc parsers (policies/carico/proc_source.h), which the agent runs on /proc/stat,
// /proc/meminfo and /proc/pressure/cpu every sample. The same text goes to all three. Invariants:
// a memory-used fraction is in [0, 1]; a failure says why.
#include "fuzz_common.h"
#include "policies/carico/proc_source.h"

using namespace orrery;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fuzz::as_text(data, size));
  std::string why;
  if (!carico::parse_proc_stat(text, &why)) FUZZ_CHECK(!why.empty(), "stat");
  why.clear();
  const std::optional<double> used = carico::parse_meminfo(text, &why);
  if (used) {
    FUZZ_CHECK(*used >= 0 && *used <= 1, std::to_string(*used));
  } else {
    FUZZ_CHECK(!why.empty(), "meminfo");
  }
  why.clear();
  if (!carico::parse_pressure_some_total(text, &why)) FUZZ_CHECK(!why.empty(), "pressure");
  return 0;
}
