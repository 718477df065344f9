#include "lidartwin/sim/beam_kernel.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "lidartwin/base/text_file.h"

namespace lt {

namespace {

// Rows of comma-separated numbers, comments and blank lines dropped; the first row of a grid
// may start with a label, which `first_cell_label` lets through.
struct CsvRows {
  std::vector<std::vector<double>> rows;
  std::vector<int> line;  // 1-based line of each row
};

// A cell as it may be shown in a message: at most 24 characters, anything unprintable as '?'.
std::string Printable(const std::string& cell) {
  std::string s = cell.substr(0, 24);
  for (char& ch : s) {
    if (static_cast<unsigned char>(ch) < 32 || static_cast<unsigned char>(ch) > 126) ch = '?';
  }
  return cell.size() > 24 ? s + "..." : s;
}

// Cells a row may hold: a 4096-angle axis plus its label.
constexpr int kMaxCells = 4097;

Expected<CsvRows> ReadCsvNumbers(const std::filesystem::path& file, bool first_cell_label) {
  auto text = ReadTextFile(file, " kernel file");
  if (!text.ok()) return text.error();
  // A UTF-8 byte-order mark, as some spreadsheets write.
  if (text->rfind("\xEF\xBB\xBF", 0) == 0) text->erase(0, 3);
  CsvRows out;
  std::istringstream in(*text);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    std::vector<double> row;
    std::istringstream cells(line);
    std::string cell;
    int column = 0;
    while (std::getline(cells, cell, ',')) {
      ++column;
      if (column > kMaxCells) {
        return Error{file.string() + ":" + std::to_string(line_no) + ": more than " +
                     std::to_string(kMaxCells) + " columns"};
      }
      if (first_cell_label && out.rows.empty() && column == 1) {
        row.push_back(std::nan(""));  // the label
        continue;
      }
      char* end = nullptr;
      const double v = std::strtod(cell.c_str(), &end);
      while (end && (*end == ' ' || *end == '\t'))
        ++end;
      if (end == cell.c_str() || (end && *end != '\0')) {
        return Error{file.string() + ":" + std::to_string(line_no) + ": column " +
                     std::to_string(column) + ": '" + Printable(cell) + "' is not a number"};
      }
      if (!std::isfinite(v)) {
        return Error{file.string() + ":" + std::to_string(line_no) + ": column " +
                     std::to_string(column) + ": " + Printable(cell) + " is not finite"};
      }
      row.push_back(v);
    }
    out.rows.push_back(std::move(row));
    out.line.push_back(line_no);
    if (out.rows.size() > static_cast<size_t>(kMaxCells)) {
      return Error{file.string() + ":" + std::to_string(line_no) + ": more than " +
                   std::to_string(kMaxCells) + " rows"};
    }
  }
  if (out.rows.empty()) return Error{file.string() + ": no data rows"};
  return out;
}

// Checks a strictly increasing, evenly spaced axis of at least two angles.
Status CheckAxis(const std::vector<double>& a, const std::string& where) {
  if (a.size() < 2)
    return Error{where + ": needs at least 2 angles, got " + std::to_string(a.size())};
  if (a.size() > 4096) return Error{where + ": more than 4096 angles"};
  const double step = a[1] - a[0];
  // Goniometer angles about the beam: beyond 500 mrad (29 deg) a kernel is no beam's.
  for (double x : a) {
    if (!(std::abs(x) <= 500)) {
      return Error{where + ": angle " + std::to_string(x) + " mrad is beyond +-500 mrad"};
    }
  }
  for (size_t i = 1; i < a.size(); ++i) {
    const double d = a[i] - a[i - 1];
    if (!(d > 0))
      return Error{where + ": angles must increase strictly (at " + std::to_string(a[i]) + ")"};
    // Evenly spaced to 0.01 % of a step: angles printed to a few decimals pass.
    if (std::abs(d - step) > 1e-4 * std::abs(step)) {
      return Error{where + ": angles must be evenly spaced (step " + std::to_string(step) +
                   " mrad, then " + std::to_string(d) + " at " + std::to_string(a[i]) + ")"};
    }
  }
  return {};
}

Status CheckValues(const std::vector<double>& v, const std::string& where) {
  double sum = 0;
  for (size_t k = 0; k < v.size(); ++k) {
    if (v[k] < 0) {
      return Error{where + ": value " + std::to_string(v[k]) + " at entry " + std::to_string(k) +
                   " is negative (kernels are relative intensities >= 0)"};
    }
    sum += v[k];
  }
  if (!(sum > 0)) return Error{where + ": all values are zero"};
  return {};
}

}  // namespace

