// LabFolder::Validate(): what every fit relies on, for lab folders read from disk (a second
// line of defence behind the reader's file:line checks) and built in code (labgen). Values are
// named by file and row: "range_intensity.csv[3].signal".
#include <cmath>
#include <filesystem>
#include <set>

#include "lidartwin/base/config_check.h"
#include "lidartwin/calib/lab_folder.h"

namespace lt::calib {

namespace {

bool Finite(double v) {
  return std::isfinite(v);
}

// A relative path inside the folder, without '..' parts, named once.
void CheckFile(ConfigCheck& c, const std::string& file, std::set<std::string>& seen) {
  const std::filesystem::path normal = std::filesystem::path(file).lexically_normal();
  bool climbs = false;
  for (const auto& part : normal)
    climbs = climbs || part == "..";
  if (file.empty() || normal.is_absolute() || climbs || !normal.has_filename()) {
    c.Fail("file", "'" + file + "' must be a file path inside the lab folder");
  }
  if (!seen.insert(normal.string()).second) c.Fail(file, "is named twice");
}

}  // namespace

Status LabFolder::Validate() const {
  ConfigCheck c;
  if (!(wavelength_nm >= 200 && wavelength_nm <= 20000)) {
    c.Fail("wavelength_nm", "must be in 200..20000 nm, got " + NumberText(wavelength_nm));
  }
  std::set<std::string> files;
  for (const auto& k : beam_kernels) {
    CheckFile(c, k.file, files);
    ConfigCheck b = c.Sub(k.file);
    if (k.nh() < 3 || k.nv() < 3 || k.nh() > 512 || k.nv() > 512) {
      b.Fail("h_angle", "images must be 3..512 pixels on each side");
    }
    if (k.exposure_us.empty() || k.exposure_us.size() > 16) b.Fail("exposure_us", "1..16 images");
    for (size_t i = 0; i < k.exposure_us.size(); ++i) {
      if (!(k.exposure_us[i] > 0 && k.exposure_us[i] < 1e9))
        b.Fail("exposure_us", "must be positive");
      for (size_t j = 0; j < i; ++j)
        if (k.exposure_us[i] == k.exposure_us[j]) b.Fail("exposure_us", "exposures must differ");
    }
    if (k.counts.size() != k.exposure_us.size() * k.nh() * k.nv()) {
      b.Fail("counts", "must hold exposures x v x h values");
    }
    if (!(k.dark_counts >= 0)) b.Fail("dark_counts", "must be >= 0");
    if (!(k.saturation_counts > k.dark_counts))
      b.Fail("saturation_counts", "must exceed dark_counts");
    if (!(k.read_noise_counts > 0 && k.read_noise_counts < 1e9))
      b.Fail("read_noise_counts", "must be in (0, 1e9)");
    if (k.model != "gaussian" && k.model != "super_gaussian")
      b.Fail("fit.model", "gaussian or super_gaussian");
    if (k.spots < 1 || k.spots > 4 || (k.model == "super_gaussian" && k.spots != 1)) {
      b.Fail("fit.spots", "1..4 Gaussian spots, or one super-Gaussian");
    }
  }
  for (const auto& s : collector_slices) {
    CheckFile(c, s.file, files);
    ConfigCheck b = c.Sub(s.file);
    if (s.angle_mrad.size() != s.sensitivity.size() || s.angle_mrad.size() < 3) {
      b.Fail("angle", "needs at least 3 angles, one sensitivity each");
    }
    if (s.model != "gaussian" && s.model != "super_gaussian")
      b.Fail("fit.model", "gaussian or super_gaussian");
  }
  for (const auto& t : threshold_sweeps) {
    CheckFile(c, t.file, files);
    ConfigCheck b = c.Sub(t.file);
    if (!(t.target_reflectance > 0 && t.target_reflectance <= 1)) {
      b.Fail("conditions.target_reflectance", "must be in (0, 1]");
    }
    if (!(t.incidence_deg >= 0 && t.incidence_deg < 90))
      b.Fail("conditions.incidence_deg", "must be in [0, 90)");
    const size_t n = t.trials.size();
    if (t.range_m.size() != n || t.attenuation_db.size() != n || t.detections.size() != n) {
      b.Fail("trials", "every row needs a range, an attenuation, trials and detections");
      continue;
    }
    for (size_t r = 0; r < n; ++r) {
      ConfigCheck row = c.Sub(t.file, r);
      if (!(t.range_m[r] > 0)) row.Fail("range", "must be positive");
      if (!(t.attenuation_db[r] >= 0 && t.attenuation_db[r] < 200))
        row.Fail("attenuation", "must be in [0, 200) dB");
      if (t.trials[r] == 0 || t.detections[r] > t.trials[r])
        row.Fail("detections", "must be in [0, trials], trials >= 1");
    }
  }
  std::set<std::string> materials;
  for (const auto& rc : reflectance_curves) {
    CheckFile(c, rc.file, files);
    ConfigCheck b = c.Sub(rc.file);
    if (rc.material.empty() || !materials.insert(rc.material).second) {
      b.Fail("conditions.material", "must be a name of its own ('" + rc.material + "')");
    }
    if (!(rc.range_m > 0)) b.Fail("conditions.distance_m", "must be positive");
    if (rc.model != "auto" && !ParseAngularModel(rc.model).ok()) {
      b.Fail("fit.model", "lambert, lambert_specular, retroreflective or auto");
    }
    for (size_t r = 0; r < rc.samples.size(); ++r) {
      const auto& s = rc.samples[r];
      ConfigCheck row = c.Sub(rc.file, r);
      if (!(s.incidence_deg >= 0 && s.incidence_deg < 90))
        row.Fail("incidence", "must be in [0, 90) deg");
      if (!(Finite(s.intensity) && s.intensity >= 0))
        row.Fail("intensity", "must be finite and >= 0");
      if (!(Finite(s.sigma) && s.sigma >= 0)) row.Fail("sigma", "must be finite and >= 0");
    }
  }
  for (const auto& rc : range_intensity_curves) {
    CheckFile(c, rc.file, files);
    // One model of the overlap for the link: every curve declares the same.
    if (rc.overlap != range_intensity_curves[0].overlap) {
      c.Sub(rc.file).Fail("fit", "overlap must be the same for every range_intensity measurement");
    }
    // One target per file: the manifest records its reflectance and incidence once.
    if (rc.samples.empty()) c.Sub(rc.file).Fail("rows", "the curve has no rows");
    for (const auto& s : rc.samples) {
      if (s.reflectance != rc.samples[0].reflectance ||
          s.incidence_deg != rc.samples[0].incidence_deg) {
        c.Sub(rc.file).Fail("conditions",
                            "every row must have the same target reflectance and incidence");
        break;
      }
      if ((s.spread > 0) != (s.pulses >= 2) && s.spread != 0) {
        c.Sub(rc.file).Fail("pulses", "a spread needs its pulse count (>= 2)");
        break;
      }
    }
    for (size_t r = 0; r < rc.samples.size(); ++r) {
      const auto& s = rc.samples[r];
      ConfigCheck row = c.Sub(rc.file, r);
      if (!(s.range_m > 0 && Finite(s.range_m))) row.Fail("range", "must be positive");
      if (!(s.signal > 0 && Finite(s.signal))) row.Fail("signal", "must be positive");
      if (!(s.reflectance > 0 && s.reflectance <= 1)) row.Fail("reflectance", "must be in (0, 1]");
      if (!(s.incidence_deg >= 0 && s.incidence_deg < 90))
        row.Fail("incidence", "must be in [0, 90) deg");
      if (!(Finite(s.sigma) && s.sigma >= 0)) row.Fail("sigma", "must be finite and >= 0");
      if (!(Finite(s.spread) && s.spread >= 0)) row.Fail("spread", "must be finite and >= 0");
    }
  }
  for (const auto& cc : capability_curves) {
    CheckFile(c, cc.file, files);
    for (size_t r = 0; r < cc.samples.size(); ++r) {
      const auto& s = cc.samples[r];
      ConfigCheck row = c.Sub(cc.file, r);
      if (!(s.reflectance > 0 && s.reflectance <= 1)) row.Fail("reflectance", "must be in (0, 1]");
      if (!(s.max_range_m > 0 && Finite(s.max_range_m))) row.Fail("max_range", "must be positive");
      if (!(Finite(s.sigma_m) && s.sigma_m >= 0)) row.Fail("sigma", "must be finite and >= 0");
    }
  }
  for (const auto& w : waveform_sets) {
    CheckFile(c, w.file, files);
    ConfigCheck m = c.Sub(w.file);
    if (!(w.range_m > 0 && Finite(w.range_m))) m.Fail("range_m", "must be positive");
    if (!(w.reflectance > 0 && w.reflectance <= 1)) m.Fail("reflectance", "must be in (0, 1]");
    if (!(w.dt_ns > 0 && Finite(w.dt_ns))) m.Fail("time_ns", "must rise evenly");
    if (w.volts.size() != size_t{w.records} * w.samples || w.samples < 2)
      m.Fail("volts", "must hold records x samples values");
  }
  return c.ToStatus("lab folder " + (dir.empty() ? std::string("(built in code)") : dir.string()));
}

}  // namespace lt::calib
