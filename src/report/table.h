// HTML tables for reports. Numeric cells are formatted by report::format_value, right-aligned
// with tabular digits, and carry their full-precision value as a hover tooltip.
#pragma once

#include <concepts>
#include <string>
#include <vector>

#include "report/format.h"

namespace orrery::report {

struct Cell {
  std::string text;
  std::string tooltip;   // shown on hover; numbers get their exact value
  bool numeric = false;  // right-aligned
  bool best = false;     // marked as the best value of its row (bold, tinted)
  std::string note;      // a second, smaller line under the value (e.g. "−35% vs baseline")

  Cell() = default;
  Cell(std::string t) : text(std::move(t)) {}  // NOLINT: implicit by design
  Cell(const char* t) : text(t) {}             // NOLINT
  Cell(double v, Format f = Format::kNumber);  // NOLINT
  template <std::integral T>
  Cell(T v) : Cell(static_cast<double>(v)) {}  // NOLINT
};

struct Table {
  std::string caption;
  std::vector<std::string> columns;     // header row
  std::vector<std::vector<Cell>> rows;  // short rows are padded with empty cells
  bool row_headers = false;             // the first cell of each row labels the row

  void add_row(std::vector<Cell> row) { rows.push_back(std::move(row)); }
};

std::string render_html(const Table& table);

}  // namespace orrery::report
