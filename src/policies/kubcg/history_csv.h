// CSV import and export of history records (`orrery history import|export`).
//
// Header: image,node,resource,t_create_s,t_exec_s,start,end,concurrency[,exit_status]
// resource is CPU or GPU; durations are seconds (≥ 0); start/end are seconds (simulated time or
// Unix time); concurrency ≥ 1; exit_status (optional, default 0) is the container's exit code.
#pragma once

#include <string>
#include <vector>

#include "policies/kubcg/history.h"

namespace orrery::kubcg {

// Parses the whole text; throws InputError "FILE:LINE: field: what was expected" at the first
// bad row (nothing is returned, so an import is all-or-nothing).
std::vector<Record> parse_records_csv(const std::string& text, const std::string& file);
std::string records_csv(const std::vector<Record>& records);

}  // namespace orrery::kubcg
