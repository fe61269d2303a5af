// Text for reports: XML/HTML escaping and human-friendly, deterministic number formatting for
// tables, tick labels and tooltips. Formatting never depends on the process locale.
#pragma once

#include <string>
#include <string_view>

namespace orrery::report {

// How a value is shown.
enum class Format {
  kNumber,   // 4 significant digits; integers in full with thin-space thousands grouping
  kSeconds,  // a duration given in seconds, shown with an adaptive unit: "850 µs", "1.5 ms", "76 s"
  kPercent,  // a fraction shown as a percentage: 0.452 -> "45.2%"
};

// Escapes & < > " ' for use in XML/HTML text and attribute values.
std::string escape(std::string_view text);

// Formats a value for a table cell or tooltip. NaN prints as an em dash, infinities as "∞"/"-∞".
std::string format_value(double v, Format f = Format::kNumber);
// A plain number with `sig` significant digits and trailing zeros removed; no grouping, and an
// exponent ("1.2e-05") only below 1e-4 or from 1e15 on. Used where output must stay compact.
std::string format_number(double v, int sig = 4);
// Fixed-point coordinate for SVG ("12.5", "-3", "0.25"): at most `decimals` decimals, trailing
// zeros removed, "-0" normalised to "0".
std::string format_coord(double v, int decimals = 1);

}  // namespace orrery::report
