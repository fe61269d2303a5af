// KubCG's history CSV import (policies/kubcg/history_csv.h) as `orrery history import` reads it
// (all-or-nothing). Invariant: an accepted file exports (records_csv) to text that imports to
// the same records, and exporting again gives the same text.
#include "fuzz_common.h"
#include "policies/kubcg/history_csv.h"

using namespace orrery;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fuzz::as_text(data, size));
  std::vector<kubcg::Record> records;
  if (!fuzz::accepts([&] { records = kubcg::parse_records_csv(text, "fuzz.csv"); })) return 0;
  const std::string out = kubcg::records_csv(records);
  std::vector<kubcg::Record> again;
  FUZZ_CHECK(fuzz::accepts([&] { again = kubcg::parse_records_csv(out, "export.csv"); }), out);
  FUZZ_CHECK(again.size() == records.size(), out);
  FUZZ_CHECK(kubcg::records_csv(again) == out, out);
  return 0;
}
