// -o/--output FORMAT: how a command prints its result on stdout, kubectl-style.
//   table  the human-readable lines (the default of most commands)
//   json   the command's result document: for `sim` the run's summary.json, for `schedule` the
//          document --out writes; indented by 2
//   yaml   the same document as YAML
// A command lists the formats it accepts (add_output_option), so one can add its own (e.g.
// `schedule -o wide`) without the others accepting it.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "io/json.h"

namespace orrery::cli {

inline const std::vector<std::string> kStandardFormats = {"table", "json", "yaml"};

// Adds -o/--output to `app`, storing the format name in `*format` (which holds the default).
CLI::Option* add_output_option(CLI::App* app, std::string* format,
                               const std::vector<std::string>& formats = kStandardFormats);

// The formats `app`'s -o accepts (for shell completion), or null when it has no -o.
const std::vector<std::string>* output_formats_of(const CLI::App* app);

// The document as YAML: mappings in key order, strings quoted when YAML would read them as
// something else (numbers, booleans, null), numbers written as JSON writes them.
std::string to_yaml(const Json& doc);

// Prints the document on stdout as `format` ("json" or "yaml").
void print_document(const Json& doc, const std::string& format);

// --allow-large: lifts the input limits (io/limits.h) for this process.
void add_allow_large_flag(CLI::App* app);

}  // namespace orrery::cli
