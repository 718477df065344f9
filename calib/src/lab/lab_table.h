// A lab measurement table (private to calib/): CSV with a header row naming each column as
// <quantity>_<unit> (range_m, signal_nw, incidence_deg; unitless counts as just the quantity),
// then rows of numbers. Columns come back converted to the quantity's canonical unit; a unit
// the manifest states for a quantity must be the one the header carries.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt::calib {

struct QuantitySpec {
  const char* quantity;        // e.g. "range"
  const char* canonical_unit;  // e.g. "m"; "" for a count or a relative value
  bool required;
};

struct LabTable {
  // Canonical values per quantity; a missing optional quantity has an empty column.
  std::map<std::string, std::vector<double>> columns;
  std::vector<int> line;  // 1-based file line of each row
  size_t rows() const { return line.size(); }
  const std::vector<double>& operator[](const std::string& q) const { return columns.at(q); }
  bool Has(const std::string& q) const { return !columns.at(q).empty(); }
};

// A lab file larger than this is a wrong file (64 MiB: 100,000 rows or a 16 x 512 x 512
// float32 image stack fit well within it).
inline constexpr uint64_t kMaxLabFileBytes = uint64_t{64} << 20;

// Rows are capped at 100,000 (a lab table far larger is a wrong file).
Expected<LabTable> ReadLabTable(const std::filesystem::path& file,
                                const std::vector<QuantitySpec>& spec,
                                const std::map<std::string, std::string>& manifest_units);
// The same from the file's bytes, already read (`file` names it in messages).
Expected<LabTable> ParseLabTable(std::string bytes, const std::filesystem::path& file,
                                 const std::vector<QuantitySpec>& spec,
                                 const std::map<std::string, std::string>& manifest_units);

// CSV text of the given columns (header <quantity>_<unit>, values to 17 digits).
std::string LabTableText(const std::vector<std::string>& header,
                         const std::vector<std::vector<double>>& columns);

// The factor that turns `unit` into `canonical` (e.g. mm -> m: 1e-3), or an error naming both
// when they measure different things or `unit` is unknown.
Expected<double> UnitFactor(const std::string& unit, const std::string& canonical);

}  // namespace lt::calib
