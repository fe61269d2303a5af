// The JSON type of orrery's outputs (summary.json and the like): nlohmann's ordered_json, which
// keeps keys in insertion order so outputs are byte-stable.
#pragma once

#include <cmath>

#include <nlohmann/json.hpp>

namespace orrery {

using Json = nlohmann::ordered_json;

// A statistic for summary.json: null when it does not exist (NaN, e.g. the median of an empty
// set), so a run that finished nothing never looks perfect.
inline Json number_or_null(double v) {
  return std::isnan(v) ? Json(nullptr) : Json(v);
}
// The number in a summary value; NaN for null (or anything that is not a number).
inline double number_or_nan(const Json& v) {
  return v.is_number() ? v.get<double>() : std::nan("");
}

}  // namespace orrery
