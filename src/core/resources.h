// Resource vectors. Every resource name maps to a small dense id; the well-known ones have fixed
// ids, extended resources ("example.com/foo", "hugepages-2Mi") are registered on first use.
// Units: cpu in millicores, memory and ephemeral-storage in bytes, everything else in units.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace orrery {

using ResourceId = uint8_t;
inline constexpr ResourceId kCpu = 0;
inline constexpr ResourceId kMemory = 1;
inline constexpr ResourceId kEphemeralStorage = 2;
inline constexpr ResourceId kPods = 3;
inline constexpr ResourceId kGpu = 4;  // nvidia.com/gpu
inline constexpr int kMaxResources = 16;

// Registry of resource names (process-wide, thread-safe).
ResourceId resource_id(std::string_view name);  // registers; throws InputError when full
std::optional<ResourceId> find_resource(std::string_view name);
std::string_view resource_name(ResourceId id);
int resource_count();  // ids in use: [0, resource_count())

// Parses a quantity for resource `id` with the right scale (milli for cpu). Throws InputError
// naming `where`.
int64_t parse_resource_quantity(ResourceId id, std::string_view text, const std::string& where);
std::string format_resource_quantity(ResourceId id, int64_t value);

struct Resources {
  std::array<int64_t, kMaxResources> q{};

  int64_t& operator[](ResourceId r) { return q[r]; }
  int64_t operator[](ResourceId r) const { return q[r]; }

  Resources& operator+=(const Resources& o) {
    for (int i = 0; i < kMaxResources; ++i) q[i] += o.q[i];
    return *this;
  }
  Resources& operator-=(const Resources& o) {
    for (int i = 0; i < kMaxResources; ++i) q[i] -= o.q[i];
    return *this;
  }
  friend Resources operator+(Resources a, const Resources& b) { return a += b; }
  friend Resources operator-(Resources a, const Resources& b) { return a -= b; }
  bool operator==(const Resources&) const = default;

  // Per-resource maximum (used for init containers).
  void max_with(const Resources& o) {
    for (int i = 0; i < kMaxResources; ++i) q[i] = q[i] < o.q[i] ? o.q[i] : q[i];
  }
  // Every component <= the matching component of `capacity`.
  bool fits_in(const Resources& capacity) const {
    for (int i = 0; i < kMaxResources; ++i)
      if (q[i] > capacity.q[i]) return false;
    return true;
  }
  bool is_zero() const {
    for (int64_t v : q)
      if (v != 0) return false;
    return true;
  }
  // Bit i set when q[i] != 0.
  uint32_t nonzero_mask() const {
    uint32_t m = 0;
    for (int i = 0; i < kMaxResources; ++i)
      if (q[i] != 0) m |= 1u << i;
    return m;
  }
  // "cpu=500m, memory=1Gi" listing the non-zero components.
  std::string to_string() const;
};

}  // namespace orrery
