#include "obs/log.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <mutex>
#include <stdexcept>

namespace orrery::obs {
namespace {

std::atomic<Level> g_level{Level::kInfo};
std::mutex g_mu;
Sink g_sink;  // guarded by g_mu

bool needs_quotes(std::string_view v) {
  if (v.empty()) return true;
  return std::any_of(v.begin(), v.end(), [](unsigned char c) {
    return c <= ' ' || c == '"' || c == '=' || c == '\\' || c >= 0x7f;
  });
}

void append_value(std::string& out, std::string_view v) {
  if (!needs_quotes(v)) {
    out += v;
    return;
  }
  out += '"';
  for (unsigned char c : v) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < ' ') {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

std::string timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace

Level parse_level(std::string_view text) {
  if (text == "debug") return Level::kDebug;
  if (text == "info") return Level::kInfo;
  if (text == "warn" || text == "warning") return Level::kWarn;
  if (text == "error") return Level::kError;
  throw std::invalid_argument("unknown log level \"" + std::string(text) +
                              "\" (expected debug, info, warn or error)");
}

const char* level_name(Level level) {
  switch (level) {
    case Level::kDebug: return "debug";
    case Level::kInfo: return "info";
    case Level::kWarn: return "warn";
    case Level::kError: return "error";
  }
  return "info";
}

void set_log_level(Level level) {
  g_level.store(level);
}
Level log_level() {
  return g_level.load();
}

void set_log_sink(Sink sink) {
  std::lock_guard lock(g_mu);
  g_sink = std::move(sink);
}

bool is_secret_key(std::string_view key) {
  std::string k(key);
  std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* word : {"token", "password", "passwd", "authorization", "secret", "key-data",
                           "key_data", "keydata", "credential", "bearer"})
    if (k.find(word) != std::string::npos) return true;
  return false;
}

std::string format_record(Level level, std::string_view msg, std::initializer_list<Field> fields) {
  std::string line = "level=";
  line += level_name(level);
  line += " msg=";
  append_value(line, msg);
  for (const Field& f : fields) {
    line += ' ';
    line += f.first;
    line += '=';
    append_value(line, is_secret_key(f.first) ? std::string_view("[REDACTED]") : f.second);
  }
  return line;
}

void log(Level level, std::string_view msg, std::initializer_list<Field> fields) {
  if (level < g_level.load()) return;
  const std::string line = "ts=" + timestamp() + ' ' + format_record(level, msg, fields);
  std::lock_guard lock(g_mu);
  if (g_sink)
    g_sink(line);
  else
    std::cerr << line << '\n';
}

}  // namespace orrery::obs
