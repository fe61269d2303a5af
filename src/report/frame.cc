#include "report/frame.h"

#include <algorithm>

#include "report/format.h"

namespace orrery::report::detail {
namespace {

constexpr double kPad = 12;
constexpr double kTitlePx = 15;
constexpr double kLegendRow = 18;
constexpr double kSwatch = 22;
constexpr size_t kMaxLegendChars = 40;

std::string c(double v) {
  return format_coord(v, 1);
}

std::string legend_label(const std::string& name) {
  // Cut by code points so a multi-byte character is never split.
  size_t points = 0, i = 0;
  for (; i < name.size(); ++i) {
    if ((static_cast<unsigned char>(name[i]) & 0xC0) != 0x80 && ++points > kMaxLegendChars) break;
  }
  return i < name.size() ? name.substr(0, i) + "\u2026" : name;
}

double legend_entry_width(const LegendEntry& e) {
  return kSwatch + 6 + text_width(legend_label(e.name)) + 16;
}

}  // namespace

double text_width(std::string_view s, double font_px) {
  size_t points = 0;
  for (char ch : s) points += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
  return static_cast<double>(points) * 0.6 * font_px;
}

void Svg::line(double x1, double y1, double x2, double y2, std::string_view stroke, double width,
               std::string_view dash) {
  s_ += "<line x1=\"" + c(x1) + "\" y1=\"" + c(y1) + "\" x2=\"" + c(x2) + "\" y2=\"" + c(y2) +
        "\" stroke=\"" + escape(stroke) + "\"";
  if (width != 1) s_ += " stroke-width=\"" + c(width) + "\"";
  if (!dash.empty()) s_ += " stroke-dasharray=\"" + escape(dash) + "\"";
  s_ += "/>\n";
}

void Svg::text(double x, double y, std::string_view content, std::string_view anchor,
               std::string_view extra_attrs, double rotate) {
  s_ += "<text x=\"" + c(x) + "\" y=\"" + c(y) + "\"";
  if (anchor != "start") s_ += " text-anchor=\"" + std::string(anchor) + "\"";
  if (rotate != 0) s_ += " transform=\"rotate(" + c(rotate) + " " + c(x) + " " + c(y) + ")\"";
  if (!extra_attrs.empty()) s_ += " " + std::string(extra_attrs);
  s_ += ">" + escape(content) + "</text>\n";
}

void Svg::rect(double x, double y, double w, double h, std::string_view fill,
               std::string_view tooltip) {
  s_ += "<rect x=\"" + c(x) + "\" y=\"" + c(y) + "\" width=\"" + c(std::max(0.0, w)) +
        "\" height=\"" + c(std::max(0.0, h)) + "\" fill=\"" + escape(fill) + "\"";
  if (tooltip.empty()) {
    s_ += "/>\n";
  } else {
    s_ += "><title>" + escape(tooltip) + "</title></rect>\n";
  }
}

void Svg::circle(double cx, double cy, double r, std::string_view fill, std::string_view tooltip) {
  s_ += "<circle cx=\"" + c(cx) + "\" cy=\"" + c(cy) + "\" r=\"" + c(r) + "\" fill=\"" +
        escape(fill) + "\"";
  if (tooltip.empty()) {
    s_ += "/>\n";
  } else {
    s_ += "><title>" + escape(tooltip) + "</title></circle>\n";
  }
}

void Svg::path(std::string_view d, std::string_view stroke, double width, std::string_view dash,
               std::string_view tooltip, std::string_view cls) {
  s_ += "<path class=\"" + escape(cls) + "\" d=\"" + std::string(d) + "\" fill=\"none\" stroke=\"" +
        escape(stroke) + "\" stroke-width=\"" + c(width) + "\" stroke-linejoin=\"round\"";
  if (!dash.empty()) s_ += " stroke-dasharray=\"" + escape(dash) + "\"";
  if (tooltip.empty()) {
    s_ += "/>\n";
  } else {
    s_ += "><title>" + escape(tooltip) + "</title></path>\n";
  }
}

void Svg::open_group(std::string_view cls, std::string_view tooltip) {
  s_ += "<g class=\"" + escape(cls) + "\">";
  if (!tooltip.empty()) s_ += "<title>" + escape(tooltip) + "</title>";
  s_ += "\n";
}

Layout layout(const FrameSpec& spec, double width, double height) {
  Layout lay;
  lay.width = width;
  double top = kPad;
  if (!spec.title.empty()) {
    lay.title_y = top + kTitlePx;
    top += kTitlePx + 10;
  }
  double y_ticks_w = 0;
  for (const std::string& t : spec.y_tick_labels) y_ticks_w = std::max(y_ticks_w, text_width(t));
  lay.left = kPad + (spec.y_label.empty() ? 0 : 18) + y_ticks_w + 8;
  lay.right = width - 24;
  // Legend rows above the plot, wrapped to the plot width.
  int rows = 0;
  double x = lay.left;
  for (const LegendEntry& e : spec.legend) {
    const double w = legend_entry_width(e);
    if (rows == 0 || (x + w > lay.right && x > lay.left)) {
      ++rows;
      x = lay.left;
    }
    lay.legend.push_back({x, top + (rows - 1) * kLegendRow + kFontPx});
    x += w;
  }
  top += rows * kLegendRow + (rows > 0 ? 6 : 0);
  lay.top = top;
  // Charts grow instead of squashing the plot when legends wrap.
  lay.height = height + std::max(0, rows - 2) * kLegendRow + spec.extra_bottom +
               (spec.footnote.empty() ? 0 : 16);
  lay.bottom = lay.height - kPad - 18 - (spec.x_label.empty() ? 0 : 18) - spec.extra_bottom -
               (spec.footnote.empty() ? 0 : 16);
  return lay;
}

void begin(Svg& svg, const FrameSpec& spec, const Layout& lay) {
  std::string& s = svg.out();
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 " + c(lay.width) +
       " " + c(lay.height) + "\" width=\"" + c(lay.width) + "\" height=\"" + c(lay.height) +
       "\" role=\"img\" aria-labelledby=\"" + escape(spec.id) +
       "-title\" font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, "
       "sans-serif\" font-size=\"12\">\n";
  s += "<title id=\"" + escape(spec.id) + "-title\">" + escape(spec.title) + "</title>\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  if (!spec.title.empty())
    svg.text(lay.left, lay.title_y, spec.title, "start",
             "font-size=\"15\" font-weight=\"600\" fill=\"#222222\"");
  if (!spec.legend.empty()) {
    svg.open_group("legend");
    for (size_t i = 0; i < spec.legend.size(); ++i) {
      const LegendEntry& e = spec.legend[i];
      const Layout::Placed p = lay.legend[i];
      svg.open_group("legend-entry", e.tooltip.empty() ? e.name : e.tooltip);
      const double mid = p.y - 4;
      switch (e.kind) {
        case LegendEntry::kLine:
          svg.line(p.x, mid, p.x + kSwatch, mid, e.color, 2.5, e.dash);
          break;
        case LegendEntry::kBox: svg.rect(p.x + 4, mid - 6, kSwatch - 8, 12, e.color); break;
        case LegendEntry::kMarker:
          svg.line(p.x, mid, p.x + kSwatch, mid, e.color, 1.5, e.dash);
          svg.circle(p.x + kSwatch / 2, mid, 3.5, e.color, "");
          break;
      }
      svg.text(p.x + kSwatch + 6, p.y, legend_label(e.name), "start", "fill=\"#222222\"");
      svg.close_group();
    }
    svg.close_group();
  }
}

void draw_axes(Svg& svg, const Scale* x, const Scale& y, const FrameSpec& spec, const Layout& lay) {
  svg.open_group("grid");
  for (const Tick& t : y.ticks()) {
    const double py = y(t.value);
    svg.line(lay.left, py, lay.right, py, t.label.empty() ? "#f1f1f1" : "#e0e0e0");
  }
  if (x) {
    for (const Tick& t : x->ticks()) {
      const double px = (*x)(t.value);
      svg.line(px, lay.top, px, lay.bottom, t.label.empty() ? "#f1f1f1" : "#e0e0e0");
    }
  }
  svg.close_group();
  svg.open_group("axis");
  svg.line(lay.left, lay.bottom, lay.right, lay.bottom, "#444444");
  svg.line(lay.left, lay.top, lay.left, lay.bottom, "#444444");
  for (const Tick& t : y.ticks()) {
    if (t.label.empty()) continue;
    const double py = y(t.value);
    svg.line(lay.left - 4, py, lay.left, py, "#444444");
    svg.text(lay.left - 7, py + 4, t.label, "end", "fill=\"#444444\"");
  }
  if (x) {
    for (const Tick& t : x->ticks()) {
      if (t.label.empty()) continue;
      const double px = (*x)(t.value);
      svg.line(px, lay.bottom, px, lay.bottom + 4, "#444444");
      svg.text(px, lay.bottom + 17, t.label, "middle", "fill=\"#444444\"");
    }
  }
  if (!spec.x_label.empty())
    svg.text((lay.left + lay.right) / 2, lay.bottom + 35 + spec.extra_bottom, spec.x_label,
             "middle", "fill=\"#222222\" class=\"axis-label\"");
  if (!spec.y_label.empty()) {
    const double lx = kPad + 10, ly = (lay.top + lay.bottom) / 2;
    svg.text(lx, ly, spec.y_label, "middle", "fill=\"#222222\" class=\"axis-label\"", -90);
  }
  svg.close_group();
}

void begin_plot(Svg& svg, const FrameSpec& spec, const Layout& lay) {
  std::string& s = svg.out();
  // A little slack so markers and thick lines on the domain edge are not cut in half.
  s += "<clipPath id=\"" + escape(spec.id) + "-clip\"><rect x=\"" + c(lay.left - 5) + "\" y=\"" +
       c(lay.top - 5) + "\" width=\"" + c(lay.right - lay.left + 10) + "\" height=\"" +
       c(lay.bottom - lay.top + 10) + "\"/></clipPath>\n";
  s += "<g class=\"plot\" clip-path=\"url(#" + escape(spec.id) + "-clip)\">\n";
}

void end_plot(Svg& svg) {
  svg.close_group();
}

void end(Svg& svg, const FrameSpec& spec, const Layout& lay, bool empty) {
  if (empty)
    svg.text((lay.left + lay.right) / 2, (lay.top + lay.bottom) / 2, "no data", "middle",
             "fill=\"#888888\" font-size=\"14\"");
  if (!spec.footnote.empty())
    svg.text(lay.left, lay.height - kPad + 2, spec.footnote, "start",
             "fill=\"#666666\" font-size=\"11\" class=\"footnote\"");
  svg.out() += "</svg>\n";
}

}  // namespace orrery::report::detail
