// Where a node's telemetry comes from (thesis §4.2.1), behind one interface:
//
//   ProcSource          real Linux: /proc/stat, /proc/meminfo, /proc/pressure/cpu (proc_source.h)
//   ReplaySource        a CSV of timestamped samples, for tests and replaying a node (replay_source.h)
//   NodeTelemetrySource the simulator's per-node utilisation and pressure, through the framework's
//                       fw::NodeTelemetry service (node_telemetry_source.h)
//
// A source returns raw [0,1] readings; combine() turns them into the vector CARICO models:
//
//   dimension 0  CPU = (CPU utilisation + CPU pressure) / 2      (§4.2.1 "Combining CPU
//                Utilisation and CPU Pressure": 1 when at least one thread always waits)
//                CPU = CPU utilisation when pressure is unavailable (no PSI: older kernels,
//                some containers) — the documented fallback, reported once by the source
//   dimension 1  memory = 1 − (MemFree + Buffers + Cached) / MemTotal
#pragma once

#include <optional>
#include <string>

#include <Eigen/Dense>

namespace orrery::carico {

inline constexpr int kDims = 2;  // CPU (utilisation ⊕ pressure), memory

struct RawSample {
  double cpu_util = 0;                 // [0,1]
  double mem_util = 0;                 // [0,1]
  std::optional<double> cpu_pressure;  // [0,1]; nullopt without PSI
  int pods = -1;                       // running pods when the source knows them, else -1
};

// The modelled vector (see above). Components are clamped to [0,1].
Eigen::VectorXd combine(const RawSample& s);

// True when every reading is finite and within [0,1] (a little slack for rounding).
bool plausible(const RawSample& s, std::string* why);

class TelemetrySource {
 public:
  virtual ~TelemetrySource() = default;
  // One reading at `now_s` (seconds on the agent's clock). nullopt when this poll gave nothing
  // usable (`*problem` says why: garbage, truncated file, priming the first delta); the agent
  // then keeps its last good signal.
  virtual std::optional<RawSample> read(double now_s, std::string* problem) = 0;
  // What the source measures, in a sentence (logged at start-up).
  virtual std::string describe() const = 0;
};

}  // namespace orrery::carico
