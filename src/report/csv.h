// Reading the simulator's CSV outputs: a header line naming the columns, then one record per
// line. RFC 4180 quoting is accepted; blank lines are skipped; CRLF is fine. Cells are kept as
// offsets into the file text (a 500k-row file does not become millions of strings), and columns
// are extracted by name, so unknown extra columns cost nothing and are ignored.
// Every error is "FILE:LINE: what was expected" (InputError).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orrery::report {

class CsvFile {
 public:
  // Reads and parses a file; throws InputError if it cannot be read or is malformed (a row with
  // a different number of fields than the header, an unterminated quote, no header).
  static CsvFile read(const std::string& path);
  // `source` names the text in error messages.
  static CsvFile parse(std::string text, const std::string& source);

  const std::string& source() const { return source_; }
  const std::vector<std::string>& columns() const { return header_; }
  size_t rows() const { return lines_.size(); }
  bool has(std::string_view column) const;
  // Throws InputError "FILE:1: missing column 'x' (columns: a,b,c)" if any is absent.
  void require(const std::vector<std::string>& columns) const;

  // A column as numbers. Empty cells, "nan" and "NA" are NaN (missing). Throws
  // "FILE:LINE: column 'x': expected a number, got \"abc\"" on anything else.
  std::vector<double> numbers(std::string_view column) const;
  // The same, but nullopt instead of an error when a cell is not a number (for optional columns
  // of unknown meaning).
  std::optional<std::vector<double>> try_numbers(std::string_view column) const;
  std::vector<std::string> strings(std::string_view column) const;
  std::string_view cell(size_t row, size_t column) const;
  int line(size_t row) const { return lines_[row]; }  // 1-based source line of a row

 private:
  size_t index_of(std::string_view column) const;  // throws if absent
  template <class OnBad>
  bool parse_numbers(size_t col, std::vector<double>& out, OnBad on_bad) const;

  struct Span {
    uint32_t offset, length;
  };
  std::string source_;
  std::string text_;  // file text, plus unescaped copies of quoted cells that contained ""
  std::vector<std::string> header_;
  std::vector<Span> cells_;  // row-major, header_.size() per row
  std::vector<int> lines_;
};

}  // namespace orrery::report
