// Scenario files (sim/scenario.h) as `orrery sim SCENARIO` reads them: parse_scenario on the text,
// with relative file names (traces, snapshots, scheduler configurations) resolved against
// fuzz/data/, which holds small ones. parse_scenario ends with the input-limit check.
#include "sim/scenario.h"
#include "fuzz_common.h"

using namespace orrery;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::quiet_logs();
  const std::string text(fuzz::as_text(data, size));
  fuzz::accepts([&] { (void)sim::parse_scenario(text, "fuzz.yaml", ORRERY_FUZZ_DATA_DIR); });
  return 0;
}
