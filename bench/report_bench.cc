// Report generation speed on simulator-sized inputs: CDF downsampling, SVG rendering and CSV
// parsing of 500k values/rows (a Google-sub-trace-sized run).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/rng.h"
#include "report/charts.h"
#include "report/csv.h"
#include "report/sampling.h"

namespace {

using namespace orrery;

std::vector<double> delays(size_t n) {
  Rng rng(42);
  std::vector<double> v(n);
  for (double& x : v) x = rng.lognormal(-4, 2.5);
  return v;
}

void BM_CdfPointsSorted500k(benchmark::State& state) {
  std::vector<double> v = delays(500000);
  std::sort(v.begin(), v.end());
  for (auto _ : state) benchmark::DoNotOptimize(report::cdf_points(v, 512, true));
}
BENCHMARK(BM_CdfPointsSorted500k)->Unit(benchmark::kMillisecond);

// Includes copying and sorting the raw values, as the report does.
void BM_RenderCdf4x500k(benchmark::State& state) {
  report::CdfChart c;
  c.x = report::Axis{"delay", report::Format::kSeconds, true};
  for (int i = 0; i < 4; ++i) c.series.push_back({"run " + std::to_string(i), delays(500000)});
  size_t bytes = 0;
  for (auto _ : state) bytes = report::render_svg(c, "c").size();
  state.counters["svg_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_RenderCdf4x500k)->Unit(benchmark::kMillisecond);

void BM_RenderStepSeries100k(benchmark::State& state) {
  report::LineChart c;
  c.style = report::LineStyle::kStep;
  Rng rng(1);
  report::Series s{"util", {}, {}, {}, {}};
  for (int i = 0; i < 100000; ++i) {
    s.x.push_back(i * 0.1);
    s.y.push_back(rng.uniform());
  }
  c.series.push_back(s);
  size_t bytes = 0;
  for (auto _ : state) bytes = report::render_svg(c, "c").size();
  state.counters["svg_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_RenderStepSeries100k)->Unit(benchmark::kMillisecond);

void BM_CsvJobs500k(benchmark::State& state) {
  std::string text = "job,arrival_s,tasks,ideal_s,jrt_s,delay_s,short\n";
  const std::vector<double> d = delays(500000);
  for (size_t i = 0; i < d.size(); ++i)
    text += std::to_string(i) + "," + std::to_string(i) + ",250,1," + std::to_string(1 + d[i]) +
            "," + std::to_string(d[i]) + ",1\n";
  for (auto _ : state) {
    report::CsvFile f = report::CsvFile::parse(text, "jobs.csv");
    benchmark::DoNotOptimize(f.numbers("delay_s"));
  }
  state.SetBytesProcessed(static_cast<int64_t>(text.size()) * state.iterations());
}
BENCHMARK(BM_CsvJobs500k)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
