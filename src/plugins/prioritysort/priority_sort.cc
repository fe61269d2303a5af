#include "plugins/prioritysort/priority_sort.h"

#include "plugins/helper/names.h"

namespace orrery::plugins {

std::string_view PrioritySort::name() const {
  return names::kPrioritySort;
}

bool PrioritySort::less(const fw::QueuedPod& a, const fw::QueuedPod& b) const {
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.timestamp_us != b.timestamp_us) return a.timestamp_us < b.timestamp_us;
  return a.serial < b.serial;
}

}  // namespace orrery::plugins