std::string KernelGridText(const KernelTable& table, const std::string& label) {
  std::ostringstream out;
  out.precision(17);
  out << label;
  for (double h : table.h_mrad)
    out << "," << h;
  out << "\n";
  for (size_t j = 0; j < table.v_mrad.size(); ++j) {
    out << table.v_mrad[j];
    for (size_t i = 0; i < table.h_mrad.size(); ++i)
      out << "," << table.value[j * table.h_mrad.size() + i];
    out << "\n";
  }
  return out.str();
}

Expected<KernelTable> LoadKernelGrid(const std::filesystem::path& file) {
  auto csv = ReadCsvNumbers(file, true);
  if (!csv.ok()) return csv.error();
  KernelTable k;
  const auto& header = csv->rows[0];
  k.h_mrad.assign(header.begin() + 1, header.end());
  if (Status s = CheckAxis(k.h_mrad, file.string() + ": header (h angles)"); !s.ok())
    return s.error();
  for (size_t r = 1; r < csv->rows.size(); ++r) {
    const auto& row = csv->rows[r];
    if (row.size() != k.h_mrad.size() + 1) {
      return Error{file.string() + ":" + std::to_string(csv->line[r]) + ": expected " +
                   std::to_string(k.h_mrad.size() + 1) +
                   " columns (v angle and one value per h angle), got " +
                   std::to_string(row.size())};
    }
    k.v_mrad.push_back(row[0]);
    k.value.insert(k.value.end(), row.begin() + 1, row.end());
  }
  if (Status s = CheckAxis(k.v_mrad, file.string() + ": first column (v angles)"); !s.ok())
    return s.error();
  if (k.value.size() > (1u << 22)) return Error{file.string() + ": more than 4 M kernel cells"};
  if (Status s = CheckValues(k.value, file.string()); !s.ok()) return s.error();
  return k;
}

Expected<KernelSlice> LoadKernelSlice(const std::filesystem::path& file) {
  auto csv = ReadCsvNumbers(file, false);
  if (!csv.ok()) return csv.error();
  KernelSlice s;
  for (size_t r = 0; r < csv->rows.size(); ++r) {
    if (csv->rows[r].size() != 2) {
      return Error{file.string() + ":" + std::to_string(csv->line[r]) +
                   ": expected 2 columns (angle_mrad,value), got " +
                   std::to_string(csv->rows[r].size())};
    }
    s.angle_mrad.push_back(csv->rows[r][0]);
    s.value.push_back(csv->rows[r][1]);
  }
  if (Status st = CheckAxis(s.angle_mrad, file.string()); !st.ok()) return st.error();
  if (Status st = CheckValues(s.value, file.string()); !st.ok()) return st.error();
  return s;
}

KernelTable SeparableKernel(const KernelSlice& h, const KernelSlice& v) {
  // Each slice scaled to a peak of 1 first, so that the product neither overflows nor
  // underflows (the scale of a kernel is arbitrary).
  const double h_peak = *std::max_element(h.value.begin(), h.value.end());
  const double v_peak = *std::max_element(v.value.begin(), v.value.end());
  KernelTable k;
  k.h_mrad = h.angle_mrad;
  k.v_mrad = v.angle_mrad;
  for (double vv : v.value) {
    for (double hv : h.value)
      k.value.push_back((hv / h_peak) * (vv / v_peak));
  }
  return k;
}

Expected<KernelTable> LoadSeparableKernel(const std::filesystem::path& h_file,
                                          const std::filesystem::path& v_file) {
  auto h = LoadKernelSlice(h_file);
  if (!h.ok()) return h.error();
  auto v = LoadKernelSlice(v_file);
  if (!v.ok()) return v.error();
  return SeparableKernel(*h, *v);
}

