#include "core/distribution.h"

#include <charconv>
#include <cmath>
#include <functional>

#include "core/error.h"
#include "core/quantity.h"
#include "core/stats.h"

namespace orrery {

double Dist::mean() const {
  switch (kind) {
    case Kind::kConstant: return a;
    case Kind::kUniform: return (a + b) / 2;
    case Kind::kNormal: return a;  // ignoring the truncation at 0
    case Kind::kLognormal: return a * std::exp(b * b / 2);
    case Kind::kExponential: return a;
  }
  return a;
}

double Dist::sample(Rng& rng) const {
  double v = a;
  switch (kind) {
    case Kind::kConstant: break;
    case Kind::kUniform: v = rng.uniform(a, b); break;
    case Kind::kNormal: v = rng.normal(a, b); break;
    case Kind::kLognormal: v = a * std::exp(b * rng.normal()); break;
    case Kind::kExponential: v = a > 0 ? rng.exponential(1.0 / a) : 0; break;
  }
  return v < 0 ? 0 : v;
}

std::string Dist::to_string() const {
  switch (kind) {
    case Kind::kConstant: return fmt_double(a);
    case Kind::kUniform: return "uniform(" + fmt_double(a) + ", " + fmt_double(b) + ")";
    case Kind::kNormal: return "normal(" + fmt_double(a) + ", " + fmt_double(b) + ")";
    case Kind::kLognormal: return "lognormal(median " + fmt_double(a) + ", " + fmt_double(b) + ")";
    case Kind::kExponential: return "exponential(mean " + fmt_double(a) + ")";
  }
  return "";
}

Time parse_duration_text(const std::string& text, const std::string& where) {
  size_t i = 0;
  while (i < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' || text[i] == '-' ||
          text[i] == '+' || text[i] == 'e' || text[i] == 'E')) {
    ++i;
  }
  std::string num = text.substr(0, i), unit = text.substr(i);
  char* end = nullptr;
  double v = std::strtod(num.c_str(), &end);
  double scale = 0;
  if (unit.empty() || unit == "s") {
    scale = 1e6;
  } else if (unit == "ms") {
    scale = 1e3;
  } else if (unit == "us" || unit == "µs") {
    scale = 1;
  } else if (unit == "m" || unit == "min") {
    scale = 60e6;
  } else if (unit == "h") {
    scale = 3600e6;
  }
  if (num.empty() || end != num.c_str() + num.size() || scale == 0 || !std::isfinite(v)) {
    throw InputError(where + ": expected a duration such as 90s, 500ms, 2m or a number of " +
                     "seconds, got \"" + text + "\"");
  }
  if (v < 0) throw InputError(where + ": expected a non-negative duration, got \"" + text + "\"");
  const double us = v * scale;
  if (us > 9.0e18) throw InputError(where + ": duration \"" + text + "\" is too large");
  return static_cast<Time>(std::llround(us));
}

Time parse_duration(const yaml::Ctx& c) {
  return parse_duration_text(c.str(), c.where());
}

namespace {

using ValueParser = std::function<double(const yaml::Ctx&)>;

Dist parse_dist(const yaml::Ctx& c, const ValueParser& value, bool allow_negative) {
  if (!c.defined()) c.fail("missing value");
  if (c.node.IsScalar()) return Dist::constant(value(c));
  if (!c.node.IsMap()) c.fail("expected a value or a distribution {dist: uniform, min, max}");
  const std::string kind = c.str_or("dist", "constant");
  auto need = [&](const char* key) {
    if (!c.has(key)) c.fail(std::string("distribution \"") + kind + "\" needs \"" + key + "\"");
    return value(c.child(key));
  };
  auto known = [&](std::initializer_list<const char*> keys) {
    for (const std::string& k : c.keys()) {
      bool ok = k == "dist";
      for (const char* kk : keys) ok = ok || k == kk;
      if (!ok) c.child(k).fail("unknown field for distribution \"" + kind + "\"");
    }
  };
  Dist d;
  if (kind == "constant") {
    known({"value"});
    d = Dist::constant(need("value"));
  } else if (kind == "uniform") {
    known({"min", "max"});
    d = Dist::uniform(need("min"), need("max"));
    if (d.b < d.a) c.child("max").fail("expected max >= min");
  } else if (kind == "normal") {
    known({"mean", "sd"});
    d = Dist::normal(need("mean"), need("sd"));
  } else if (kind == "lognormal") {
    known({"median", "sigma"});
    d = Dist::lognormal(need("median"), c.has("sigma") ? c.child("sigma").f64() : -1);
    if (d.b < 0) c.fail("distribution \"lognormal\" needs \"sigma\" >= 0");
  } else if (kind == "exponential") {
    known({"mean"});
    d = Dist::exponential(need("mean"));
  } else {
    c.child("dist").fail("expected constant, uniform, normal, lognormal or exponential, got \"" +
                         kind + "\"");
  }
  if (!allow_negative && (d.a < 0 || (d.kind == Dist::Kind::kUniform && d.b < 0))) {
    c.fail("expected non-negative values");
  }
  if (d.kind == Dist::Kind::kNormal && d.b < 0) c.child("sd").fail("expected sd >= 0");
  return d;
}

}  // namespace

Dist parse_duration_dist(const yaml::Ctx& c) {
  return parse_dist(
      c, [](const yaml::Ctx& v) { return static_cast<double>(parse_duration(v)); }, false);
}

Dist parse_number_dist(const yaml::Ctx& c) {
  return parse_dist(
      c, [](const yaml::Ctx& v) { return v.f64(); }, true);
}

Dist parse_resource_dist(const yaml::Ctx& c, bool cpu) {
  return parse_dist(
      c,
      [cpu](const yaml::Ctx& v) {
        return static_cast<double>(cpu ? parse_milli_quantity(v.str(), v.where())
                                       : parse_unit_quantity(v.str(), v.where()));
      },
      false);
}

}  // namespace orrery
