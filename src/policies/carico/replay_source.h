// Telemetry replayed from a CSV file, for tests and for reproducing a real node:
//
//   # comments and blank lines are skipped
//   t_s,cpu_util,mem_util,cpu_pressure,pods
//   0.0,0.12,0.40,0.00,0
//   0.1,0.15,0.40,,0          <- an empty cpu_pressure means "no PSI" for that sample
//
// The header is required (cpu_pressure and pods may be left out of it). t_s is seconds from the
// start of the replay and strictly increasing; readings are in [0,1]; pods ≥ 0. Every error is
// found at load time and names FILE:LINE and the column (InputError: the agent exits 1 at
// start-up). read(now) returns the last sample at or before now − start; after the last sample
// the file starts over (shifted by its length plus one sample period), so a replay agent keeps
// reporting.
#pragma once

#include <string>
#include <vector>

#include "policies/carico/telemetry_source.h"

namespace orrery::carico {

struct ReplayRow {
  double t_s = 0;
  RawSample sample;
};

// Throws InputError ("FILE:LINE: column: what was expected").
std::vector<ReplayRow> load_replay(const std::string& path);
std::vector<ReplayRow> parse_replay(const std::string& text, const std::string& source);

class ReplaySource : public TelemetrySource {
 public:
  explicit ReplaySource(const std::string& path);
  ReplaySource(std::vector<ReplayRow> rows, std::string name);
  std::optional<RawSample> read(double now_s, std::string* problem) override;
  std::string describe() const override;

 private:
  std::vector<ReplayRow> rows_;
  std::string name_;
  double start_ = -1;
  double period_ = 0;  // length of one pass
};

}  // namespace orrery::carico
