#include "core/resources.h"

#include <mutex>

#include "core/error.h"
#include "core/quantity.h"

namespace orrery {
namespace {

struct Registry {
  std::mutex mu;
  std::array<std::string, kMaxResources> names{"cpu", "memory", "ephemeral-storage", "pods",
                                               "nvidia.com/gpu"};
  int count = 5;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

std::optional<ResourceId> find_resource(std::string_view name) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  for (int i = 0; i < r.count; ++i)
    if (r.names[i] == name) return static_cast<ResourceId>(i);
  return std::nullopt;
}

ResourceId resource_id(std::string_view name) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  for (int i = 0; i < r.count; ++i)
    if (r.names[i] == name) return static_cast<ResourceId>(i);
  if (r.count == kMaxResources) {
    throw InputError("too many distinct resource names (at most " + std::to_string(kMaxResources) +
                     "): cannot add \"" + std::string(name) + "\"");
  }
  r.names[r.count] = std::string(name);
  return static_cast<ResourceId>(r.count++);
}

std::string_view resource_name(ResourceId id) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  return r.names[id];
}

int resource_count() {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  return r.count;
}

int64_t parse_resource_quantity(ResourceId id, std::string_view text, const std::string& where) {
  return id == kCpu ? parse_milli_quantity(text, where) : parse_unit_quantity(text, where);
}

std::string format_resource_quantity(ResourceId id, int64_t value) {
  if (id == kCpu) return format_milli(value);
  if (id == kMemory || id == kEphemeralStorage) return format_bytes(value);
  return std::to_string(value);
}

std::string Resources::to_string() const {
  std::string out;
  for (int i = 0; i < kMaxResources; ++i) {
    if (q[i] == 0) continue;
    if (!out.empty()) out += ", ";
    out += std::string(resource_name(static_cast<ResourceId>(i))) + "=" +
           format_resource_quantity(static_cast<ResourceId>(i), q[i]);
  }
  return out;
}

}  // namespace orrery
