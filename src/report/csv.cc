#include "report/csv.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <utility>

#include "core/error.h"

namespace orrery::report {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool ieq(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// A number, NaN for a missing value, or nullopt for anything else.
std::optional<double> to_number(std::string_view s) {
  s = trim(s);
  if (s.empty() || ieq(s, "nan") || ieq(s, "na") || ieq(s, "null"))
    return std::numeric_limits<double>::quiet_NaN();
  if (s.front() == '+') s.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string shorten(std::string_view s) {
  return s.size() > 40 ? std::string(s.substr(0, 40)) + "..." : std::string(s);
}

// Throws InputError "SOURCE:LINE: what" for a malformed CSV file.
[[noreturn]] void parse_error(const std::string& source, int at, const std::string& what) {
  throw InputError(error_location(source, at, "") + ": " + what);
}

// A quoted field whose opening quote is text[i] (i < n, the parsed length of text): moves i past
// the closing quote and the spaces after it, counting newlines in `line`. A field with doubled
// quotes is unescaped into a copy appended to text. Returns the field's {offset, length} in text.
std::pair<uint32_t, uint32_t> quoted_field(std::string& text, size_t n, size_t& i, int& line,
                                           int row_line, const std::string& source) {
  std::pair<uint32_t, uint32_t> span;
  ++i;
  const size_t start = i;
  bool escaped = false;
  for (;;) {
    if (i >= n) parse_error(source, row_line, "unterminated quoted field");
    if (text[i] == '"') {
      if (i + 1 < n && text[i + 1] == '"') {
        escaped = true;
        i += 2;
        continue;
      }
      break;
    }
    if (text[i] == '\n') ++line;
    ++i;
  }
  if (escaped) {
    std::string unescaped;
    for (size_t k = start; k < i; ++k) {
      unescaped += text[k];
      if (text[k] == '"') ++k;
    }
    span = {static_cast<uint32_t>(text.size()), static_cast<uint32_t>(unescaped.size())};
    text += unescaped;
  } else {
    span = {static_cast<uint32_t>(start), static_cast<uint32_t>(i - start)};
  }
  ++i;  // closing quote
  // Only spaces may follow a closing quote.
  while (i < n && (text[i] == ' ' || text[i] == '\t')) ++i;
  if (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
    parse_error(source, line, "unexpected text after a closing quote");
  return span;
}

}  // namespace

CsvFile CsvFile::read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read file");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(path + ": read error");
  return parse(std::move(ss).str(), path);
}

CsvFile CsvFile::parse(std::string text, const std::string& source) {
  if (text.size() >= std::numeric_limits<uint32_t>::max() / 2)
    throw InputError(source + ": file too large for the report (over 2 GB)");
  CsvFile f;
  f.source_ = source;
  f.text_ = std::move(text);
  // text_ grows when quoted cells need unescaping; parse from a stable copy of its length.
  const size_t n = f.text_.size();
  size_t i = 0;
  int line = 1;
  std::vector<Span> row;
  bool header_done = false;
  while (i < n) {
    const int row_line = line;
    row.clear();
    // One record: fields separated by ',', ended by '\n' (or EOF).
    for (;;) {
      Span span{static_cast<uint32_t>(i), 0};
      if (i < n && f.text_[i] == '"') {
        const auto [offset, length] = quoted_field(f.text_, n, i, line, row_line, source);
        span = {offset, length};
      } else {
        while (i < n && f.text_[i] != ',' && f.text_[i] != '\n') ++i;
        size_t end = i;
        if (end > span.offset && f.text_[end - 1] == '\r') --end;
        span.length = static_cast<uint32_t>(end - span.offset);
      }
      if (i < n && f.text_[i] == '\r') ++i;
      row.push_back(span);
      if (i < n && f.text_[i] == ',') {
        ++i;
        continue;
      }
      if (i < n) {
        ++i;  // '\n'
        ++line;
      }
      break;
    }
    // Skip blank lines.
    if (row.size() == 1 &&
        trim(std::string_view(f.text_).substr(row[0].offset, row[0].length)).empty())
      continue;
    if (!header_done) {
      for (const Span& s : row) {
        std::string name(trim(std::string_view(f.text_).substr(s.offset, s.length)));
        if (name.empty()) parse_error(source, row_line, "empty column name in the header");
        for (const std::string& h : f.header_)
          if (h == name)
            parse_error(source, row_line, "duplicate column '" + name + "' in the header");
        f.header_.push_back(std::move(name));
      }
      header_done = true;
      continue;
    }
    if (row.size() != f.header_.size())
      parse_error(source, row_line,
                  "expected " + std::to_string(f.header_.size()) +
                      " fields (as in the header), got " + std::to_string(row.size()));
    f.cells_.insert(f.cells_.end(), row.begin(), row.end());
    f.lines_.push_back(row_line);
  }
  if (!header_done) throw InputError(source + ": empty file, expected a header line");
  return f;
}

bool CsvFile::has(std::string_view column) const {
  for (const std::string& h : header_)
    if (h == column) return true;
  return false;
}

void CsvFile::require(const std::vector<std::string>& columns) const {
  for (const std::string& c : columns) {
    if (has(c)) continue;
    std::string list;
    for (const std::string& h : header_) list += (list.empty() ? "" : ",") + h;
    throw InputError(error_location(source_, 1, "") + ": missing column '" + c +
                     "' (columns: " + list + ")");
  }
}

size_t CsvFile::index_of(std::string_view column) const {
  for (size_t i = 0; i < header_.size(); ++i)
    if (header_[i] == column) return i;
  require({std::string(column)});
  return 0;  // unreachable: require throws
}

std::string_view CsvFile::cell(size_t row, size_t column) const {
  const Span s = cells_[row * header_.size() + column];
  return std::string_view(text_).substr(s.offset, s.length);
}

template <class OnBad>
bool CsvFile::parse_numbers(size_t col, std::vector<double>& out, OnBad on_bad) const {
  out.resize(rows());
  for (size_t r = 0; r < rows(); ++r) {
    const std::optional<double> v = to_number(cell(r, col));
    if (!v) {
      on_bad(r);
      return false;
    }
    out[r] = *v;
  }
  return true;
}

std::vector<double> CsvFile::numbers(std::string_view column) const {
  const size_t col = index_of(column);
  std::vector<double> out;
  parse_numbers(col, out, [&](size_t r) {
    throw InputError(error_location(source_, lines_[r], "") + ": column '" + std::string(column) +
                     "': expected a number, got \"" + shorten(cell(r, col)) + "\"");
  });
  return out;
}

std::optional<std::vector<double>> CsvFile::try_numbers(std::string_view column) const {
  const size_t col = index_of(column);
  std::vector<double> out;
  if (!parse_numbers(col, out, [](size_t) {})) return std::nullopt;
  return out;
}

std::vector<std::string> CsvFile::strings(std::string_view column) const {
  const size_t col = index_of(column);
  std::vector<std::string> out;
  out.reserve(rows());
  for (size_t r = 0; r < rows(); ++r) out.emplace_back(trim(cell(r, col)));
  return out;
}

}  // namespace orrery::report
