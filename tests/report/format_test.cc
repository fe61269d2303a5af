#include "report/format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace orrery::report {
namespace {

const std::string kSep = "\u202f";  // thousands separator

TEST(Format, EscapesMarkupAndDropsControlCharacters) {
  EXPECT_EQ(escape("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
  EXPECT_EQ(escape(std::string("x\x01y\tz", 5)), "xy\tz");
  EXPECT_EQ(escape("µs ≤ 1"), "µs ≤ 1");  // UTF-8 passes through
}

TEST(Format, NumbersUseFourSignificantDigitsAndGroupLargeIntegers) {
  EXPECT_EQ(format_value(0), "0");
  EXPECT_EQ(format_value(42), "42");
  EXPECT_EQ(format_value(9999), "9999");
  EXPECT_EQ(format_value(1234567), "1" + kSep + "234" + kSep + "567");
  EXPECT_EQ(format_value(-25000), "-25" + kSep + "000");
  EXPECT_EQ(format_value(3.14159), "3.142");
  EXPECT_EQ(format_value(0.5), "0.5");
  EXPECT_EQ(format_value(1234.56), "1235");
  EXPECT_EQ(format_value(0.00012346), "0.0001235");
  EXPECT_EQ(format_value(0.000001234), "1.234e-06");
  EXPECT_EQ(format_value(std::numeric_limits<double>::quiet_NaN()), "\u2014");
  EXPECT_EQ(format_value(std::numeric_limits<double>::infinity()), "\u221e");
}

TEST(Format, SecondsPickAReadableUnit) {
  EXPECT_EQ(format_value(0, Format::kSeconds), "0 s");
  EXPECT_EQ(format_value(0.0015, Format::kSeconds), "1.5 ms");
  EXPECT_EQ(format_value(1.003, Format::kSeconds), "1.003 s");
  EXPECT_EQ(format_value(76, Format::kSeconds), "76 s");
  EXPECT_EQ(format_value(0.0005, Format::kSeconds), "500 \u00b5s");
  EXPECT_EQ(format_value(2e-9, Format::kSeconds), "2 ns");
  // Rounding to 4 digits would print "1000 ms": promote to the larger unit instead.
  EXPECT_EQ(format_value(0.99996, Format::kSeconds), "1 s");
  EXPECT_EQ(format_value(12345.6, Format::kSeconds), "12" + kSep + "346 s");
  EXPECT_EQ(format_value(-0.002, Format::kSeconds), "-2 ms");
}

TEST(Format, PercentAndCoordinates) {
  EXPECT_EQ(format_value(0.452, Format::kPercent), "45.2%");
  EXPECT_EQ(format_value(1, Format::kPercent), "100%");
  EXPECT_EQ(format_value(0.0375, Format::kPercent), "3.75%");
  EXPECT_EQ(format_coord(12.5), "12.5");
  EXPECT_EQ(format_coord(3.0), "3");
  EXPECT_EQ(format_coord(-0.04), "0");
  EXPECT_EQ(format_coord(std::nan("")), "0");
  EXPECT_EQ(format_number(123456789, 3), "123000000");
  EXPECT_EQ(format_number(2.5e15, 2), "2.5e+15");
}

}  // namespace
}  // namespace orrery::report
