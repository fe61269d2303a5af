// Plugin results, as in kube-scheduler's framework.Status.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace orrery::fw {

enum class Code : uint8_t {
  kSuccess,
  kUnschedulable,                 // may become schedulable, e.g. after preemption
  kUnschedulableAndUnresolvable,  // preemption cannot help on this node
  kError,
  kSkip,  // PreFilter/PreScore: the plugin has nothing to do for this pod
  kWait,  // Permit: hold the pod
};

struct Status {
  Code code = Code::kSuccess;
  std::string plugin;
  std::vector<std::string> reasons;

  static Status ok() { return {}; }
  static Status skip() { return {Code::kSkip, {}, {}}; }
  static Status unschedulable(std::string_view plugin, std::string reason,
                              bool unresolvable = false) {
    return {unresolvable ? Code::kUnschedulableAndUnresolvable : Code::kUnschedulable,
            std::string(plugin),
            {std::move(reason)}};
  }
  static Status error(std::string_view plugin, std::string reason) {
    return {Code::kError, std::string(plugin), {std::move(reason)}};
  }
  bool is_ok() const { return code == Code::kSuccess; }
  bool is_skip() const { return code == Code::kSkip; }
  bool is_rejection() const {
    return code == Code::kUnschedulable || code == Code::kUnschedulableAndUnresolvable;
  }
  std::string message() const;  // reasons joined with ", "
};

inline constexpr int64_t kMaxNodeScore = 100;
inline constexpr int64_t kMinNodeScore = 0;

}  // namespace orrery::fw
