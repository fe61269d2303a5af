// The watch stream's wire format (a chunked HTTP body of newline-delimited JSON events,
// {"type": ADDED|MODIFIED|DELETED|BOOKMARK|ERROR, "object": {...}}), framed by ApiClient::stream
// and decoded by the Informer. Kept apart from the HTTP and thread code so it can be tested and
// fuzzed (fuzz/watch_stream.cc) on its own.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "k8s/objects.h"

namespace orrery::k8s {

// Splits a byte stream, arriving in chunks cut anywhere, into lines; empty lines are skipped.
class LineSplitter {
 public:
  // Appends `chunk` and calls on_line for each complete line; returns false as soon as on_line
  // does (the rest of the chunk is then not looked at).
  bool feed(std::string_view chunk, const std::function<bool(std::string_view line)>& on_line);
  // The unterminated tail: the last event of a stream that ended without a newline.
  const std::string& rest() const { return pending_; }

 private:
  std::string pending_;
};

struct WatchEvent {
  std::string type;  // as sent: ADDED, MODIFIED, DELETED, BOOKMARK, ERROR or anything else
  JsonValue object;  // always a JSON object
};

// One page of a list response ({"items": [...], "metadata": {"resourceVersion", "continue"}}).
struct ListPage {
  std::vector<JsonValue> items;  // "items": null is an empty page
  std::string resource_version;  // "" when absent or not a string
  std::string continue_token;    // "" on the last page
};
// nullopt when the body is not an object with an "items" array (or null).
std::optional<ListPage> decode_list_page(std::string_view body);

// One line of a watch stream; nullopt when it is not JSON, not an object, or lacks a string
// "type" or an object "object" (the informer logs and skips such a line).
std::optional<WatchEvent> decode_watch_event(std::string_view line);

}  // namespace orrery::k8s
