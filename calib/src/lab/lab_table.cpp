#include "lab/lab_table.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <sstream>

#include "lidartwin/base/text_file.h"

namespace lt::calib {

namespace {

struct Unit {
  const char* name;
  const char* dimension;
  double si;  // value of 1 unit in the dimension's base
};

// Units a lab table may use, lower case.
constexpr Unit kUnits[] = {{"m", "length", 1},       {"mm", "length", 1e-3},
                           {"cm", "length", 1e-2},   {"km", "length", 1e3},
                           {"w", "power", 1},        {"mw", "power", 1e-3},
                           {"uw", "power", 1e-6},    {"nw", "power", 1e-9},
                           {"pw", "power", 1e-12},   {"deg", "angle", 1.745329251994329577e-2},
                           {"rad", "angle", 1},      {"mrad", "angle", 1e-3},
                           {"urad", "angle", 1e-6},  {"percent", "ratio", 1e-2},
                           {"fraction", "ratio", 1}, {"db", "level", 1},
                           {"us", "time", 1e-6},     {"ms", "time", 1e-3},
                           {"s", "time", 1},         {"ns", "time", 1e-9}};

const Unit* FindUnit(const std::string& name) {
  for (const auto& u : kUnits)
    if (name == u.name) return &u;
  return nullptr;
}

std::string Lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t");
  return s.substr(a, b - a + 1);
}

std::string Printable(const std::string& cell) {
  std::string s = cell.substr(0, 24);
  for (char& ch : s)
    if (static_cast<unsigned char>(ch) < 32 || static_cast<unsigned char>(ch) > 126) ch = '?';
  return cell.size() > 24 ? s + "..." : s;
}

constexpr size_t kMaxRows = 100000;

}  // namespace

Expected<double> UnitFactor(const std::string& unit, const std::string& canonical) {
  if (Lower(unit) == Lower(canonical)) return 1.0;
  const Unit* u = FindUnit(Lower(unit));
  const Unit* c = FindUnit(Lower(canonical));
  if (!u)
    return Error{"unknown unit '" + Printable(unit) + "' (expected one convertible to " +
                 canonical + ")"};
  if (!c || std::string(u->dimension) != c->dimension) {
    return Error{"unit '" + unit + "' does not measure the same thing as " + canonical};
  }
  return u->si / c->si;
}

Expected<LabTable> ReadLabTable(const std::filesystem::path& file,
                                const std::vector<QuantitySpec>& spec,
                                const std::map<std::string, std::string>& manifest_units) {
  auto text = ReadTextFile(file, " lab table", kMaxLabFileBytes);
  if (!text.ok()) return text.error();
  return ParseLabTable(*text, file, spec, manifest_units);
}

