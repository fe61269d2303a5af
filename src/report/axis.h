// Chart axes: the user-facing Axis description, and Scale, which turns a data range into a
// "nice" domain with ticks (1/2/2.5/5 x 10^k steps on linear axes, decades on log axes) and maps
// values to pixels.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "report/format.h"

namespace orrery::report {

struct Axis {
  std::string label;  // e.g. "job delay"; the unit is implied by `format`
  Format format = Format::kNumber;
  bool log = false;  // log10 axis; non-positive values are drawn at its minimum
  // Fixed limits; NaN means "from the data, extended to nice ticks".
  double min = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
  bool include_zero = false;  // linear axes: extend the domain to contain 0
  bool tight = false;         // linear axes: domain = data range (ticks inside it), e.g.
                              // for time axes; otherwise extended to whole tick steps
};

struct Tick {
  double value;
  std::string label;  // empty for minor ticks (gridline only)
};

class Scale {
 public:
  // Domain from the finite data range [data_lo, data_hi] (NaNs when there is no data), mapped
  // to pixels [pixel_lo, pixel_hi] (pixel_hi < pixel_lo is fine, e.g. for y axes). For log axes
  // data_lo must be the smallest *positive* value.
  Scale(const Axis& axis, double data_lo, double data_hi, double pixel_lo, double pixel_hi,
        int target_ticks = 6);

  double operator()(double v) const;  // value -> pixel (log axes clamp v <= 0 to the minimum)
  // Re-targets the pixel range once the layout is known (ticks do not depend on it).
  void set_pixels(double pixel_lo, double pixel_hi) {
    p0_ = pixel_lo;
    p1_ = pixel_hi;
  }
  double lo() const { return lo_; }
  double hi() const { return hi_; }
  bool log() const { return log_; }
  const std::vector<Tick>& ticks() const { return ticks_; }

 private:
  void linear_ticks(const Axis& axis, int target);
  void log_ticks(const Axis& axis);

  double lo_ = 0, hi_ = 1, p0_ = 0, p1_ = 1;
  bool log_ = false;
  std::vector<Tick> ticks_;
};

// The step a linear axis would use for `span` and about `target` ticks: 1, 2, 2.5 or 5 x 10^k.
double nice_step(double span, int target);

}  // namespace orrery::report
