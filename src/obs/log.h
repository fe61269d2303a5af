// Structured, levelled logs for orrery's long-running processes, one logfmt line per record:
//
//   ts=2026-11-23T22:40:01.123Z level=info msg="bound pod" pod=default/web-1 node=n3
//
// Thread-safe; lines go to stderr unless a sink is installed (tests capture them). Values of
// keys that name credentials (token, password, authorization, secret, key data; see
// is_secret_key) are written as "[REDACTED]" whatever the caller passes, so a secret cannot
// reach a log by accident.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace orrery::obs {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

// "debug", "info", "warn" (or "warning"), "error"; throws std::invalid_argument otherwise.
Level parse_level(std::string_view text);
const char* level_name(Level level);

using Field = std::pair<std::string_view, std::string>;
using Sink = std::function<void(const std::string& line)>;

// Records below the threshold are dropped (default: info).
void set_log_level(Level level);
Level log_level();
// Replace the destination (nullptr restores stderr). The sink is called under the log mutex.
void set_log_sink(Sink sink);

bool is_secret_key(std::string_view key);

// Writes one record (no-op below the threshold).
void log(Level level, std::string_view msg, std::initializer_list<Field> fields = {});

inline void debug(std::string_view msg, std::initializer_list<Field> fields = {}) {
  log(Level::kDebug, msg, fields);
}
inline void info(std::string_view msg, std::initializer_list<Field> fields = {}) {
  log(Level::kInfo, msg, fields);
}
inline void warn(std::string_view msg, std::initializer_list<Field> fields = {}) {
  log(Level::kWarn, msg, fields);
}
inline void error(std::string_view msg, std::initializer_list<Field> fields = {}) {
  log(Level::kError, msg, fields);
}

// The line log() would write, without the timestamp (for tests and for formatting elsewhere).
std::string format_record(Level level, std::string_view msg, std::initializer_list<Field> fields);

}  // namespace orrery::obs
