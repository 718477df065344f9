// Readers of the Spectralon panel files (spectralon.h has their layouts and sources).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "lidartwin/calib/spectralon.h"
#include "number_table.h"

namespace lt::calib {

namespace {

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Index i and weight w with x between grid[i] and grid[i + 1] (w the share of grid[i + 1]);
// false outside the grid.
bool Bracket(const std::vector<double>& grid, double x, size_t* i, double* w) {
  if (grid.empty() || !(x >= grid.front() && x <= grid.back())) return false;
  size_t lo = 0, hi = grid.size() - 1;
  while (hi - lo > 1) {
    const size_t mid = (lo + hi) / 2;
    (grid[mid] <= x ? lo : hi) = mid;
  }
  *i = lo;
  *w = hi == lo ? 0.0 : (x - grid[lo]) / (grid[hi] - grid[lo]);
  return true;
}

}  // namespace

Expected<BrfNormalisation> LoadBrfNormalisation(const std::filesystem::path& file) {
  auto table = ReadNumberTable(file);
  if (!table.ok()) return table.error();
  BrfNormalisation out;
  out.file = table->file;
  for (const NumberRow& row : table->rows) {
    if (row.cells.size() != kBrfTableWavelengths + 1) {
      return Error{table->Where(row) + ": " + std::to_string(row.cells.size()) +
                   " cells; expected the incidence angle and " +
                   std::to_string(kBrfTableWavelengths) + " factors (350..2500 nm in 1 nm steps)"};
    }
    const double theta = row.cells[0];
    if (theta < 0 || theta >= 90) {
      return Error{table->Where(row) + ": incidence angle " + Num(theta) + " deg is outside 0..90"};
    }
    if (!out.incidence_deg.empty() && theta <= out.incidence_deg.back()) {
      return Error{table->Where(row) + ": incidence angle " + Num(theta) +
                   " deg does not increase (previous row " + Num(out.incidence_deg.back()) +
                   " deg)"};
    }
    for (size_t c = 1; c < row.cells.size(); ++c) {
      if (!(row.cells[c] > 0)) {
        return Error{table->Where(row) + ": column " + std::to_string(c + 1) + " (" +
                     Num(kBrfTableFirstWavelength_nm + (c - 1) * kBrfTableWavelengthStep_nm) +
                     " nm): normalisation factor " + Num(row.cells[c]) + " is not positive"};
      }
    }
    out.incidence_deg.push_back(theta);
    out.a.insert(out.a.end(), row.cells.begin() + 1, row.cells.end());
  }
  return out;
}

Expected<std::vector<double>> BrfNormalisation::AtWavelength(double wavelength_nm) const {
  const double last =
      kBrfTableFirstWavelength_nm + (kBrfTableWavelengths - 1) * kBrfTableWavelengthStep_nm;
  if (!(wavelength_nm >= kBrfTableFirstWavelength_nm && wavelength_nm <= last)) {
    return Error{file + ": wavelength " + Num(wavelength_nm) + " nm is outside the table's " +
                 Num(kBrfTableFirstWavelength_nm) + ".." + Num(last) + " nm"};
  }
  const double x = (wavelength_nm - kBrfTableFirstWavelength_nm) / kBrfTableWavelengthStep_nm;
  const size_t c = std::min(static_cast<size_t>(x), kBrfTableWavelengths - 2);
  const double w = x - static_cast<double>(c);
  std::vector<double> out;
  for (size_t r = 0; r < incidence_deg.size(); ++r) {
    const double* row = a.data() + r * kBrfTableWavelengths;
    out.push_back((1 - w) * row[c] + w * row[c + 1]);
  }
  return out;
}

Expected<PanelReflectance> LoadPanelReflectance(const std::filesystem::path& file) {
  auto table = ReadNumberTable(file);
  if (!table.ok()) return table.error();
  PanelReflectance out;
  out.file = table->file;
  const size_t columns = table->rows.front().cells.size();
  if (columns != 2 && columns != 3) {
    return Error{table->Where(table->rows.front()) + ": " + std::to_string(columns) +
                 " columns; expected wavelength [nm], reflectance and optionally its uncertainty"};
  }
  for (const NumberRow& row : table->rows) {
    if (row.cells.size() != columns) {
      return Error{table->Where(row) + ": " + std::to_string(row.cells.size()) +
                   " columns where the first data row has " + std::to_string(columns)};
    }
    const double wl = row.cells[0], r = row.cells[1];
    if (!out.wavelength_nm.empty() && wl <= out.wavelength_nm.back()) {
      return Error{table->Where(row) + ": wavelength " + Num(wl) +
                   " nm does not increase (previous row " + Num(out.wavelength_nm.back()) + " nm)"};
    }
    // A diffuse reflectance is a fraction; a little above 1 is the most a calibrated white
    // standard reports (fluorescence, calibration error), percent files fail here.
    if (r < 0 || r > 1.2) {
      return Error{table->Where(row) + ": reflectance " + Num(r) +
                   " is outside 0..1.2 (a fraction is expected, not percent)"};
    }
    out.wavelength_nm.push_back(wl);
    out.reflectance.push_back(r);
    if (columns == 3) {
      if (row.cells[2] < 0) {
        return Error{table->Where(row) + ": uncertainty " + Num(row.cells[2]) + " is negative"};
      }
      out.uncertainty.push_back(row.cells[2]);
    }
  }
  return out;
}

Expected<double> PanelReflectance::At(double query_nm, double* u) const {
  size_t i = 0;
  double w = 0;
  if (!Bracket(wavelength_nm, query_nm, &i, &w)) {
    return Error{file + ": wavelength " + Num(query_nm) + " nm is outside the file's " +
                 Num(wavelength_nm.front()) + ".." + Num(wavelength_nm.back()) + " nm"};
  }
  const size_t j = std::min(i + 1, reflectance.size() - 1);
  if (u) *u = uncertainty.empty() ? 0.0 : (1 - w) * uncertainty[i] + w * uncertainty[j];
  return (1 - w) * reflectance[i] + w * reflectance[j];
}

}  // namespace lt::calib
