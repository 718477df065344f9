// WriteLabFolder: the layout ReadLabFolder reads, into a temporary folder renamed into place.
#include <yaml-cpp/yaml.h>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "lab/lab_table.h"
#include "lidartwin/base/atomic_file.h"
#include "lidartwin/base/interrupt_cleanup.h"
#include "lidartwin/calib/lab_folder.h"
#include "lidartwin/datasets/hdf5_arrays.h"

namespace lt::calib {

namespace {

namespace fs = std::filesystem;

// The folder being written, created registered for removal on an interrupt
// (CreateRegisteredDirectory); removed unless kept (renamed into place).
struct TempDir {
  fs::path path;
  bool keep = false;
  explicit TempDir(fs::path p) : path(std::move(p)) {}
  ~TempDir() {
    std::error_code ec;
    if (!keep) fs::remove_all(path, ec);
    UnregisterTemporaryPath(path);
  }
};

void Conditions(YAML::Emitter& e, std::initializer_list<std::pair<const char*, double>> numbers,
                const std::string& material = "") {
  e << YAML::Key << "conditions" << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : numbers)
    e << YAML::Key << k << YAML::Value << v;
  if (!material.empty()) e << YAML::Key << "material" << YAML::Value << material;
  e << YAML::EndMap;
}

}  // namespace

