#include "obs/log.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace orrery::obs {
namespace {

TEST(Log, FormatsLogfmtWithQuotingWhereNeeded) {
  EXPECT_EQ(format_record(Level::kInfo, "bound pod", {{"pod", "default/web-1"}, {"node", "n3"}}),
            "level=info msg=\"bound pod\" pod=default/web-1 node=n3");
  EXPECT_EQ(format_record(Level::kWarn, "x", {{"reason", "a \"b\"\nc"}, {"empty", ""}}),
            "level=warn msg=x reason=\"a \\\"b\\\"\\nc\" empty=\"\"");
}

TEST(Log, CredentialsAreRedactedWhateverTheCallerPasses) {
  const std::string line = format_record(Level::kInfo, "auth",
                                         {{"bearer_token", "sekret"},
                                          {"Authorization", "Bearer x"},
                                          {"client-key-data", "abc"},
                                          {"user", "alice"}});
  EXPECT_EQ(line.find("sekret"), std::string::npos);
  EXPECT_EQ(line.find("Bearer x"), std::string::npos);
  EXPECT_EQ(line.find("abc"), std::string::npos);
  EXPECT_NE(line.find("user=alice"), std::string::npos);
}

TEST(Log, ThresholdAndSink) {
  std::vector<std::string> lines;
  set_log_sink([&](const std::string& l) { lines.push_back(l); });
  set_log_level(Level::kWarn);
  info("dropped");
  warn("kept", {{"k", "v"}});
  set_log_level(Level::kInfo);
  set_log_sink(nullptr);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("ts=", 0), 0u);
  EXPECT_NE(lines[0].find(" level=warn msg=kept k=v"), std::string::npos);
}

TEST(Log, ParseLevel) {
  EXPECT_EQ(parse_level("warning"), Level::kWarn);
  EXPECT_EQ(parse_level("debug"), Level::kDebug);
  EXPECT_THROW(parse_level("loud"), std::invalid_argument);
}

}  // namespace
}  // namespace orrery::obs
