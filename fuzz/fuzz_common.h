// Shared by the fuzz targets: the product's contract is that bad input ends in an InputError
// (exit 1 with a message naming the input); any other exception would reach the CLI's "internal
// error" handler (exit 2) and is a finding, as is a failed invariant. Both abort, so libFuzzer
// records the input.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "core/error.h"
#include "obs/log.h"

namespace orrery::fuzz {

[[noreturn]] inline void fail(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "fuzz: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
  std::abort();
}

// Runs `f`; an InputError is the expected outcome of bad input, anything else aborts.
template <class F>
bool accepts(F&& f) {
  try {
    f();
    return true;
  } catch (const InputError&) {
    return false;
  } catch (const std::exception& e) {
    fail("exception other than InputError (an \"internal error\" in the CLI)", e.what());
  }
}

// Warnings of malformed input are expected by the thousand: keep the fuzzer's output readable.
inline void quiet_logs() {
  static const bool once = [] {
    obs::set_log_level(obs::parse_level("error"));
    return true;
  }();
  (void)once;
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// RFC 3629 UTF-8 (no overlongs, surrogates or code points above U+10FFFF).
inline bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    int n = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 1, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;
    for (int k = 1; k <= n; ++k) {
      const unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    static const uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n + 1;
  }
  return true;
}

}  // namespace orrery::fuzz

#define FUZZ_CHECK(cond, detail)                                   \
  do {                                                             \
    if (!(cond)) ::orrery::fuzz::fail("invariant " #cond, detail); \
  } while (0)
