#include "report/document.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "scratch_dir.h"
#include "xml_check.h"

namespace orrery::report {
namespace {

using testing::check_xml;
using testing::count_of;

Document sample_document() {
  Document doc("Runs <A> & <B>");
  doc.section("Summary").paragraph("Two runs of \"kube-default\" & friends.");
  Table t;
  t.caption = "Summary";
  t.columns = {"metric", "a", "b"};
  t.row_headers = true;
  t.add_row({"jobs", 2000, 1999});
  t.add_row({"p50 delay", Cell(0.0015, Format::kSeconds), Cell(1.003, Format::kSeconds)});
  t.add_row({"profile", "kube<default>"});  // short row: padded
  doc.table(t);
  doc.section("Delays").heading("JRT delay");
  CdfChart cdf;
  cdf.title = "delay";
  cdf.x = Axis{"delay", Format::kSeconds, true};
  cdf.series = {{"a", {0.001, 0.002, 0.01}}, {"b", {1, 1.003, 2}}};
  doc.chart(cdf, "Lower is better.");
  LineChart line;
  line.series.push_back({"s", {0, 1}, {0, 1}, {}, {}});
  doc.chart(line);
  doc.section("How").code("orrery report a b --out r.html");
  return doc;
}

TEST(Document, HtmlIsSelfContainedWellFormedAndEscaped) {
  const std::string html = sample_document().html();
  const auto xml = check_xml(html);
  ASSERT_TRUE(xml.ok) << xml.error;
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(xml.elements.at("svg"), 2);
  EXPECT_EQ(xml.elements.at("section"), 3);
  EXPECT_EQ(xml.elements.at("figure"), 2);
  EXPECT_EQ(xml.elements.at("figcaption"), 1);
  EXPECT_NE(html.find("<title>Runs &lt;A&gt; &amp; &lt;B&gt;</title>"), std::string::npos);
  EXPECT_NE(html.find("kube&lt;default&gt;"), std::string::npos);
  // Table of contents for three sections, unique chart ids.
  EXPECT_NE(html.find("<a href=\"#s3\">How</a>"), std::string::npos);
  EXPECT_NE(html.find("id=\"c1-clip\""), std::string::npos);
  EXPECT_NE(html.find("id=\"c2-clip\""), std::string::npos);
  // Nothing to fetch and nothing to run.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(count_of(html, "http"), count_of(html, "http://www.w3.org/2000/svg"));
}

TEST(Document, TablesAlignNumbersAndKeepExactValuesAsTooltips) {
  const std::string html = sample_document().html();
  EXPECT_NE(html.find("<td class=\"num\" title=\"0.0015\">1.5 ms</td>"), std::string::npos);
  EXPECT_NE(html.find("<th scope=\"row\">jobs</th><td class=\"num\" title=\"2000\">2000</td>"),
            std::string::npos);
  // Column b holds only numbers (and padding): right-aligned header; column a has text.
  EXPECT_NE(html.find("<th scope=\"col\" class=\"num\">b</th>"), std::string::npos);
  EXPECT_NE(html.find("<th scope=\"col\">a</th>"), std::string::npos);
  // The padded short row has three cells.
  const size_t row = html.find("<th scope=\"row\">profile</th>");
  ASSERT_NE(row, std::string::npos);
  EXPECT_EQ(count_of(html.substr(row, html.find("</tr>", row) - row), "<td"), 2);
}

TEST(Document, SameCallsGiveSameBytes) {
  EXPECT_EQ(sample_document().html(), sample_document().html());
}

TEST(Document, WriteIsAtomicAndReportsBadPaths) {
  const orrery::testing::ScratchDir scratch("report-document");
  const std::filesystem::path dir = scratch.root();
  const std::string path = (dir / "r.html").string();
  sample_document().write(path);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), sample_document().html());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_THROW(sample_document().write((dir / "missing" / "r.html").string()), InputError);
}

}  // namespace
}  // namespace orrery::report
