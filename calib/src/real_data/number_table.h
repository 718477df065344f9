// A text file of numbers, one record a line, for the real-data readers (private to calib/):
// cells separated by commas or white space, CRLF or LF line ends, blank lines and lines
// starting with '#' skipped. Every error names the file, the line and the cell.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt::calib {

struct NumberRow {
  size_t line = 0;  // 1-based line in the file
  std::vector<double> cells;
};

struct NumberTable {
  std::string file;  // as given, for messages
  std::vector<NumberRow> rows;

  // "<file>: line <n>: <problem>", the form of every error about a row.
  std::string Where(const NumberRow& row) const {
    return file + ": line " + std::to_string(row.line);
  }
};

// Reads the file; a cell that is not a finite number is an error naming the file, the line,
// the column (1-based) and the text. An empty file (no data rows) is an error too.
Expected<NumberTable> ReadNumberTable(const std::filesystem::path& file);

}  // namespace lt::calib
