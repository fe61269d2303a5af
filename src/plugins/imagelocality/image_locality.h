// ImageLocality (Score; default weight 1), as upstream v1.34
// (pkg/scheduler/framework/plugins/imagelocality): a node scores by the sizes of the pod's
// images (init and app containers, by upstream's normalizedImageName: ":latest" appended when the
// name has no tag; no registry mapping — "nginx" does not match "docker.io/library/nginx") it
// already has in status.images, each scaled by its spread (nodes having it / all nodes):
//   sum = Σ int64(size · numNodes/totalNodes) over the containers whose image the node has
//   score = 100 · (clamp(sum, 23 MiB, 1000 MiB · containers) − 23 MiB) / (1000 MiB · containers
//           − 23 MiB)
// No normalisation. An image's size is the one reported by the first node (in the order nodes
// were added) that lists the name, like the scheduler cache's ImageStateSummary. The image table
// is rebuilt only when nodes change (ClusterState::node_epoch); a pod none of whose images is on
// any node scores 0 everywhere without a pass over the nodes.
#pragma once

#include <unordered_map>
#include <vector>

#include "framework/plugin.h"

namespace orrery::plugins {

// upstream normalizedImageName.
std::string normalized_image_name(std::string_view name);

class ImageLocality : public fw::Plugin {
 public:
  std::string_view name() const override;
  uint32_t extension_points() const override { return fw::kScore; }
  void score(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
             int64_t* scores) override;
  std::optional<int64_t> uniform_score(const fw::CycleContext& cycle,
                                       std::span<const NodeId> nodes) override;

 private:
  struct ImageState {
    int64_t size = 0;
    std::vector<NodeId> nodes;  // live nodes listing the name
  };
  void refresh(const ClusterState& st);
  // The pod's containers' image states (nullptr for images no node has); false when none exists.
  bool pod_images(const fw::CycleContext& cycle);

  uint64_t epoch_ = ~uint64_t{0};
  std::unordered_map<StrId, ImageState> images_;
  std::vector<const ImageState*> pod_images_;  // per container, init containers first
  std::vector<int64_t> sums_;                  // per NodeId, scratch
};

}  // namespace orrery::plugins
