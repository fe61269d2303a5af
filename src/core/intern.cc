#include "core/intern.h"

#include <array>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace orrery {
namespace {

constexpr uint32_t kChunkBits = 12;
constexpr uint32_t kChunkSize = 1u << kChunkBits;
constexpr uint32_t kMaxChunks = 1u << 16;

struct Pool {
  std::mutex mu;
  std::unordered_map<std::string_view, StrId> ids;
  // Fixed table of chunk pointers: readers index it without a lock; a chunk, once published,
  // never moves.
  std::array<std::unique_ptr<std::string[]>, kMaxChunks> chunks;
  uint32_t size = 0;

  Pool() { add(""); }

  StrId add(std::string_view s) {
    const uint32_t id = size;
    const uint32_t c = id >> kChunkBits;
    if (c >= kMaxChunks) throw std::length_error("string intern pool exhausted");
    if (!chunks[c]) chunks[c] = std::make_unique<std::string[]>(kChunkSize);
    std::string& slot = chunks[c][id & (kChunkSize - 1)];
    slot.assign(s);
    ids.emplace(std::string_view(slot), id);
    ++size;
    return id;
  }
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

StrId intern(std::string_view s) {
  if (s.empty()) return kNoStr;
  Pool& p = pool();
  std::lock_guard lock(p.mu);
  auto it = p.ids.find(s);
  if (it != p.ids.end()) return it->second;
  return p.add(s);
}

StrId find_interned(std::string_view s) {
  if (s.empty()) return kNoStr;
  Pool& p = pool();
  std::lock_guard lock(p.mu);
  auto it = p.ids.find(s);
  return it == p.ids.end() ? kNoStr : it->second;
}

std::string_view interned(StrId id) {
  return pool().chunks[id >> kChunkBits][id & (kChunkSize - 1)];
}

}  // namespace orrery