Expected<LabTable> ParseLabTable(std::string bytes, const std::filesystem::path& file,
                                 const std::vector<QuantitySpec>& spec,
                                 const std::map<std::string, std::string>& manifest_units) {
  std::string* text = &bytes;
  if (text->rfind("\xEF\xBB\xBF", 0) == 0) text->erase(0, 3);
  const std::string where = file.string() + ":";
  std::istringstream in(*text);
  std::string line;
  int line_no = 0;
  std::vector<int> column_quantity;  // index into spec per file column
  std::vector<double> column_factor;
  LabTable out;
  for (const auto& q : spec)
    out.columns[q.quantity] = {};
  std::vector<std::vector<double>> values(spec.size());
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string t = Trim(line);
    if (t.empty() || t[0] == '#') continue;
    std::vector<std::string> cells;
    std::istringstream cs(t);
    std::string cell;
    while (std::getline(cs, cell, ',')) {
      cells.push_back(Trim(cell));
      if (cells.size() > 64)
        return Error{where + std::to_string(line_no) + ": more than 64 columns"};
    }
    const std::string at = where + std::to_string(line_no) + ": ";
    if (column_quantity.empty()) {  // the header
      for (const auto& name : cells) {
        const std::string lower = Lower(name);
        int found = -1;
        std::string unit;
        for (size_t q = 0; q < spec.size() && found < 0; ++q) {
          const std::string qn = spec[q].quantity;
          if (lower == qn && std::string(spec[q].canonical_unit).empty()) {
            found = static_cast<int>(q);
          } else if (lower.rfind(qn + "_", 0) == 0 && lower.size() > qn.size() + 1 &&
                     lower.find('_', qn.size() + 1) == std::string::npos) {
            found = static_cast<int>(q);
            unit = lower.substr(qn.size() + 1);
          }
        }
        if (found < 0) {
          std::string expected;
          for (const auto& q : spec)
            expected += std::string(expected.empty() ? "" : ", ") + q.quantity +
                        (std::string(q.canonical_unit).empty() ? "" : "_<unit>");
          return Error{at + "unknown column '" + Printable(name) + "' (expected " + expected + ")"};
        }
        if (std::find(column_quantity.begin(), column_quantity.end(), found) !=
            column_quantity.end()) {
          return Error{at + "column '" + name + "' appears twice"};
        }
        const QuantitySpec& q = spec[static_cast<size_t>(found)];
        double factor = 1;
        if (!std::string(q.canonical_unit).empty()) {
          if (unit.empty()) return Error{at + "column '" + name + "' has no unit"};
          auto f = UnitFactor(unit, q.canonical_unit);
          if (!f.ok()) return Error{at + "column '" + name + "': " + f.message()};
          factor = *f;
          const auto stated = manifest_units.find(q.quantity);
          if (stated != manifest_units.end() && Lower(stated->second) != unit) {
            return Error{at + "column '" + name + "' is in " + unit + " but the manifest's units." +
                         q.quantity + " says " + stated->second};
          }
        }
        column_quantity.push_back(found);
        column_factor.push_back(factor);
      }
      for (size_t q = 0; q < spec.size(); ++q) {
        if (spec[q].required && std::find(column_quantity.begin(), column_quantity.end(),
                                          static_cast<int>(q)) == column_quantity.end()) {
          return Error{at + "no column for " + spec[q].quantity + " (the header must name it)"};
        }
      }
      continue;
    }
    if (!t.empty() && t.back() == ',') return Error{at + "ends with a comma (an empty value)"};
    if (cells.size() != column_quantity.size()) {
      return Error{at + "has " + std::to_string(cells.size()) + " values, the header " +
                   std::to_string(column_quantity.size())};
    }
    if (out.line.size() >= kMaxRows) return Error{at + "more than 100,000 rows"};
    for (size_t c = 0; c < cells.size(); ++c) {
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(cells[c].c_str(), &end);
      // Decimal numbers only: no hexadecimal, no words (nan, inf), nothing out of range.
      if (cells[c].empty() || end != cells[c].c_str() + cells[c].size() ||
          cells[c].find_first_not_of("0123456789+-.eE") != std::string::npos || errno == ERANGE) {
        return Error{at + "column " + std::to_string(c + 1) + ": '" + Printable(cells[c]) +
                     "' is not a number"};
      }
      if (!std::isfinite(v)) {
        return Error{at + "column " + std::to_string(c + 1) + ": " + Printable(cells[c]) +
                     " is not a finite number"};
      }
      values[static_cast<size_t>(column_quantity[c])].push_back(v * column_factor[c]);
    }
    out.line.push_back(line_no);
  }
  if (column_quantity.empty()) return Error{file.string() + ": empty table (no header row)"};
  for (size_t q = 0; q < spec.size(); ++q)
    out.columns[spec[q].quantity] = std::move(values[q]);
  return out;
}

std::string LabTableText(const std::vector<std::string>& header,
                         const std::vector<std::vector<double>>& columns) {
  std::ostringstream out;
  out.precision(17);
  for (size_t c = 0; c < header.size(); ++c)
    out << (c ? "," : "") << header[c];
  out << "\n";
  const size_t n = columns.empty() ? 0 : columns[0].size();
  for (size_t r = 0; r < n; ++r) {
    for (size_t c = 0; c < columns.size(); ++c)
      out << (c ? "," : "") << columns[c][r];
    out << "\n";
  }
  return out.str();
}

}  // namespace lt::calib
