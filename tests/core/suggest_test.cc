#include "util/suggest.h"

#include <gtest/gtest.h>

namespace orrery {
namespace {

TEST(Suggest, EditDistanceCountsTranspositionsAsOneEdit) {
  EXPECT_EQ(edit_distance("memroy", "memory"), 1u);
  EXPECT_EQ(edit_distance("schedul", "schedule"), 1u);
  EXPECT_EQ(edit_distance("kube-defualt", "kube-default"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", "abc"), 0u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(Suggest, OnlyCloseCandidatesAreSuggested) {
  const std::vector<std::string> cmds = {"schedule", "score", "sim", "compare", "report"};
  EXPECT_EQ(closest_match("schedul", cmds), "schedule");
  EXPECT_EQ(closest_match("sime", cmds), "sim");
  EXPECT_EQ(closest_match("frobnicate", cmds), std::nullopt);
  EXPECT_EQ(did_you_mean("comapre", cmds), " (did you mean \"compare\"?)");
  EXPECT_EQ(did_you_mean("xyz", cmds), "");
}

}  // namespace
}  // namespace orrery
