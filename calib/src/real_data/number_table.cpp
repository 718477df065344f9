#include "number_table.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "lidartwin/base/text_file.h"

namespace lt::calib {

namespace {

// Cells longer than this are not numbers; keeps an unprintable or binary file's message short.
constexpr size_t kMaxCellChars = 64;

std::string Shown(const std::string& cell) {
  std::string out;
  for (char c : cell.substr(0, kMaxCellChars))
    out += (c >= 32 && c < 127) ? c : '?';
  return cell.size() > kMaxCellChars ? out + "..." : out;
}

}  // namespace

Expected<NumberTable> ReadNumberTable(const std::filesystem::path& file) {
  auto text = ReadTextFile(file);
  if (!text.ok()) return text.error();
  NumberTable table;
  table.file = file.string();
  const std::string& s = text.value();
  size_t line_no = 0;
  for (size_t begin = 0; begin < s.size();) {
    size_t end = s.find('\n', begin);
    if (end == std::string::npos) end = s.size();
    std::string line = s.substr(begin, end - begin);
    begin = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    NumberRow row;
    row.line = line_no;
    // Cells: split at commas; inside a comma-free line, at white space.
    const bool commas = line.find(',') != std::string::npos;
    size_t pos = 0;
    while (pos <= line.size()) {
      size_t stop = commas ? line.find(',', pos) : line.find_first_of(" \t", pos);
      if (stop == std::string::npos) stop = line.size();
      std::string cell = line.substr(pos, stop - pos);
      pos = stop + 1;
      const size_t a = cell.find_first_not_of(" \t"), b = cell.find_last_not_of(" \t");
      cell = a == std::string::npos ? "" : cell.substr(a, b - a + 1);
      if (cell.empty() && !commas) continue;  // runs of white space
      const size_t column = row.cells.size() + 1;
      if (cell.empty()) {
        return Error{table.Where(row) + ": column " + std::to_string(column) + " is empty"};
      }
      char* parsed_end = nullptr;
      errno = 0;
      const double v = std::strtod(cell.c_str(), &parsed_end);
      if (parsed_end != cell.c_str() + cell.size() || errno == ERANGE || !std::isfinite(v)) {
        return Error{table.Where(row) + ": column " + std::to_string(column) + ": '" + Shown(cell) +
                     "' is not a finite number"};
      }
      row.cells.push_back(v);
    }
    table.rows.push_back(std::move(row));
  }
  if (table.rows.empty()) return Error{table.file + ": no data rows (empty file?)"};
  return table;
}

}  // namespace lt::calib
