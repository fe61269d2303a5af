#include "report/csv.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "core/rng.h"

namespace orrery::report {
namespace {

std::string error_of(const std::string& text) {
  try {
    CsvFile::parse(text, "f.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Csv, ReadsColumnsByNameWithQuotingCrlfAndBlankLines) {
  const CsvFile f = CsvFile::parse(
      "a,b,note\r\n1,2.5,plain\r\n\r\n-3,+4,\"x, \"\"y\"\"\nz\"\n  \n5e-3, nan ,\n", "f.csv");
  EXPECT_EQ(f.columns(), (std::vector<std::string>{"a", "b", "note"}));
  ASSERT_EQ(f.rows(), 3u);
  EXPECT_EQ(f.numbers("a"), (std::vector<double>{1, -3, 0.005}));
  const auto b = f.numbers("b");
  EXPECT_EQ(b[0], 2.5);
  EXPECT_EQ(b[1], 4);
  EXPECT_TRUE(std::isnan(b[2]));
  EXPECT_EQ(f.strings("note"), (std::vector<std::string>{"plain", "x, \"y\"\nz", ""}));
  EXPECT_EQ(f.line(0), 2);
  EXPECT_EQ(f.line(1), 4);
  EXPECT_EQ(f.line(2), 7);  // the quoted newline counts
  EXPECT_FALSE(f.try_numbers("note").has_value());
  EXPECT_TRUE(f.try_numbers("a").has_value());
  EXPECT_TRUE(f.has("b"));
  EXPECT_FALSE(f.has("c"));
}

TEST(Csv, HeaderOnlyAndMissingFinalNewline) {
  EXPECT_EQ(CsvFile::parse("x,y\n", "f").rows(), 0u);
  const CsvFile f = CsvFile::parse("x,y\n1,2", "f");
  EXPECT_EQ(f.numbers("y"), (std::vector<double>{2}));
}

TEST(Csv, ErrorsNameFileLineAndWhatWasExpected) {
  EXPECT_EQ(error_of("a,b\n1,2\n3\n"), "f.csv:3: expected 2 fields (as in the header), got 1");
  EXPECT_EQ(error_of("a,b\n1,2,3\n"), "f.csv:2: expected 2 fields (as in the header), got 3");
  EXPECT_EQ(error_of("a,b\n1,\"open\n2,3\n"), "f.csv:2: unterminated quoted field");
  EXPECT_EQ(error_of("a,a\n"), "f.csv:1: duplicate column 'a' in the header");
  EXPECT_EQ(error_of("a,,b\n"), "f.csv:1: empty column name in the header");
  EXPECT_EQ(error_of(""), "f.csv: empty file, expected a header line");
  EXPECT_EQ(error_of("\n\n"), "f.csv: empty file, expected a header line");
  EXPECT_EQ(error_of("a\n\"x\"y\n"), "f.csv:2: unexpected text after a closing quote");
  const CsvFile f = CsvFile::parse("job,delay_s\n1,0.5\n2,fast\n", "jobs.csv");
  try {
    f.numbers("delay_s");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "jobs.csv:3: column 'delay_s': expected a number, got \"fast\"");
  }
  try {
    f.require({"job", "jrt_s"});
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "jobs.csv:1: missing column 'jrt_s' (columns: job,delay_s)");
  }
  EXPECT_THROW(CsvFile::read("/nonexistent/x.csv"), InputError);
}

TEST(Csv, RandomInputNeverCrashesOnlyParsesOrThrowsInputError) {
  // Property: any text either parses into rectangular rows or is rejected with InputError.
  const std::string alphabet = "ab,\"\n\r 1.5e-+nan";
  Rng rng(99);
  int parsed = 0, rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text(rng.below(40), ' ');
    for (char& ch : text) ch = alphabet[rng.below(alphabet.size())];
    try {
      const CsvFile f = CsvFile::parse(text, "r.csv");
      ++parsed;
      for (size_t r = 0; r < f.rows(); ++r)
        for (size_t col = 0; col < f.columns().size(); ++col)
          EXPECT_LE(f.cell(r, col).size(), text.size());
      for (const std::string& col : f.columns()) {
        try {
          EXPECT_EQ(f.numbers(col).size(), f.rows());
        } catch (const InputError& e) {
          EXPECT_EQ(std::string(e.what()).rfind("r.csv:", 0), 0u) << e.what();
        }
      }
    } catch (const InputError& e) {
      ++rejected;
      EXPECT_EQ(std::string(e.what()).rfind("r.csv", 0), 0u) << e.what();
    }
  }
  EXPECT_GT(parsed, 100);
  EXPECT_GT(rejected, 100);
}

}  // namespace
}  // namespace orrery::report
