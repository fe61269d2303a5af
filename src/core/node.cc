#include "core/node.h"

#include <charconv>

#include "core/error.h"

namespace orrery {

std::string_view to_string(Tier t) {
  switch (t) {
    case Tier::kUnknown: return "";
    case Tier::kEdge: return "edge";
    case Tier::kCloud: return "cloud";
  }
  return "";
}

uint64_t parse_constraint_ids(std::string_view text, const std::string& where) {
  uint64_t bits = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find_first_of(",_", pos);  // '_' for label values, where ',' is invalid
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(pos, end - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) {
      int id = -1;
      auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), id);
      if (ec != std::errc() || p != item.data() + item.size() || id < 0 || id >= 64) {
        throw InputError(where +
                         ": expected constraint ids in 0..63 separated by ',' or '_', got \"" +
                         std::string(item) + "\"");
      }
      bits |= uint64_t{1} << id;
    }
    pos = end + 1;
  }
  return bits;
}

void Node::derive_orrery_fields(const std::string& where) {
  tier = Tier::kUnknown;
  if (auto t = labels.get(std::string_view("orrery.io/tier"))) {
    if (*t == "edge") {
      tier = Tier::kEdge;
    } else if (*t == "cloud") {
      tier = Tier::kCloud;
    } else {
      throw InputError(where + ": metadata.labels[orrery.io/tier]: expected edge or cloud, got \"" +
                       std::string(*t) + "\"");
    }
  }
  constraints = 0;
  if (auto c = annotations.get(std::string_view("orrery.io/constraints"))) {
    constraints = parse_constraint_ids(*c, where + ": metadata.annotations[orrery.io/constraints]");
  } else if (auto l = labels.get(std::string_view("orrery.io/constraints"))) {
    constraints = parse_constraint_ids(*l, where + ": metadata.labels[orrery.io/constraints]");
  }
  gpu_model = kNoStr;
  if (auto g = labels.get(std::string_view("orrery.io/gpu-model"))) {
    gpu_model = intern(*g);
  } else if (auto p = labels.get(std::string_view("nvidia.com/gpu.product"))) {
    gpu_model = intern(*p);
  }
}

}  // namespace orrery
