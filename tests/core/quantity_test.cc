#include "core/quantity.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace orrery {
namespace {

int64_t milli(const char* s) {
  std::string err;
  auto v = parse_quantity(s, 3, &err);
  EXPECT_TRUE(v.has_value()) << s << ": " << err;
  return v.value_or(-1);
}
int64_t units(const char* s) {
  std::string err;
  auto v = parse_quantity(s, 0, &err);
  EXPECT_TRUE(v.has_value()) << s << ": " << err;
  return v.value_or(-1);
}

bool invalid(const char* s) {
  std::string err;
  return !parse_quantity(s, 0, &err).has_value() && !err.empty();
}

TEST(Quantity, CpuMillicores) {
  EXPECT_EQ(milli("100m"), 100);
  EXPECT_EQ(milli("1"), 1000);
  EXPECT_EQ(milli("1.5"), 1500);
  EXPECT_EQ(milli("0.25"), 250);
  EXPECT_EQ(milli("2"), 2000);
  EXPECT_EQ(milli("1e3"), 1000000);
  EXPECT_EQ(milli("1k"), 1000000);
  EXPECT_EQ(milli("+3"), 3000);
  EXPECT_EQ(milli("0"), 0);
  EXPECT_EQ(milli("-0"), 0);
}

TEST(Quantity, CpuRoundsUpToWholeMillicores) {
  // MilliValue() rounds up: 0.1m and 1500u are 1m and 2m.
  EXPECT_EQ(milli("0.1m"), 1);
  EXPECT_EQ(milli("1500u"), 2);
  EXPECT_EQ(milli("1n"), 1);
  EXPECT_EQ(milli("0.0001"), 1);
  EXPECT_EQ(milli("1000u"), 1);
}

TEST(Quantity, MemoryBytes) {
  EXPECT_EQ(units("512Mi"), 512LL << 20);
  EXPECT_EQ(units("1G"), 1000000000LL);
  EXPECT_EQ(units("1Gi"), 1LL << 30);
  EXPECT_EQ(units("0.5Gi"), 512LL << 20);
  EXPECT_EQ(units("1.5Gi"), 1610612736LL);
  EXPECT_EQ(units("128974848"), 128974848LL);
  EXPECT_EQ(units("129e6"), 129000000LL);
  EXPECT_EQ(units("129M"), 129000000LL);
  EXPECT_EQ(units("123Mi"), 128974848LL);
  EXPECT_EQ(units("1E3"), 1000);
  EXPECT_EQ(units("1e-3"), 1);            // rounds up to a whole byte
  EXPECT_EQ(units("100m"), 1);            // 0.1 byte rounds up
  EXPECT_EQ(units("1.G"), 1000000000LL);  // upstream accepts a trailing dot
  EXPECT_EQ(units(".5Ki"), 512);
  EXPECT_TRUE(invalid("8Ei")) << "2^63 is one more than int64 max";
}

TEST(Quantity, LargeAndLongNumbers) {
  EXPECT_EQ(units("7Ei"), 7LL << 60);
  EXPECT_EQ(units("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(units("0.000000000000000000000000000000000000000000001"), 1);
  EXPECT_EQ(units("1.0000000000000000000000001"), 2) << "digits beyond precision still round up";
  EXPECT_EQ(units("12345678901234567.000000000000"), 12345678901234567LL);
}

TEST(Quantity, Invalid) {
  EXPECT_TRUE(invalid(""));
  EXPECT_TRUE(invalid("abc"));
  EXPECT_TRUE(invalid("1K"));  // decimal kilo is lower-case k
  EXPECT_TRUE(invalid("1KB"));
  EXPECT_TRUE(invalid("1e"));
  EXPECT_TRUE(invalid("1 Gi"));
  EXPECT_TRUE(invalid("1.2.3"));
  EXPECT_TRUE(invalid("-1"));    // requests and capacities are non-negative
  EXPECT_TRUE(invalid("10Ei"));  // does not fit in int64
  EXPECT_TRUE(invalid("99999999999999999999"));
  EXPECT_TRUE(invalid("."));
  EXPECT_TRUE(invalid("Mi"));
}

TEST(Quantity, ThrowingWrapperNamesTheField) {
  try {
    parse_milli_quantity("1x", "pod.yaml:7: spec.containers[0].resources.requests.cpu");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("pod.yaml:7: spec.containers[0].resources.requests.cpu"),
              std::string::npos);
    EXPECT_NE(std::string(e.what()).find("\"1x\""), std::string::npos);
  }
}

TEST(Quantity, Format) {
  EXPECT_EQ(format_milli(250), "250m");
  EXPECT_EQ(format_milli(2000), "2");
  EXPECT_EQ(format_bytes(512LL << 20), "512Mi");
  EXPECT_EQ(format_bytes(1LL << 30), "1Gi");
  EXPECT_EQ(format_bytes(1500), "1500");
}

}  // namespace
}  // namespace orrery
