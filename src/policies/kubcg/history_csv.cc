#include "policies/kubcg/history_csv.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "core/error.h"

namespace orrery::kubcg {

namespace {

const char* kColumns[] = {"image", "node", "resource",    "t_create_s", "t_exec_s",
                          "start", "end",  "concurrency", "exit_status"};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == ',')
      out.emplace_back();
    else
      out.back() += c;
  }
  for (std::string& f : out) {
    while (!f.empty() && (f.back() == ' ' || f.back() == '\r')) f.pop_back();
    while (!f.empty() && f.front() == ' ') f.erase(f.begin());
  }
  return out;
}

double number(const std::string& text, const std::string& where) {
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v))
    throw InputError(where + ": expected a number, got \"" + text + "\"");
  return v;
}

int integer(const std::string& text, const std::string& where) {
  int v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size())
    throw InputError(where + ": expected an integer, got \"" + text + "\"");
  return v;
}

}  // namespace

std::vector<Record> parse_records_csv(const std::string& text, const std::string& file) {
  std::vector<Record> out;
  size_t pos = 0;
  int line_no = 0;
  size_t columns = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    const std::string at = file + ":" + std::to_string(line_no);
    if (line.find_first_not_of(" \r\t") == std::string::npos) continue;
    const std::vector<std::string> f = split(line);
    if (columns == 0) {
      if (f.size() < 8 || f.size() > 9)
        throw InputError(at +
                         ": expected the header image,node,resource,t_create_s,t_exec_s,"
                         "start,end,concurrency[,exit_status]");
      for (size_t i = 0; i < f.size(); ++i)
        if (f[i] != kColumns[i])
          throw InputError(at + ": header column " + std::to_string(i + 1) + ": expected \"" +
                           kColumns[i] + "\", got \"" + f[i] + "\"");
      columns = f.size();
      continue;
    }
    if (f.size() != columns)
      throw InputError(fmt::format("{}: expected {} fields, got {}", at, columns, f.size()));
    Record r;
    r.image = f[0];
    r.node = f[1];
    if (r.image.empty()) throw InputError(at + ": image: expected a name");
    if (r.node.empty()) throw InputError(at + ": node: expected a name");
    if (!parse_resource(f[2], &r.resource))
      throw InputError(at + ": resource: expected CPU or GPU, got \"" + f[2] + "\"");
    r.t_create_s = number(f[3], at + ": t_create_s");
    r.t_exec_s = number(f[4], at + ": t_exec_s");
    r.start_s = number(f[5], at + ": start");
    r.end_s = number(f[6], at + ": end");
    r.concurrency = integer(f[7], at + ": concurrency");
    if (columns == 9) r.exit_status = integer(f[8], at + ": exit_status");
    const std::string why = validate(r);
    if (!why.empty()) throw InputError(at + ": " + why);
    out.push_back(std::move(r));
  }
  if (columns == 0) throw InputError(file + ": empty file (expected a header line)");
  return out;
}

std::string records_csv(const std::vector<Record>& records) {
  std::string out = "image,node,resource,t_create_s,t_exec_s,start,end,concurrency,exit_status\n";
  for (const Record& r : records)
    out += fmt::format("{},{},{},{},{},{},{},{},{}\n", r.image, r.node, to_string(r.resource),
                       r.t_create_s, r.t_exec_s, r.start_s, r.end_s, r.concurrency, r.exit_status);
  return out;
}

}  // namespace orrery::kubcg
