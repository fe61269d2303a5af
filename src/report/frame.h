// Internal to the report module: the parts every chart shares (SVG text building, layout of
// title/legend/axes/plot area, gridlines and tick labels, legend, clip region).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/axis.h"

namespace orrery::report::detail {

inline constexpr double kFontPx = 12;

// Approximate rendered width of text (no font metrics offline: 0.6 em per character).
double text_width(std::string_view utf8, double font_px = kFontPx);

// Appends SVG elements; all text and attribute values passed in are escaped here.
class Svg {
 public:
  std::string& out() { return s_; }
  std::string take() { return std::move(s_); }

  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1,
            std::string_view dash = "");
  // anchor: "start" | "middle" | "end"; rotate: degrees around (x, y)
  void text(double x, double y, std::string_view content, std::string_view anchor = "start",
            std::string_view extra_attrs = "", double rotate = 0);
  void rect(double x, double y, double w, double h, std::string_view fill,
            std::string_view tooltip = "");
  void circle(double cx, double cy, double r, std::string_view fill, std::string_view tooltip);
  // <path d=...>, stroke only, optional dash and tooltip
  void path(std::string_view d, std::string_view stroke, double width, std::string_view dash,
            std::string_view tooltip, std::string_view cls = "line");
  void open_group(std::string_view cls, std::string_view tooltip = "");
  void close_group() { s_ += "</g>\n"; }

 private:
  std::string s_;
};

struct LegendEntry {
  enum Kind { kLine, kBox, kMarker } kind = kLine;
  std::string name, color, dash, tooltip;
};

struct FrameSpec {
  std::string id, title, x_label, y_label, footnote;
  std::vector<LegendEntry> legend;
  std::vector<std::string> y_tick_labels;  // to size the left margin
  double extra_bottom = 0;                 // e.g. rotated category labels
};

struct Layout {
  double width = 720, height = 400;
  double left = 0, right = 0, top = 0, bottom = 0;  // plot area edges (coordinates)
  double title_y = 0;
  struct Placed {
    double x, y;
  };
  std::vector<Placed> legend;  // one position per legend entry (swatch's left, baseline)
};

Layout layout(const FrameSpec& spec, double width = 720, double height = 400);

// <svg ...> with the accessible <title>, the visible title and the legend.
void begin(Svg& svg, const FrameSpec& spec, const Layout& lay);
// Gridlines, ticks, tick labels and axis labels. Pass x = nullptr for a categorical x axis
// (the caller draws its labels).
void draw_axes(Svg& svg, const Scale* x, const Scale& y, const FrameSpec& spec, const Layout& lay);
// A clip region for the plot area and the group that uses it; close with end_plot.
void begin_plot(Svg& svg, const FrameSpec& spec, const Layout& lay);
void end_plot(Svg& svg);
// Centered "no data" message, footnote, </svg>.
void end(Svg& svg, const FrameSpec& spec, const Layout& lay, bool empty);

}  // namespace orrery::report::detail
