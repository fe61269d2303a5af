// The switch (§5.1, Algorithm 1): the image variant for the hardware the decider chose.
//
// A pod declares its variants with the annotation
//     orrery.io/images: "cpu=REPO:TAG,gpu=REPO:TAG"
// Each entry is KIND=IMAGE with KIND cpu or gpu; an entry may carry its own GPU request after a
// semicolon: "gpu=repo/tf:gpu;gpus=2" (default 1 for the GPU variant, 0 for the CPU one). A pod
// without the annotation has one variant: its own first container's image, a GPU variant when it
// requests nvidia.com/gpu.
//
// After the decision the pod's first container gets the chosen image and its GPU request
// (requests and limits of nvidia.com/gpu) is set to the variant's; the original image and GPU
// request are kept in the annotation orrery.io/original: "IMAGE;gpus=N". Against a real API
// server, a pending pod's resources cannot change in place, so the backend re-creates the pod
// (same name, labels and owner references, the original in that annotation) and schedules the
// replacement: ClusterBackend::update_pod returns false. In the simulator the change is in place.
//
// Incompatibilities (the paper's tensorflow on CPU1/CPU2) are learned from failed runs: a pair
// image/node that failed and never succeeded is never tried again (Incompatibilities, loaded from
// the history database at start).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/pod.h"
#include "framework/backend.h"
#include "policies/kubcg/history.h"

namespace orrery::kubcg {

inline constexpr std::string_view kImagesAnnotation = "orrery.io/images";
inline constexpr std::string_view kOriginalAnnotation = "orrery.io/original";

struct Variant {
  std::string image;
  int gpus = 0;
};

struct ImageVariants {
  Variant cpu;  // image empty: none
  Variant gpu;
  const Variant& of(Resource r) const { return r == Resource::kGpu ? gpu : cpu; }
};

// Parses the annotation's value. Throws InputError naming `where` and the bad entry.
ImageVariants parse_variants(std::string_view text, const std::string& where);
// The pod's variants: the annotation, or its own image. Throws InputError for a malformed
// annotation.
ImageVariants variants_of(const Pod& pod);

// Algorithm 1: the change that gives the pod the variant for `r`; nullopt when the pod already is
// that variant.
std::optional<fw::PodUpdate> switch_image(const Pod& pod, const ImageVariants& v, Resource r);

class Incompatibilities {
 public:
  void load(const std::vector<std::pair<std::string, std::string>>& pairs);
  void learn(const std::string& image, const std::string& node) { pairs_.emplace(image, node); }
  bool blocked(const std::string& image, const std::string& node) const {
    return !pairs_.empty() && pairs_.count({image, node}) != 0;
  }
  size_t size() const { return pairs_.size(); }
  static bool check(const void* self, const std::string& image, const std::string& node) {
    return static_cast<const Incompatibilities*>(self)->blocked(image, node);
  }

 private:
  std::set<std::pair<std::string, std::string>> pairs_;
};

}  // namespace orrery::kubcg
