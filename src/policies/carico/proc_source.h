// Telemetry from a real Linux /proc (thesis §4.2.1):
//
//   CPU utilisation  1 − (Δidle + Δiowait) / Δ(all fields) of /proc/stat's "cpu" line, between
//                    two polls (user nice system idle iowait irq softirq steal; guest time is
//                    already inside user/nice)
//   memory           1 − (MemFree + Buffers + Cached) / MemTotal of /proc/meminfo
//   CPU pressure     Δ(some total) / Δt of /proc/pressure/cpu (µs stalled per µs elapsed), the
//                    fraction of time at least one runnable thread waited
//
// What it measures: /proc/stat, /proc/meminfo and /proc/pressure/cpu are kernel-wide (not
// namespaced), so inside a pod they still describe the whole node; the DaemonSet also runs with
// hostPID and the host's /proc mounted read-only so /proc/1 is the host's init (describe() says
// which case it found, and the cgroup the agent itself runs in on cgroup v2). Without PSI
// (missing /proc/pressure/cpu, or a kernel booted with psi=0) the CPU dimension is utilisation
// alone — the fallback of telemetry_source.h — reported once.
//
// Pod count: the pod cgroups under the kubelet's cgroup v2 tree (kubepods.slice with the systemd
// driver, kubepods with cgroupfs) of `cgroup_root`; 0 when there is none (not a Kubernetes node).
//
// Bad content (garbage or truncated lines, counters going backwards) makes read() return nullopt
// with the reason; the next good poll resumes from the new counters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "policies/carico/telemetry_source.h"

namespace orrery::carico {

struct CpuTimes {
  uint64_t busy = 0, idle = 0;  // idle includes iowait
};

// Parsers, exposed for tests. nullopt (with *why) on malformed text.
std::optional<CpuTimes> parse_proc_stat(const std::string& text, std::string* why);
std::optional<double> parse_meminfo(const std::string& text, std::string* why);
// The "some ... total=N" value (µs).
std::optional<uint64_t> parse_pressure_some_total(const std::string& text, std::string* why);
// Pods under a kubelet cgroup tree rooted at `cgroup_root` (e.g. /sys/fs/cgroup); -1 if none.
int count_pod_cgroups(const std::string& cgroup_root);

class ProcSource : public TelemetrySource {
 public:
  explicit ProcSource(std::string proc_root = "/proc", std::string cgroup_root = "/sys/fs/cgroup");
  std::optional<RawSample> read(double now_s, std::string* problem) override;
  std::string describe() const override;
  bool has_psi() const { return psi_; }

 private:
  std::string proc_, cgroup_;
  bool psi_ = true;
  std::optional<CpuTimes> last_cpu_;
  std::optional<uint64_t> last_stall_us_;
  double last_t_ = 0;
};

}  // namespace orrery::carico
