#include "plugins/imagelocality/image_locality.h"

#include <algorithm>

#include "plugins/helper/names.h"

namespace orrery::plugins {

namespace {

constexpr int64_t kMiB = 1024 * 1024;
constexpr int64_t kMinThreshold = 23 * kMiB;
constexpr int64_t kMaxContainerThreshold = 1000 * kMiB;

// calculatePriority.
int64_t calculate_priority(int64_t sum, int64_t num_containers) {
  const int64_t max_threshold = kMaxContainerThreshold * num_containers;
  if (sum < kMinThreshold) {
    sum = kMinThreshold;
  } else if (sum > max_threshold) {
    sum = max_threshold;
  }
  return fw::kMaxNodeScore * (sum - kMinThreshold) / (max_threshold - kMinThreshold);
}

// scaledImageScore: int64(float64(size) * (float64(numNodes) / float64(totalNumNodes))).
int64_t scaled_image_score(int64_t size, size_t num_nodes, size_t total_nodes) {
  const double spread = static_cast<double>(num_nodes) / static_cast<double>(total_nodes);
  return static_cast<int64_t>(static_cast<double>(size) * spread);
}

}  // namespace

std::string normalized_image_name(std::string_view name) {
  const size_t colon = name.rfind(':');
  const size_t slash = name.rfind('/');
  // strings.LastIndex(name, ":") <= strings.LastIndex(name, "/"), with -1 for "not found".
  const auto last = [](size_t i) { return i == std::string_view::npos ? -1L : static_cast<long>(i); };
  std::string out(name);
  if (last(colon) <= last(slash)) out += ":latest";
  return out;
}

std::string_view ImageLocality::name() const {
  return names::kImageLocality;
}

void ImageLocality::refresh(const ClusterState& st) {
  if (epoch_ == st.node_epoch()) return;
  images_.clear();
  for (NodeId id : st.nodes()) {  // in the order nodes were added
    for (const NodeImage& image : st.node(id).images) {
      for (StrId n : image.names) {
        auto [it, fresh] = images_.try_emplace(n);
        if (fresh) it->second.size = image.size_bytes;
        // A name listed twice on one node counts the node once.
        if (it->second.nodes.empty() || it->second.nodes.back() != id) {
          it->second.nodes.push_back(id);
        }
      }
    }
  }
  epoch_ = st.node_epoch();
}

bool ImageLocality::pod_images(const fw::CycleContext& cycle) {
  refresh(cycle.state);
  pod_images_.clear();
  if (images_.empty()) return false;
  bool any = false;
  auto add = [&](const Container& c) {
    const ImageState* state = nullptr;
    const StrId id = find_interned(normalized_image_name(c.image));
    if (id != kNoStr) {
      auto it = images_.find(id);
      if (it != images_.end()) state = &it->second;
    }
    pod_images_.push_back(state);
    any = any || state != nullptr;
  };
  for (const Container& c : cycle.spec.init_containers) add(c);
  for (const Container& c : cycle.spec.containers) add(c);
  return any;
}

std::optional<int64_t> ImageLocality::uniform_score(const fw::CycleContext& cycle,
                                                    std::span<const NodeId>) {
  // No image of the pod on any node: every node sums 0, which scores 0.
  if (!pod_images(cycle)) return 0;
  return std::nullopt;
}

void ImageLocality::score(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
                          int64_t* scores) {
  const ClusterState& st = cycle.state;
  const int64_t num_containers =
      static_cast<int64_t>(cycle.spec.init_containers.size() + cycle.spec.containers.size());
  if (!pod_images(cycle)) {
    for (size_t j = 0; j < nodes.size(); ++j) scores[j] = calculate_priority(0, num_containers);
    return;
  }
  if (sums_.size() < st.node_slots()) sums_.resize(st.node_slots(), 0);
  const size_t total = st.node_count();
  for (const ImageState* s : pod_images_) {
    if (!s) continue;
    const int64_t v = scaled_image_score(s->size, s->nodes.size(), total);
    for (NodeId n : s->nodes) sums_[n] += v;
  }
  for (size_t j = 0; j < nodes.size(); ++j) {
    scores[j] = calculate_priority(sums_[nodes[j]], num_containers);
  }
  for (const ImageState* s : pod_images_) {
    if (!s) continue;
    for (NodeId n : s->nodes) sums_[n] = 0;
  }
}

}  // namespace orrery::plugins
