// The JSON item scanner (io/json_items.h) that finds the items of a big `kubectl get -o json`
// list without a tree. Differential against nlohmann::json (a complete RFC 8259 parser):
//  - text nlohmann accepts as an object must not be a SyntaxError for the scanner (bar its
//    depth limit);
//  - when the scanner accepts a list, nlohmann must accept the text too, and the items it found
//    must be exactly the elements of the "items" array, each span parsing to the same value;
//  - starts_like_json_object never reads out of bounds (ASan) and agrees with the first bytes.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "fuzz_common.h"
#include "io/json_items.h"

using namespace orrery;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  (void)json::starts_like_json_object(text);
  std::optional<json::TopLevelList> list;
  bool syntax_error = false;
  try {
    list = json::scan_top_level_list(text);
  } catch (const json::SyntaxError& e) {
    // The scanner's depth limit is deliberate (nlohmann has none): not a disagreement.
    syntax_error = std::string_view(e.what()).find("nesting deeper") == std::string_view::npos;
    FUZZ_CHECK(e.line >= 1, std::to_string(e.line));
  }
  const nlohmann::json whole = nlohmann::json::parse(text, nullptr, false);
  if (!whole.is_discarded() && whole.is_object()) {
    FUZZ_CHECK(!syntax_error, "the scanner rejects JSON that nlohmann accepts");
  }
  if (!list) return 0;
  // The scanner leaves UTF-8, \u surrogate pairing and the range of numbers to yaml-cpp, which
  // reads each item (RFC 8259's grammar allows a lone \ud800); nlohmann checks both.
  if (whole.is_discarded() && !fuzz::valid_utf8(text)) return 0;
  if (whole.is_discarded()) {
    try {
      (void)nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      if (std::string_view(e.what()).find("surrogate") != std::string_view::npos) return 0;
      // out_of_range.406, a number beyond double's range ("1e400"): RFC 8259 section 6 lets a
      // parser limit the range of numbers; the scanner checks the grammar only, and each field's
      // reader checks its range (regress-number-beyond-double).
      if (e.id == 406) return 0;
    }
  }
  FUZZ_CHECK(!whole.is_discarded(), "the scanner accepts text that nlohmann rejects");
  FUZZ_CHECK(whole.is_object(), "not an object");
  if (list->kind) {
    FUZZ_CHECK(whole.contains("kind") && whole["kind"] == *list->kind, *list->kind);
  }
  if (!list->items) return 0;
  const nlohmann::json& items = whole["items"];
  FUZZ_CHECK(items.is_array() && items.size() == list->items->size(),
             std::to_string(list->items->size()));
  for (size_t i = 0; i < items.size(); ++i) {
    const json::Span& s = (*list->items)[i];
    FUZZ_CHECK(s.begin <= s.end && s.end <= text.size() && s.line >= 1, std::to_string(i));
    const nlohmann::json item =
        nlohmann::json::parse(text.substr(s.begin, s.end - s.begin), nullptr, false);
    FUZZ_CHECK(item == items[i], std::to_string(i));
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + s.begin, '\n'));
    FUZZ_CHECK(line == s.line, std::to_string(line) + " vs " + std::to_string(s.line));
  }
  return 0;
}
