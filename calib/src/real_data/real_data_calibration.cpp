// The real-data folder: which files are read, and the two parts run over them
// (real_data_calibration.h).
#include "lidartwin/calib/real_data_calibration.h"
#include "lidartwin/base/config_check.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace lt::calib {

namespace {

size_t CommonPrefix(const std::string& a, const std::string& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n])
    ++n;
  return n;
}

}  // namespace

Status RealDataOptions::Validate() const {
  ConfigCheck c;
  if (wavelengths_nm.empty()) c.Fail("wavelengths_nm", "at least one wavelength is needed");
  for (double wl : wavelengths_nm)
    if (!std::isfinite(wl) || wl <= 0)
      c.Fail("wavelengths_nm", fmt::format("{:g} is not a positive wavelength", wl));
  for (uint32_t gap : sensitivity_gaps)
    if (gap < 1) c.Fail("sensitivity_gaps", "every gap must be >= 1 column");
  if (!c.ok()) return c.ToStatus("options");
  return samples.Validate();
}

Expected<std::vector<std::pair<std::filesystem::path, std::filesystem::path>>> PairOusterCaptures(
    const std::filesystem::path& folder) {
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec))
    return Error{folder.string() + ": not a directory (expected the Ouster captures)"};
  std::vector<std::filesystem::path> pcaps, jsons;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    if (!entry.is_regular_file()) continue;
    const auto ext = entry.path().extension().string();
    if (ext == ".pcap") pcaps.push_back(entry.path());
    if (ext == ".json") jsons.push_back(entry.path());
  }
  if (ec) return Error{folder.string() + ": cannot list: " + ec.message()};
  if (pcaps.empty()) return Error{folder.string() + ": no .pcap captures"};
  std::sort(pcaps.begin(), pcaps.end());
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> out;
  for (const auto& pcap : pcaps) {
    const std::string stem = pcap.stem().string();
    size_t best = 0;
    std::vector<std::filesystem::path> tied;
    for (const auto& json : jsons) {
      const size_t n = CommonPrefix(stem, json.stem().string());
      if (n > best) {
        best = n;
        tied = {json};
      } else if (n == best && n > 0) {
        tied.push_back(json);
      }
    }
    if (tied.empty()) return Error{pcap.string() + ": no .json metadata shares its name's start"};
    if (tied.size() > 1) {
      return Error{pcap.string() + ": metadata is ambiguous: " + tied[0].filename().string() +
                   " and " + tied[1].filename().string() + " match its name equally"};
    }
    out.emplace_back(pcap, tied.front());
  }
  return out;
}

Expected<RealDataCalibration> CalibrateRealData(const std::filesystem::path& dir,
                                                const RealDataOptions& options) {
  if (auto s = options.Validate(); !s.ok()) return s.error();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return Error{dir.string() + ": not a directory (expected the real-data folder)"};
  RealDataCalibration out;
  auto spectralon = CalibrateSpectralon(dir / "spectralon-grit-lab", options.wavelengths_nm);
  if (!spectralon.ok()) return spectralon.error();
  out.spectralon = std::move(*spectralon);
  auto pairs = PairOusterCaptures(dir / "ouster-sdk");
  if (!pairs.ok()) return pairs.error();
  for (const auto& [pcap, json] : *pairs) {
    auto unit = CalibrateOusterCapture(pcap, json, options);
    if (!unit.ok()) return unit.error();
    out.ouster.push_back(std::move(*unit));
  }
  return out;
}

}  // namespace lt::calib
