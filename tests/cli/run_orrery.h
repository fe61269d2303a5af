// Runs the real `orrery` binary (ORRERY_BIN, set by tests/cli/CMakeLists.txt) as a user would and
// captures what it printed.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace orrery::testing {

struct RunResult {
  int code = -1;       // exit code; 128 + signal number if it was killed
  std::string output;  // stdout and stderr, interleaved
};

// `orrery ARGS` through the shell (so ARGS may quote and redirect).
inline RunResult run_orrery(const std::string& args) {
  const std::string cmd = std::string(ORRERY_BIN) + " " + args + " 2>&1";
  RunResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

}  // namespace orrery::testing
