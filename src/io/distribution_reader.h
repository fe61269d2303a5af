// Reading durations and distributions in the scenario syntax (util/distribution.h) from YAML:
// every error names the file, line and field.
#pragma once

#include "io/yaml_util.h"
#include "util/distribution.h"

namespace orrery {

// "90s", "500ms", "2m", "1h", "250us", or a bare number of seconds. Throws InputError at `c`.
Time parse_duration(const yaml::Ctx& c);

// A distribution of durations (values in µs).
Dist parse_duration_dist(const yaml::Ctx& c);
// A distribution of plain numbers (e.g. a fraction).
Dist parse_number_dist(const yaml::Ctx& c);
// A distribution of a resource amount: cpu in millicores ("500m", 0.5) or bytes ("512Mi").
Dist parse_resource_dist(const yaml::Ctx& c, bool cpu);

}  // namespace orrery
