// CSV import/export of history records (`orrery history import|export`).
#include <gtest/gtest.h>

#include "core/error.h"
#include "policies/kubcg/history_csv.h"

namespace orrery::kubcg {
namespace {

const char* kHeader = "image,node,resource,t_create_s,t_exec_s,start,end,concurrency\n";

TEST(HistoryCsv, ParsesAndRoundTrips) {
  const std::string text = std::string(kHeader) + "scale:cpu,node-1,CPU,2,40,0,42,1\n" +
                           "scale:gpu,node-5,gpu,1.5,20,50,71.5,2\n";
  const auto r = parse_records_csv(text, "h.csv");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].resource, Resource::kGpu);
  EXPECT_DOUBLE_EQ(r[1].t_run_s(), 21.5);
  const auto again = parse_records_csv(records_csv(r), "export.csv");  // with exit_status
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[1].concurrency, 2);
  EXPECT_DOUBLE_EQ(again[1].end_s, 71.5);
}

TEST(HistoryCsv, BadRowsNameFileLineAndField) {
  const std::pair<std::string, std::string> cases[] = {
      {"a,n,CPU,2,-1,0,1,1", "h.csv:2: t_exec_s is negative"},
      {"a,n,TPU,2,1,0,3,1", "h.csv:2: resource: expected CPU or GPU"},
      {"a,n,CPU,x,1,0,3,1", "h.csv:2: t_create_s: expected a number"},
      {"a,n,CPU,1,1,0,3", "h.csv:2: expected 8 fields, got 7"},
      {"a,n,CPU,1,1,5,3,1", "h.csv:2: end is before start"},
      {"a,n,CPU,1,1,0,3,0", "h.csv:2: concurrency must be at least 1"},
  };
  for (const auto& [row, want] : cases) {
    try {
      parse_records_csv(std::string(kHeader) + row + "\n", "h.csv");
      ADD_FAILURE() << "accepted " << row;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse_records_csv("image,node\n", "h.csv"), InputError);
  EXPECT_THROW(parse_records_csv("", "h.csv"), InputError);
}

}  // namespace
}  // namespace orrery::kubcg
