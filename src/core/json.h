// The JSON type of orrery's outputs (summary.json and the like): nlohmann's ordered_json, which
// keeps keys in insertion order so outputs are byte-stable.
#pragma once

#include <nlohmann/json.hpp>

namespace orrery {

using Json = nlohmann::ordered_json;

}  // namespace orrery
