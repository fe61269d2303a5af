#include "report/axis.h"

#include <algorithm>
#include <cmath>

namespace orrery::report {
namespace {

// Decimals needed to show multiples of `step` exactly (step is 1/2/2.5/5 x 10^k).
int decimals_for(double step) {
  if (step <= 0 || !std::isfinite(step)) return 0;
  int d = 0;
  while (d < 12 && std::fabs(step * std::pow(10.0, d) - std::round(step * std::pow(10.0, d))) >
                       1e-9 * step * std::pow(10.0, d))
    ++d;
  return d;
}

std::string fixed_label(double v, int decimals) {
  return format_coord(v, decimals);
}

// A linear tick label; `step` fixes the decimals so that all labels of an axis agree.
std::string linear_label(double v, double step, double max_abs, Format f) {
  switch (f) {
    case Format::kPercent: return fixed_label(v * 100, decimals_for(step * 100)) + "%";
    case Format::kSeconds: {
      double scale = 1;
      const char* unit = " s";
      if (max_abs < 1e-3) {
        scale = 1e6;
        unit = " \u00b5s";
      } else if (max_abs < 1) {
        scale = 1e3;
        unit = " ms";
      }
      if (v == 0) return "0";
      return fixed_label(v * scale, decimals_for(step * scale)) + unit;
    }
    case Format::kNumber: break;
  }
  // Large counts: 20k, 1.5M, 2G instead of long digit strings.
  double div = 1;
  const char* suffix = "";
  if (max_abs >= 1e9) {
    div = 1e9;
    suffix = "G";
  } else if (max_abs >= 1e6) {
    div = 1e6;
    suffix = "M";
  } else if (max_abs >= 1e4) {
    div = 1e3;
    suffix = "k";
  }
  if (div != 1) return v == 0 ? "0" : fixed_label(v / div, decimals_for(step / div)) + suffix;
  return fixed_label(v, decimals_for(step));
}

std::string log_label(double v, Format f) {
  switch (f) {
    case Format::kPercent: return format_number(v * 100, 3) + "%";
    case Format::kSeconds: return format_value(v, Format::kSeconds);
    case Format::kNumber: break;
  }
  if (v >= 1e9) return format_number(v / 1e9, 3) + "G";
  if (v >= 1e6) return format_number(v / 1e6, 3) + "M";
  if (v >= 1e4) return format_number(v / 1e3, 3) + "k";
  return format_number(v, 3);
}

}  // namespace

double nice_step(double span, int target) {
  if (!(span > 0) || !std::isfinite(span)) return 1;
  const double raw = span / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / mag;
  double nice = 10;
  if (f <= 1.0 + 1e-9)
    nice = 1;
  else if (f <= 2.0 + 1e-9)
    nice = 2;
  else if (f <= 2.5 + 1e-9)
    nice = 2.5;
  else if (f <= 5.0 + 1e-9)
    nice = 5;
  return nice * mag;
}

Scale::Scale(const Axis& axis, double data_lo, double data_hi, double pixel_lo, double pixel_hi,
             int target_ticks)
    : p0_(pixel_lo), p1_(pixel_hi), log_(axis.log) {
  if (log_) {
    lo_ = std::isfinite(data_lo) && data_lo > 0 ? data_lo : 1;
    hi_ = std::isfinite(data_hi) && data_hi > 0 ? data_hi : lo_ * 10;
    log_ticks(axis);
  } else {
    lo_ = std::isfinite(data_lo) ? data_lo : 0;
    hi_ = std::isfinite(data_hi) ? data_hi : 1;
    linear_ticks(axis, target_ticks);
  }
}

void Scale::linear_ticks(const Axis& axis, int target) {
  if (axis.include_zero) {
    lo_ = std::min(lo_, 0.0);
    hi_ = std::max(hi_, 0.0);
  }
  if (std::isfinite(axis.min)) lo_ = axis.min;
  if (std::isfinite(axis.max)) hi_ = axis.max;
  if (hi_ < lo_) std::swap(lo_, hi_);
  if (hi_ == lo_) {
    // A constant series: centre it in a small band (or [0, 1] around zero).
    const double pad = lo_ == 0 ? 1 : std::fabs(lo_) * 0.1;
    if (!std::isfinite(axis.min)) lo_ -= lo_ == 0 ? 0 : pad;
    hi_ += pad;
    if (axis.include_zero && lo_ > 0) lo_ = 0;
  }
  const double step = nice_step(hi_ - lo_, target);
  // Extend to whole steps unless fixed or tight; ticks are k*step so they do not accumulate
  // error.
  const bool fixed_lo = axis.tight || std::isfinite(axis.min);
  const bool fixed_hi = axis.tight || std::isfinite(axis.max);
  const double k0 = fixed_lo ? std::ceil(lo_ / step - 1e-9) : std::floor(lo_ / step + 1e-9);
  const double k1 = fixed_hi ? std::floor(hi_ / step + 1e-9) : std::ceil(hi_ / step - 1e-9);
  if (!fixed_lo) lo_ = k0 * step;
  if (!fixed_hi) hi_ = k1 * step;
  const double max_abs = std::max(std::fabs(k0 * step), std::fabs(k1 * step));
  for (double k = k0; k <= k1 + 1e-9; k += 1) {
    const double v = k * step;
    ticks_.push_back({v, linear_label(v, step, max_abs, axis.format)});
  }
}

void Scale::log_ticks(const Axis& axis) {
  if (std::isfinite(axis.min) && axis.min > 0) lo_ = axis.min;
  if (std::isfinite(axis.max) && axis.max > 0) hi_ = axis.max;
  if (hi_ < lo_) std::swap(lo_, hi_);
  int e0 = static_cast<int>(std::floor(std::log10(lo_) + 1e-9));
  int e1 = static_cast<int>(std::ceil(std::log10(hi_) - 1e-9));
  if (e1 <= e0) e1 = e0 + 1;
  if (!std::isfinite(axis.min) || axis.min <= 0) lo_ = std::pow(10.0, e0);
  if (!std::isfinite(axis.max) || axis.max <= 0) hi_ = std::pow(10.0, e1);
  const int decades = e1 - e0;
  const int label_every = std::max(1, (decades + 9) / 10);
  for (int e = e0; e <= e1; ++e) {
    const double base = std::pow(10.0, e);
    if (base >= lo_ * (1 - 1e-9) && base <= hi_ * (1 + 1e-9)) {
      const bool labelled = (e - e0) % label_every == 0;
      ticks_.push_back({base, labelled ? log_label(base, axis.format) : ""});
    }
    if (e == e1 || decades > 6) continue;
    for (int m = 2; m <= 9; ++m) {
      const double v = m * base;
      if (v < lo_ * (1 - 1e-9) || v > hi_ * (1 + 1e-9)) continue;
      // A single decade gets labels at 2x and 5x as well, so the axis is readable.
      const bool labelled = decades == 1 && (m == 2 || m == 5);
      ticks_.push_back({v, labelled ? log_label(v, axis.format) : ""});
    }
  }
}

double Scale::operator()(double v) const {
  double t;
  if (log_) {
    const double lv = v > 0 ? std::log10(v) : std::log10(lo_);
    t = (lv - std::log10(lo_)) / (std::log10(hi_) - std::log10(lo_));
  } else {
    t = (v - lo_) / (hi_ - lo_);
  }
  return p0_ + t * (p1_ - p0_);
}

}  // namespace orrery::report
