// A node as the scheduler sees it: the fields of v1.Node it reads, plus orrery's own fields
// derived from well-known labels and annotations (see docs/FORMATS.md):
//   tier        label orrery.io/tier: edge | cloud
//   constraints annotation or label orrery.io/constraints: "0,3,7" (machine-constraint ids < 64;
//               a label value uses "0_3_7")
//   gpu model   label orrery.io/gpu-model, else nvidia.com/gpu.product (GPU feature discovery)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/labels.h"
#include "core/resources.h"

namespace orrery {

enum class Tier : uint8_t { kUnknown, kEdge, kCloud };

// One entry of status.images: the names the image is known by and its size.
struct NodeImage {
  std::vector<StrId> names;
  int64_t size_bytes = 0;
};
std::string_view to_string(Tier t);

struct Node {
  std::string name;
  LabelSet labels;
  LabelSet annotations;
  std::vector<Taint> taints;
  bool unschedulable = false;
  Resources capacity;
  Resources allocatable;  // what scheduling uses; defaults to capacity when absent
  std::vector<NodeImage> images;  // status.images (ImageLocality)
  Tier tier = Tier::kUnknown;
  uint64_t constraints = 0;  // bit j set: satisfies machine constraint j
  StrId gpu_model = kNoStr;

  // Recomputes tier / constraints / gpu_model from labels and annotations. Throws InputError
  // (prefixed with `where`) on a malformed orrery.io/constraints value.
  void derive_orrery_fields(const std::string& where);
};

// Parses "0,3,7" (or "0_3_7") into a bit set. Throws InputError mentioning `where` on bad input.
uint64_t parse_constraint_ids(std::string_view text, const std::string& where);

}  // namespace orrery