Status WriteLabFolder(const LabFolder& lab, const std::filesystem::path& dir_given) {
  if (auto s = lab.Validate(); !s.ok()) return s;
  std::error_code ec;
  // "lab/" names the folder "lab".
  fs::path dir = dir_given.lexically_normal();
  if (!dir.empty() && !dir.has_filename()) dir = dir.parent_path();
  if (dir.empty() || dir == ".")
    return Error{"'" + dir_given.string() + "': the lab folder needs a name"};
  if (fs::exists(dir, ec))
    return Error{dir.string() + ": already exists (a lab folder is written new)"};
  const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec)) return Error{parent.string() + ": no such directory"};
  // ".NAME.tmp-PID" folders of killed runs, so that kills do not pile them up.
  RemoveLeftoversOfDeadProcesses(parent, "." + dir.filename().string() + ".tmp-");
  TempDir tmp(parent / ("." + dir.filename().string() + ".tmp-" + std::to_string(::getpid())));
  if (Status s = CreateRegisteredDirectory(tmp.path); !s.ok()) return s;
  YAML::Emitter e;
  e.SetDoublePrecision(17);
  e << YAML::BeginMap;
  e << YAML::Key << "name" << YAML::Value << lab.name;
  e << YAML::Key << "sensor_serial" << YAML::Value << lab.sensor_serial;
  e << YAML::Key << "wavelength_nm" << YAML::Value << lab.wavelength_nm;
  e << YAML::Key << "measurements" << YAML::Value << YAML::BeginSeq;
  auto write_csv = [&](const std::string& file, const std::vector<std::string>& header,
                       const std::vector<std::vector<double>>& cols) -> Status {
    return WriteTextFileAtomically(tmp.path / file, LabTableText(header, cols));
  };
  for (const auto& k : lab.beam_kernels) {
    Hdf5Array h{{k.nh()}, k.h_mrad}, v{{k.nv()}, k.v_mrad};
    Hdf5Array c{{k.exposure_us.size(), k.nv(), k.nh()}, {k.counts.begin(), k.counts.end()}};
    if (auto s =
            WriteHdf5Arrays(tmp.path / k.file, {{"h_angle", h}, {"v_angle", v}, {"counts", c}});
        !s.ok())
      return s;
    e << YAML::BeginMap << YAML::Key << "kind" << YAML::Value << "beam_kernel";
    e << YAML::Key << "file" << YAML::Value << k.file;
    e << YAML::Key << "units" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "angle"
      << YAML::Value << "mrad" << YAML::EndMap;
    e << YAML::Key << "exposure_us" << YAML::Value << YAML::Flow << k.exposure_us;
    e << YAML::Key << "dark_counts" << YAML::Value << k.dark_counts;
    e << YAML::Key << "saturation_counts" << YAML::Value << k.saturation_counts;
    e << YAML::Key << "read_noise_counts" << YAML::Value << k.read_noise_counts;
    e << YAML::Key << "fit" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "model"
      << YAML::Value << k.model << YAML::Key << "spots" << YAML::Value << k.spots << YAML::Key
      << "layout" << YAML::Value << (k.separable ? "separable" : "elliptical") << YAML::EndMap;
    e << YAML::EndMap;
  }
  for (const auto& w : lab.waveform_sets) {
    std::vector<double> t(w.samples);
    for (uint32_t k = 0; k < w.samples; ++k)
      t[k] = k * w.dt_ns;
    Hdf5Array time{{w.samples}, t}, volts{{w.records, w.samples}, {w.volts.begin(), w.volts.end()}};
    if (auto s = WriteHdf5Arrays(tmp.path / w.file, {{"time_ns", time}, {"volts", volts}}); !s.ok())
      return s;
    e << YAML::BeginMap << YAML::Key << "kind" << YAML::Value << "waveforms";
    e << YAML::Key << "file" << YAML::Value << w.file;
    e << YAML::Key << "conditions" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
      << "range_m" << YAML::Value << w.range_m << YAML::Key << "reflectance" << YAML::Value
      << w.reflectance << YAML::EndMap;
    e << YAML::EndMap;
  }
  for (const auto& c : lab.collector_slices) {
    if (auto s = write_csv(c.file, {"angle_mrad", "sensitivity"}, {c.angle_mrad, c.sensitivity});
        !s.ok())
      return s;
    e << YAML::BeginMap << YAML::Key << "kind" << YAML::Value << "collector_sensitivity";
    e << YAML::Key << "file" << YAML::Value << c.file;
    e << YAML::Key << "axis" << YAML::Value << (c.horizontal ? "horizontal" : "vertical");
    e << YAML::Key << "fit" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "model"
      << YAML::Value << c.model << YAML::EndMap;
    e << YAML::EndMap;
  }
  for (const auto& t : lab.threshold_sweeps) {
    std::vector<double> trials(t.trials.begin(), t.trials.end());
    std::vector<double> detections(t.detections.begin(), t.detections.end());
    if (auto s = write_csv(t.file, {"range_m", "attenuation_db", "trials", "detections"},
                           {t.range_m, t.attenuation_db, trials, detections});
        !s.ok())
      return s;
    e << YAML::BeginMap << YAML::Key << "kind" << YAML::Value << "detection_threshold";
    e << YAML::Key << "file" << YAML::Value << t.file;
    Conditions(e,
               {{"target_reflectance", t.target_reflectance}, {"incidence_deg", t.incidence_deg}});
    e << YAML::EndMap;
  }
  for (const auto& r : lab.reflectance_curves) {
    std::vector<double> th, in, sg;
    for (const auto& s : r.samples) {
      th.push_back(s.incidence_deg);
      in.push_back(s.intensity);
      sg.push_back(s.sigma);
    }
    if (auto s = write_csv(r.file, {"incidence_deg", "intensity_percent", "sigma_percent"},
                           {th, in, sg});
        !s.ok())
      return s;
    e << YAML::BeginMap << YAML::Key << "kind" << YAML::Value << "reflectance";
    e << YAML::Key << "file" << YAML::Value << r.file;
    Conditions(e, {{"distance_m", r.range_m}}, r.material);
    e << YAML::Key << "fit" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "model"
      << YAML::Value << r.model << YAML::EndMap;
    e << YAML::EndMap;
  }
  for (const auto& r : lab.range_intensity_curves) {
    // In the unit the curve was measured in (ReadSignalUnit): its samples hold nW, or counts.
    const double per_unit = NanowattsPerSignalUnit(r, lab.wavelength_nm);
    const std::string unit = r.signal_unit == SignalUnit::kPhotons  ? "photons"
                             : r.signal_unit == SignalUnit::kCounts ? "counts"
                                                                    : "nw";
    std::vector<double> range, signal, sigma, spread, pulses;
    for (const auto& s : r.samples) {
      range.push_back(s.range_m);
      signal.push_back(s.signal / per_unit);
      sigma.push_back(s.sigma / per_unit);
      spread.push_back(s.spread / per_unit);
      pulses.push_back(s.pulses);
    }
    if (auto s = write_csv(
            r.file, {"range_m", "signal_" + unit, "sigma_" + unit, "spread_" + unit, "pulses"},
            {range, signal, sigma, spread, pulses});
        !s.ok())
      return s;
    const double rho = r.samples.empty() ? 0 : r.samples[0].reflectance;
    const double th = r.samples.empty() ? 0 : r.samples[0].incidence_deg;
    e << YAML::BeginMap << YAML::Key << "kind" << YAML::Value << "range_intensity";
    e << YAML::Key << "file" << YAML::Value << r.file;
    Conditions(e, {{"target_reflectance", rho}, {"incidence_deg", th}});
    if (r.overlap == OverlapFit::kNone) {
      e << YAML::Key << "fit" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
        << "overlap" << YAML::Value << "none" << YAML::EndMap;
    }
    if (r.signal_unit != SignalUnit::kPower) {
      e << YAML::Key << "signal" << YAML::Value << YAML::Flow << YAML::BeginMap;
      e << YAML::Key << "unit" << YAML::Value << unit;
      if (r.signal_unit == SignalUnit::kPhotons)
        e << YAML::Key << "window_ns" << YAML::Value << r.window_ns;
      else if (r.nw_per_count > 0)
        e << YAML::Key << "nw_per_count" << YAML::Value << r.nw_per_count;
      else
        e << YAML::Key << "nw_per_count" << YAML::Value << "fitted";
      e << YAML::EndMap;
    }
    e << YAML::EndMap;
  }
  for (const auto& c : lab.capability_curves) {
    std::vector<double> rho, range, sigma;
    for (const auto& s : c.samples) {
      rho.push_back(s.reflectance);
      range.push_back(s.max_range_m);
      sigma.push_back(s.sigma_m);
    }
    if (auto s = write_csv(c.file, {"reflectance_fraction", "max_range_m", "sigma_m"},
                           {rho, range, sigma});
        !s.ok())
      return s;
    e << YAML::BeginMap << YAML::Key << "kind" << YAML::Value << "capability";
    e << YAML::Key << "file" << YAML::Value << c.file << YAML::EndMap;
  }
  e << YAML::EndSeq << YAML::EndMap;
  if (auto s = WriteTextFileAtomically(tmp.path / "manifest.yaml", std::string(e.c_str()) + "\n");
      !s.ok())
    return s;
  fs::rename(tmp.path, dir, ec);
  if (ec)
    return Error{dir.string() + ": cannot move the lab folder into place (" + ec.message() + ")"};
  tmp.keep = true;
  return {};
}

}  // namespace lt::calib
