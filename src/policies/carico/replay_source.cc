#include "policies/carico/replay_source.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/error.h"
#include "io/k8s_objects.h"

namespace orrery::carico {
namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  for (auto& s : out) {
    const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    s = b == std::string::npos ? "" : s.substr(b, e - b + 1);
  }
  return out;
}

double number(const std::string& text, const std::string& where, const std::string& col,
              double lo, double hi) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size() || !std::isfinite(v))
    throw InputError(where + ": " + col + ": expected a finite number, got \"" + text + "\"");
  if (v < lo || v > hi) {
    std::ostringstream m;
    m << where << ": " << col << ": " << text << " is out of range, expected [" << lo << ", "
      << hi << "]";
    throw InputError(m.str());
  }
  return v;
}

}  // namespace

std::vector<ReplayRow> parse_replay(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  std::vector<std::string> header;
  int col_t = -1, col_cpu = -1, col_mem = -1, col_psi = -1, col_pods = -1;
  std::vector<ReplayRow> rows;
  while (std::getline(in, line)) {
    ++lineno;
    const std::string where = source + ":" + std::to_string(lineno);
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const std::vector<std::string> f = split(line);
    if (header.empty()) {
      header = f;
      for (size_t i = 0; i < f.size(); ++i) {
        int* slot = f[i] == "t_s"            ? &col_t
                    : f[i] == "cpu_util"     ? &col_cpu
                    : f[i] == "mem_util"     ? &col_mem
                    : f[i] == "cpu_pressure" ? &col_psi
                    : f[i] == "pods"         ? &col_pods
                                             : nullptr;
        if (!slot)
          throw InputError(where + ": header: unknown column \"" + f[i] +
                           "\" (expected t_s,cpu_util,mem_util[,cpu_pressure][,pods])");
        *slot = static_cast<int>(i);
      }
      if (col_t < 0 || col_cpu < 0 || col_mem < 0)
        throw InputError(where + ": header: expected the columns t_s, cpu_util and mem_util");
      continue;
    }
    if (f.size() != header.size())
      throw InputError(where + ": expected " + std::to_string(header.size()) + " columns, got " +
                       std::to_string(f.size()));
    ReplayRow r;
    r.t_s = number(f[col_t], where, "t_s", 0, 1e9);
    if (!rows.empty() && !(r.t_s > rows.back().t_s))
      throw InputError(where + ": t_s: " + f[col_t] + " is not after the previous sample's " +
                       std::to_string(rows.back().t_s));
    r.sample.cpu_util = number(f[col_cpu], where, "cpu_util", 0, 1);
    r.sample.mem_util = number(f[col_mem], where, "mem_util", 0, 1);
    if (col_psi >= 0 && !f[col_psi].empty())
      r.sample.cpu_pressure = number(f[col_psi], where, "cpu_pressure", 0, 1);
    if (col_pods >= 0) {
      const double p = number(f[col_pods], where, "pods", 0, 1e6);
      if (p != std::floor(p)) throw InputError(where + ": pods: expected an integer, got \"" + f[col_pods] + "\"");
      r.sample.pods = static_cast<int>(p);
    }
    rows.push_back(r);
  }
  if (header.empty()) throw InputError(source + ": empty replay file (expected a header line)");
  if (rows.empty()) throw InputError(source + ":" + std::to_string(lineno) + ": no samples after the header");
  return rows;
}

std::vector<ReplayRow> load_replay(const std::string& path) {
  return parse_replay(read_text_file(path), path);
}

ReplaySource::ReplaySource(const std::string& path) : ReplaySource(load_replay(path), path) {}

ReplaySource::ReplaySource(std::vector<ReplayRow> rows, std::string name)
    : rows_(std::move(rows)), name_(std::move(name)) {
  const double step = rows_.size() > 1 ? (rows_.back().t_s - rows_.front().t_s) / (rows_.size() - 1) : 1.0;
  period_ = rows_.back().t_s - rows_.front().t_s + step;
}

std::optional<RawSample> ReplaySource::read(double now_s, std::string*) {
  if (start_ < 0) start_ = now_s;
  double t = rows_.front().t_s + std::fmod(std::max(0.0, now_s - start_), period_);
  auto it = std::upper_bound(rows_.begin(), rows_.end(), t,
                             [](double v, const ReplayRow& r) { return v < r.t_s; });
  if (it != rows_.begin()) --it;
  return it->sample;
}

std::string ReplaySource::describe() const {
  return "replay of " + name_ + " (" + std::to_string(rows_.size()) + " samples, looping)";
}

}  // namespace orrery::carico
