#include "io/distribution_reader.h"

#include <functional>

#include "core/quantity.h"

namespace orrery {

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
