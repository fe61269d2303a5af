#include "policies/carico/proc_source.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "obs/log.h"

namespace orrery::carico {
namespace {

bool read_file(const std::string& path, std::string* out) {
  std::ifstream in(path);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

bool parse_u64(const std::string& s, uint64_t* v) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 19)
    return false;
  *v = std::stoull(s);
  return true;
}

}  // namespace

std::optional<CpuTimes> parse_proc_stat(const std::string& text, std::string* why) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu ", 0) != 0) continue;
    std::istringstream fields(line.substr(4));
    uint64_t v[8];
    std::string tok;
    for (int i = 0; i < 8; ++i) {
      if (!(fields >> tok)) {
        if (why) *why = "/proc/stat: truncated cpu line (" + std::to_string(i) + " of 8 fields)";
        return std::nullopt;
      }
      if (!parse_u64(tok, &v[i])) {
        if (why) *why = "/proc/stat: cpu field " + std::to_string(i + 1) + " is \"" + tok +
                        "\", expected a counter";
        return std::nullopt;
      }
    }
    CpuTimes t;
    t.idle = v[3] + v[4];
    t.busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    return t;
  }
  if (why) *why = "/proc/stat: no \"cpu \" line";
  return std::nullopt;
}

std::optional<double> parse_meminfo(const std::string& text, std::string* why) {
  std::istringstream in(text);
  std::string line;
  int64_t total = -1, free = -1, buffers = -1, cached = -1;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, colon);
    int64_t* slot = key == "MemTotal"  ? &total
                    : key == "MemFree" ? &free
                    : key == "Buffers" ? &buffers
                    : key == "Cached"  ? &cached
                                       : nullptr;
    if (!slot) continue;
    std::istringstream f(line.substr(colon + 1));
    std::string num;
    uint64_t v = 0;
    if (!(f >> num) || !parse_u64(num, &v)) {
      if (why) *why = "/proc/meminfo: " + key + " is \"" + num + "\", expected kB";
      return std::nullopt;
    }
    *slot = static_cast<int64_t>(v);
  }
  if (total <= 0 || free < 0 || buffers < 0 || cached < 0) {
    if (why) *why = "/proc/meminfo: missing MemTotal, MemFree, Buffers or Cached";
    return std::nullopt;
  }
  // In double: three counters near INT64_MAX (garbage, but parseable) overflow an int64 sum.
  const double used = 1.0 - (static_cast<double>(free) + static_cast<double>(buffers) +
                             static_cast<double>(cached)) /
                                static_cast<double>(total);
  return std::clamp(used, 0.0, 1.0);
}

std::optional<uint64_t> parse_pressure_some_total(const std::string& text, std::string* why) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("some ", 0) != 0) continue;
    const auto at = line.find("total=");
    uint64_t v = 0;
    if (at == std::string::npos || !parse_u64(line.substr(at + 6), &v)) {
      if (why) *why = "/proc/pressure/cpu: malformed \"some\" line";
      return std::nullopt;
    }
    return v;
  }
  if (why) *why = "/proc/pressure/cpu: no \"some\" line";
  return std::nullopt;
}

int count_pod_cgroups(const std::string& cgroup_root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const char* top : {"kubepods.slice", "kubepods"}) {
    const fs::path base = fs::path(cgroup_root) / top;
    if (!fs::is_directory(base, ec)) continue;
    int pods = 0;
    auto is_pod = [](const std::string& n) {
      return n.rfind("pod", 0) == 0 || n.find("-pod") != std::string::npos;
    };
    for (const auto& e : fs::directory_iterator(base, ec)) {
      if (!e.is_directory(ec)) continue;
      const std::string n = e.path().filename().string();
      if (is_pod(n)) {
        ++pods;  // Guaranteed pods sit directly under the top
      } else if (n.find("besteffort") != std::string::npos ||
                 n.find("burstable") != std::string::npos) {
        for (const auto& p : fs::directory_iterator(e.path(), ec))
          if (p.is_directory(ec) && is_pod(p.path().filename().string())) ++pods;
      }
    }
    return pods;
  }
  return -1;
}

ProcSource::ProcSource(std::string proc_root, std::string cgroup_root)
    : proc_(std::move(proc_root)), cgroup_(std::move(cgroup_root)) {}

std::optional<RawSample> ProcSource::read(double now_s, std::string* problem) {
  std::string stat, mem, psi;
  if (!read_file(proc_ + "/stat", &stat)) {
    *problem = "cannot read " + proc_ + "/stat";
    return std::nullopt;
  }
  const auto cpu = parse_proc_stat(stat, problem);
  if (!cpu) return std::nullopt;
  if (!read_file(proc_ + "/meminfo", &mem)) {
    *problem = "cannot read " + proc_ + "/meminfo";
    return std::nullopt;
  }
  const auto mem_used = parse_meminfo(mem, problem);
  if (!mem_used) return std::nullopt;
  std::optional<uint64_t> stall;
  if (psi_) {
    std::string why;
    if (!read_file(proc_ + "/pressure/cpu", &psi) ||
        !(stall = parse_pressure_some_total(psi, &why))) {
      psi_ = false;  // reported once: from now on CPU is utilisation alone
      obs::warn("no CPU pressure (PSI); the CPU dimension falls back to utilisation alone",
                {{"file", proc_ + "/pressure/cpu"}, {"reason", why.empty() ? "unreadable" : why}});
    }
  }
  const auto prev_cpu = last_cpu_;
  const auto prev_stall = last_stall_us_;
  const double prev_t = last_t_;
  last_cpu_ = cpu;
  last_stall_us_ = stall;
  last_t_ = now_s;
  if (!prev_cpu) {
    *problem = "priming: the first poll gives no delta";
    return std::nullopt;
  }
  if (cpu->busy < prev_cpu->busy || cpu->idle < prev_cpu->idle) {
    *problem = "/proc/stat counters went backwards";
    return std::nullopt;
  }
  const double dbusy = static_cast<double>(cpu->busy - prev_cpu->busy);
  const double didle = static_cast<double>(cpu->idle - prev_cpu->idle);
  RawSample s;
  s.cpu_util = dbusy + didle > 0 ? dbusy / (dbusy + didle) : 0.0;
  s.mem_util = *mem_used;
  if (stall && prev_stall && *stall >= *prev_stall && now_s > prev_t)
    s.cpu_pressure = std::clamp((*stall - *prev_stall) * 1e-6 / (now_s - prev_t), 0.0, 1.0);
  s.pods = std::max(0, count_pod_cgroups(cgroup_));
  return s;
}

std::string ProcSource::describe() const {
  std::string self, init;
  std::string out = "node-wide CPU from " + proc_ + "/stat, memory from " + proc_ +
                    "/meminfo, CPU pressure from " + proc_ + "/pressure/cpu";
  if (read_file(proc_ + "/self/cgroup", &self)) {
    while (!self.empty() && self.back() == '\n') self.pop_back();
    if (self.rfind("0::", 0) == 0)
      out += "; cgroup v2, the agent runs in " + self.substr(3) +
             " (these files are kernel-wide, not the cgroup's)";
  }
  if (read_file(proc_ + "/1/comm", &init)) {
    while (!init.empty() && init.back() == '\n') init.pop_back();
    out += "; pid 1 is " + init;
  }
  const int pods = count_pod_cgroups(cgroup_);
  out += pods >= 0 ? "; pods counted from " + cgroup_ + "/kubepods*"
                   : "; no kubepods cgroup under " + cgroup_ + " (pod count 0)";
  return out;
}

}  // namespace orrery::carico
