#include "framework/status.h"

#include <algorithm>
#include <vector>

#include "framework/diagnosis.h"

namespace orrery::fw {

std::string Status::message() const {
  std::string out;
  for (const std::string& r : reasons) out += (out.empty() ? "" : ", ") + r;
  return out;
}

std::string Diagnosis::message() const {
  // As upstream FitError.Error(): each section is appended as " <section>.".
  std::string msg = "0/" + std::to_string(num_all_nodes) + " nodes are available:";
  if (!pre_filter_message.empty()) {
    msg += " " + pre_filter_message + ".";
  } else {
    std::vector<std::string> items;
    for (const auto& [reason, count] : reason_counts)
      items.push_back(std::to_string(count) + " " + reason);
    std::sort(items.begin(), items.end());  // Go's sort.Strings: byte order
    if (!items.empty()) {
      std::string joined;
      for (const auto& s : items) joined += (joined.empty() ? "" : ", ") + s;
      msg += " " + joined + ".";
    }
  }
  // Since v1.28 the PostFilter message is appended as is (it carries its own period).
  if (!post_filter_message.empty()) msg += " " + post_filter_message;
  return msg;
}

}  // namespace orrery::fw
