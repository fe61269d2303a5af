#include "report/table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace orrery::report {

Cell::Cell(double v, Format f) : text(format_value(v, f)), numeric(true) {
  if (std::isfinite(v)) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    tooltip = buf;
  }
}

std::string render_html(const Table& t) {
  size_t ncols = t.columns.size();
  for (const auto& r : t.rows) ncols = std::max(ncols, r.size());
  // A column is numeric when every non-empty cell is.
  std::vector<bool> numeric(ncols, true);
  for (size_t col = 0; col < ncols; ++col) {
    bool any = false;
    for (const auto& r : t.rows) {
      if (col >= r.size() || r[col].text.empty()) continue;
      any = true;
      if (!r[col].numeric) numeric[col] = false;
    }
    if (!any || (t.row_headers && col == 0)) numeric[col] = false;
  }
  std::string s = "<div class=\"table-wrap\"><table>\n";
  if (!t.caption.empty()) s += "<caption>" + escape(t.caption) + "</caption>\n";
  if (!t.columns.empty()) {
    s += "<thead><tr>";
    for (size_t col = 0; col < ncols; ++col) {
      s += numeric[col] ? "<th scope=\"col\" class=\"num\">" : "<th scope=\"col\">";
      s += col < t.columns.size() ? escape(t.columns[col]) : "";
      s += "</th>";
    }
    s += "</tr></thead>\n";
  }
  s += "<tbody>\n";
  for (const auto& r : t.rows) {
    s += "<tr>";
    for (size_t col = 0; col < ncols; ++col) {
      const Cell empty;
      const Cell& cell = col < r.size() ? r[col] : empty;
      const bool header = t.row_headers && col == 0;
      s += header ? "<th scope=\"row\"" : "<td";
      if (cell.numeric || cell.best) {
        s += " class=\"";
        s += cell.numeric ? (cell.best ? "num best" : "num") : "best";
        s += "\"";
      }
      if (!cell.tooltip.empty()) s += " title=\"" + escape(cell.tooltip) + "\"";
      s += ">" + escape(cell.text);
      if (!cell.note.empty()) s += "<br/><span class=\"note\">" + escape(cell.note) + "</span>";
      s += header ? "</th>" : "</td>";
    }
    s += "</tr>\n";
  }
  s += "</tbody></table></div>\n";
  return s;
}

}  // namespace orrery::report
