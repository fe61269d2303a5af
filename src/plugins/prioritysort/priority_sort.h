// PrioritySort (QueueSort): higher priority first, then earlier queue timestamp. Ties (same
// priority and timestamp) go by creation serial so the order is deterministic (upstream leaves
// them to the heap).
#pragma once

#include "framework/plugin.h"

namespace orrery::plugins {

class PrioritySort : public fw::Plugin {
 public:
  std::string_view name() const override;
  uint32_t extension_points() const override { return fw::kQueueSort; }
  bool less(const fw::QueuedPod& a, const fw::QueuedPod& b) const override;
};

}  // namespace orrery::plugins
