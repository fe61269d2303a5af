// report::Document: one self-contained offline HTML page (inline CSS and SVG, no JavaScript, no
// network access, no fonts to fetch) built from sections, text, tables and charts. All text is
// escaped; the same calls produce the same bytes (no timestamps, no random ids).
//
//   report::Document doc("KubeDSM: edge ratio");
//   doc.section("Figure 4").paragraph("Edge ratio per scenario, mean ± sd over 5 seeds.");
//   doc.chart(bar_chart, "Higher is better.");
//   doc.write("out/kubedsm.html");   // atomic: no half-written file on failure
#pragma once

#include <string>
#include <vector>

#include "report/charts.h"
#include "report/table.h"

namespace orrery::report {

class Document {
 public:
  explicit Document(std::string title);

  // Starts a new top-level section (listed in the table of contents).
  Document& section(const std::string& heading);
  Document& heading(const std::string& text);    // a sub-heading inside the current section
  Document& paragraph(const std::string& text);  // plain text; blank lines are not special
  Document& code(const std::string& text);       // preformatted, e.g. the command that made it
  Document& table(const Table& table);
  // Charts are rendered immediately, so large inputs can be freed after the call. Consecutive
  // charts sit side by side when the window is wide enough.
  Document& chart(const LineChart& chart, const std::string& caption = "");
  Document& chart(const CdfChart& chart, const std::string& caption = "");
  Document& chart(const BarChart& chart, const std::string& caption = "");

  const std::string& title() const { return title_; }
  std::string html() const;
  // Writes html() atomically; throws InputError naming the path on failure.
  void write(const std::string& path) const;

 private:
  void figure(const std::string& svg, const std::string& caption);
  std::string next_chart_id();

  struct TocEntry {
    std::string id, heading;
  };
  std::string title_;
  std::string body_;
  std::vector<TocEntry> toc_;
  bool in_section_ = false;
  size_t charts_ = 0;
};

}  // namespace orrery::report
