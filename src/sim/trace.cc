#include "sim/trace.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "io/k8s_objects.h"
#include "io/limits.h"

namespace orrery::sim {
namespace {

// 4e12 s = 4e18 µs: below core/time.h's kTimeCap, and an arrival plus a duration still fits int64.
constexpr double kMaxSeconds = 4e12;

struct LineReader {
  std::string_view line;
  size_t pos = 0;

  std::string_view next() {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t' || line[pos] == '\r')) ++pos;
    const size_t start = pos;
    while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t' && line[pos] != '\r') ++pos;
    return line.substr(start, pos - start);
  }
};

}  // namespace

Trace parse_trace(std::string_view text, const std::string& source) {
  Trace t;
  t.source = source;
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    LineReader r{line};
    std::string_view first = r.next();
    if (first.empty() || first[0] == '#') continue;
    auto fail = [&](const std::string& what) {
      throw InputError(source + ":" + std::to_string(line_no) + ": " + what);
    };
    auto number = [&](std::string_view tok, const char* what) {
      double v = 0;
      auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
      if (tok.empty() || ec != std::errc() || p != tok.data() + tok.size() || !std::isfinite(v)) {
        fail(std::string("expected ") + what + ", got \"" + std::string(tok) + "\"");
      }
      if (v < 0) fail(std::string("expected ") + what + ", got negative " + std::string(tok));
      // Times are 64-bit microseconds: about 292,000 years.
      if (v > kMaxSeconds) {
        fail(std::string("expected ") + what + " of at most 4e12 (about 126,000 years), got " +
             std::string(tok));
      }
      return v;
    };
    TraceJob job{};
    job.line = line_no;
    job.arrival = seconds(number(first, "an arrival time in seconds"));
    std::string_view n_tok = r.next();
    if (n_tok.empty()) fail("expected: arrival_time num_tasks mean_task_duration durations...");
    uint32_t n = 0;
    {
      auto [p, ec] = std::from_chars(n_tok.data(), n_tok.data() + n_tok.size(), n);
      if (ec != std::errc() || p != n_tok.data() + n_tok.size() || n == 0) {
        fail("expected a positive task count, got \"" + std::string(n_tok) + "\"");
      }
    }
    if (static_cast<int64_t>(t.task_duration.size()) + n > input_limits().pods) {
      fail(over_limit("tasks in the trace up to this job",
                      static_cast<double>(t.task_duration.size()) + n, input_limits().pods,
                      "tasks"));
    }
    if (t.task_duration.size() + n > std::numeric_limits<uint32_t>::max()) {
      fail("more than 4,294,967,295 tasks in one trace");
    }
    std::string_view mean_tok = r.next();
    if (mean_tok.empty()) fail("expected a mean task duration after the task count");
    job.mean_task_duration_s = number(mean_tok, "a mean task duration in seconds");
    job.first_task = static_cast<uint32_t>(t.task_duration.size());
    job.num_tasks = n;
    job.longest_task = 0;
    uint32_t got = 0;
    for (std::string_view tok = r.next(); !tok.empty(); tok = r.next()) {
      Time d = seconds(number(tok, "a task duration in seconds"));
      if (got < n) t.task_duration.push_back(d);
      job.longest_task = std::max(job.longest_task, d);
      ++got;
    }
    if (got != n) {
      fail("expected " + std::to_string(n) + " task durations, got " + std::to_string(got));
    }
    t.jobs.push_back(job);
  }
  if (t.jobs.empty()) throw InputError(source + ": trace has no jobs");
  return t;
}

Trace read_trace(const std::string& path) {
  return parse_trace(read_text_file(path), path);
}

}  // namespace orrery::sim
