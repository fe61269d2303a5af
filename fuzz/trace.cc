// `.tr` job traces (sim/trace.h) as `orrery sim --trace FILE` and scenario `traces:` read them.
// Invariants: the jobs' task ranges tile task_duration in order, every time is within the 64-bit
// microsecond range the simulator uses, longest_task is the maximum of the job's tasks.
#include "sim/trace.h"
#include "fuzz_common.h"

using namespace orrery;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sim::Trace t;
  if (!fuzz::accepts([&] { t = sim::parse_trace(fuzz::as_text(data, size), "fuzz.tr"); })) return 0;
  FUZZ_CHECK(!t.jobs.empty(), "");
  uint64_t next = 0;
  for (const sim::TraceJob& j : t.jobs) {
    FUZZ_CHECK(j.first_task == next && j.num_tasks > 0, std::to_string(j.line));
    next += j.num_tasks;
    FUZZ_CHECK(j.arrival >= 0 && j.mean_task_duration_s >= 0, std::to_string(j.line));
    sim::Time longest = 0;
    for (sim::Time d : t.tasks_of(j)) {
      FUZZ_CHECK(d >= 0, std::to_string(j.line));
      longest = std::max(longest, d);
    }
    FUZZ_CHECK(longest == j.longest_task, std::to_string(j.line));
  }
  FUZZ_CHECK(next == t.task_count(), std::to_string(next));
  return 0;
}
