// Job traces in the Sparrow/Megha ".tr" format (data/megha/): one job per line,
//   arrival_time_s num_tasks mean_task_duration_s d_1 ... d_n
// whitespace separated, d_i the task durations in seconds. Blank lines and lines starting with
// '#' are skipped. Errors name the file and line: "syn.tr:12: expected 250 task durations, got
// 249".
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/event_loop.h"

namespace orrery::sim {

struct TraceJob {
  Time arrival;
  uint32_t first_task;  // index into Trace::task_duration
  uint32_t num_tasks;
  double mean_task_duration_s;  // as given in the trace (PigeonC's short/long split uses it)
  Time longest_task;            // ideal job response time
  int line;                     // 1-based line in the trace file
};

struct Trace {
  std::string source;
  std::vector<TraceJob> jobs;       // in file order
  std::vector<Time> task_duration;  // all tasks, job by job

  size_t task_count() const { return task_duration.size(); }
  std::span<const Time> tasks_of(const TraceJob& j) const {
    return {task_duration.data() + j.first_task, j.num_tasks};
  }
};

// Throws InputError on unreadable files or malformed lines.
Trace read_trace(const std::string& path);
Trace parse_trace(std::string_view text, const std::string& source);

}  // namespace orrery::sim