KernelSampling PrepareKernelSampling(const KernelTable& t, double tail_exponent) {
  KernelSampling s;
  s.nh = static_cast<uint32_t>(t.h_mrad.size());
  s.nv = static_cast<uint32_t>(t.v_mrad.size());
  // The mean step, so that rounding in the file does not accumulate over the grid.
  s.dh_rad = (t.h_mrad.back() - t.h_mrad.front()) / (s.nh - 1) * 1e-3;
  s.dv_rad = (t.v_mrad.back() - t.v_mrad.front()) / (s.nv - 1) * 1e-3;
  s.h0_rad = t.h_mrad[0] * 1e-3 - 0.5 * s.dh_rad;
  s.v0_rad = t.v_mrad[0] * 1e-3 - 0.5 * s.dv_rad;
  // Powers relative to the peak first: values near the limits of double then neither
  // overflow the sum nor underflow.
  const double peak = *std::max_element(t.value.begin(), t.value.end());
  std::vector<double> rel(t.value.size());
  double total = 0;
  for (size_t c = 0; c < rel.size(); ++c) {
    rel[c] = t.value[c] / peak;
    total += rel[c];
  }
  std::vector<double> q(t.value.size());
  double z = 0;
  for (size_t c = 0; c < q.size(); ++c) {
    q[c] = rel[c] > 0 ? std::pow(rel[c] / total, tail_exponent) : 0.0;
    z += q[c];
  }
  s.cdf.resize(q.size());
  s.weight.resize(q.size());
  double run = 0;
  for (size_t c = 0; c < q.size(); ++c) {
    run += q[c] / z;
    s.cdf[c] = static_cast<float>(run);
    s.weight[c] = q[c] > 0 ? static_cast<float>((rel[c] / total) / (q[c] / z)) : 0.0f;
  }
  // The last sampled cell closes the CDF exactly, so u < 1 always finds a cell.
  for (size_t c = q.size(); c-- > 0;) {
    if (q[c] > 0) {
      for (size_t d = c; d < q.size(); ++d)
        s.cdf[d] = 1.0f;
      break;
    }
  }
  return s;
}

SampledPowerNoise SampledPowerStatistics(const KernelSampling& s, uint32_t sub_rays) {
  const size_t cells = s.cdf.size();
  // One sub-ray is the central ray at weight 1 (FootprintSubRay): nothing is sampled.
  if (cells == 0 || sub_rays <= 1) return {};
  const double n = sub_rays;
  double mean = 0, k2 = 0, k4 = 0;
  size_t c = 0;      // the first cell that reaches into the stratum
  double below = 0;  // cdf of the cells before c
  for (uint32_t k = 0; k < sub_rays; ++k) {
    const double lo = k / n, hi = (k + 1) / n;
    while (c < cells && s.cdf[c] <= lo)
      below = s.cdf[c++];
    // The stratum's value x = w / n over u uniform in it: each cell by its share of it.
    std::vector<std::pair<double, double>> values;  // (x, probability)
    double from = below, m1 = 0;
    for (size_t d = c; d < cells && from < hi; ++d) {
      const double to = std::min<double>(s.cdf[d], hi);
      const double share = (to - std::max(from, lo)) * n;
      if (share > 0) {
        values.emplace_back(s.weight[d] / n, share);
        m1 += share * s.weight[d] / n;
      }
      from = s.cdf[d];
    }
    double mu2 = 0, mu4 = 0;
    for (const auto& [x, q] : values) {
      const double d2 = (x - m1) * (x - m1);
      mu2 += q * d2;
      mu4 += q * d2 * d2;
    }
    mean += m1;
    k2 += mu2;
    k4 += mu4 - 3 * mu2 * mu2;
  }
  // Below 1e-6 the spread is the float weights' rounding (tail exponent 1), not sampling.
  if (!(mean > 0) || !(k2 > 0) || std::sqrt(k2) / mean < 1e-6) return {};
  return {std::sqrt(k2) / mean, k4 / (k2 * k2)};
}

}  // namespace lt
