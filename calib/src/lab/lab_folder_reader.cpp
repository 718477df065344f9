// ReadLabFolder: manifest.yaml and the files it names (docs/calibration.md, "The lab folder").

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "lab/lab_manifest_keys.h"
#include "lab/lab_table.h"
#include "lidartwin/base/config_reader.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/calib/lab_folder.h"
#include "lidartwin/datasets/hdf5_arrays.h"
#include "lidartwin/datasets/sha256.h"
#include "lidartwin/physics/photon_counting.h"

namespace lt::calib {

namespace {

namespace fs = std::filesystem;

// SHA-256 of each file's name, size and bytes in turn, hex.
class Checksum {
 public:
  void Add(const std::string& name, const std::string& bytes) {
    const std::string head = name + "\n" + std::to_string(bytes.size()) + "\n";
    sha_.Add(head.data(), head.size());
    sha_.Add(bytes.data(), bytes.size());
  }
  std::string Hex() { return sha_.Hex(); }

 private:
  Sha256 sha_;
};

// The manifest's `units:` for one measurement: each key a quantity of its kind's columns, each
// value a unit that converts to the quantity's (errors on the manifest key).
std::map<std::string, std::string> Units(ConfigMap& m, const std::vector<QuantitySpec>& spec) {
  std::map<std::string, std::string> units;
  if (!m.Has("units")) return units;
  ConfigMap u = m.Map("units");
  for (const auto& k : u.Keys()) {
    const std::string unit = u.String(k);
    const QuantitySpec* q = nullptr;
    for (const auto& s : spec)
      if (k == s.quantity) q = &s;
    if (!q) {
      std::string names;
      for (const auto& s : spec)
        if (std::string(s.canonical_unit).size())
          names += (names.empty() ? "" : ", ") + std::string(s.quantity);
      u.Fail(k, "is not a quantity of this measurement (expected " + names + ")");
      continue;
    }
    if (auto f = UnitFactor(unit, q->canonical_unit); !f.ok()) u.Fail(k, f.message());
    units[k] = unit;
  }
  return units;
}

// A required condition (or the fallback when `fallback` is finite), range-checked.
double Condition(ConfigMap& c, const std::string& key, double lo, double hi,
                 double fallback = std::nan("")) {
  const double v = std::isfinite(fallback) ? c.Number(key, fallback) : c.Number(key);
  if (!(v >= lo && v <= hi)) {
    c.Fail(key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                    std::to_string(v));
  }
  return v;
}

// Ranges a lab table may hold [m], as its conditions' distance_m: no bench is 100 km long, and
// 1e308 m was read as a measurement (issue 36).
constexpr double kMostLabRangeM = 1e5;

Status Reject(const fs::path& file, const LabTable& t, size_t row, const std::string& problem) {
  return Error{file.string() + ":" + std::to_string(t.line[row]) + ": " + problem};
}

// A sigma far below the others' relative to its value (a typing slip, 1e-3 for 80.9) would give
// one row the weight of all the rest: the fit runs through it with a tiny uncertainty and its
// chi^2 passes. Refused when the row's sigma / |value| is under a thousandth of the table's
// median (issue 40's hostile pass: peak power 15.98 +- 2e-7 W written for a true 16).
Status CheckSigmaScale(const fs::path& file, const LabTable& t, const char* value_column) {
  if (!t.Has("sigma") || t.rows() < 3) return {};
  std::vector<double> rel;
  for (size_t r = 0; r < t.rows(); ++r)
    rel.push_back(t["sigma"][r] / std::max(std::fabs(t[value_column][r]), 1e-300));
  std::vector<double> sorted = rel;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  const double median = sorted[sorted.size() / 2];
  for (size_t r = 0; r < t.rows(); ++r) {
    if (rel[r] < 1e-3 * median) {
      return Reject(file, t, r,
                    "sigma " + NumberText(t["sigma"][r]) +
                        " is under a thousandth of the other "
                        "rows' (relative to the " +
                        value_column +
                        "): this row would outweigh all "
                        "the others; give its real uncertainty");
    }
  }
  return {};
}

// A sigma column gives every row's standard deviation: a positive number. 0 would weigh the
// row infinitely, and the fits read a table with any 0 as one without sigmas, dropping the
// others silently (issue 36); a table without uncertainties leaves the column out.
Status CheckSigma(const fs::path& file, const LabTable& t, size_t row, double sigma) {
  if (!t.Has("sigma") || (sigma > 0 && std::isfinite(sigma))) return {};
  return Reject(file, t, row,
                "sigma must be positive, got " + NumberText(sigma) +
                    " (leave the sigma column out where the uncertainty is not known)");
}

Status ReadReflectance(ConfigMap& m, ConfigMap& cond, const fs::path& file,
                       const std::string& bytes, LabFolder& lab) {
  ReflectanceCurve c;
  c.range_m = Condition(cond, "distance_m", 0.01, 1e5);
  c.material = cond.String("material");
  if (c.material.empty() || c.material.find_first_of(" \t|/") != std::string::npos) {
    cond.Fail("material", "must be a name without spaces, '|' or '/'");
  }
  for (const auto& other : lab.reflectance_curves)
    if (other.material == c.material)
      cond.Fail("material", "'" + c.material + "' is measured twice");
  if (m.Has("fit")) {
    ConfigMap f = m.Map("fit");
    c.model = f.String("model", "auto");
    if (c.model != "auto" && !ParseAngularModel(c.model).ok()) {
      f.Fail("model", "unknown angular model '" + c.model +
                          "' (expected lambert, lambert_specular, retroreflective or auto)");
    }
  }
  if (auto s = m.FirstError(); !s.ok()) return s;
  const auto units = Units(m, kReflectanceColumns);
  if (auto e = m.FirstError(); !e.ok()) return e;
  auto t = ParseLabTable(bytes, file, kReflectanceColumns, units);
  if (!t.ok()) return t.error();
  for (size_t r = 0; r < t->rows(); ++r) {
    const double th = (*t)["incidence"][r];
    if (!(th >= 0 && th < 90)) return Reject(file, *t, r, "incidence must be in [0, 90) deg");
    const double sigma = t->Has("sigma") ? (*t)["sigma"][r] : 0;
    if (Status bad = CheckSigma(file, *t, r, sigma); !bad.ok()) return bad;
    if (!((*t)["intensity"][r] >= 0 && (*t)["intensity"][r] <= 1e6))
      return Reject(file, *t, r, "intensity must be in [0, 1e6] percent");
    c.samples.push_back({th, (*t)["intensity"][r], sigma});
  }
  if (Status s = CheckSigmaScale(file, *t, "intensity"); !s.ok()) return s;
  c.file = m.String("file");
  lab.reflectance_curves.push_back(std::move(c));
  return {};
}

// The manifest's `signal:` map of a range_intensity measurement: {unit: power} (the default),
// {unit: photons, window_ns: T} or {unit: counts, nw_per_count: X | fitted}.
void ReadSignalUnit(ConfigMap& m, RangeIntensityCurve& c) {
  if (!m.Has("signal")) return;
  ConfigMap s = m.Map("signal");
  const std::string unit = s.String("unit", "power");
  if (unit == "power") return;
  if (unit == "photons") {
    c.signal_unit = SignalUnit::kPhotons;
    c.window_ns = s.Number("window_ns");
    if (!(c.window_ns > 0 && c.window_ns <= 1e6)) {
      s.Fail("window_ns",
             "must be the integration window the photons were counted over, in (0, 1e6] ns");
      c.window_ns = 1;
    }
  } else if (unit == "counts") {
    c.signal_unit = SignalUnit::kCounts;
    if (s.Has("nw_per_count") && s.String("nw_per_count", "") == "fitted") return;
    c.nw_per_count = s.Number("nw_per_count");
    if (!(c.nw_per_count >= 1e-9 && c.nw_per_count <= 1e9)) {
      s.Fail("nw_per_count",
             "must be the received power of one count in [1e-9, 1e9] nW, or fitted");
      c.nw_per_count = 1;
    }
  } else {
    s.Fail("unit", "must be power, photons or counts, got '" + unit + "'");
  }
}

}  // namespace

double NanowattsPerSignalUnit(const RangeIntensityCurve& c, double wavelength_nm) {
  switch (c.signal_unit) {
    case SignalUnit::kPower:
      return 1;
    case SignalUnit::kPhotons:  // one photon's energy over the window, in nW
      return physics::PhotonEnergy(wavelength_nm * 1e-9) / (c.window_ns * 1e-9) * 1e9;
    case SignalUnit::kCounts:
      return c.nw_per_count > 0 ? c.nw_per_count : 1;
  }
  return 1;
}

namespace {

Status ReadRangeIntensity(ConfigMap& m, ConfigMap& cond, const fs::path& file,
                          const std::string& bytes, LabFolder& lab) {
  const double rho = Condition(cond, "target_reflectance", 1e-4, 1);
  const double theta = Condition(cond, "incidence_deg", 0, 89.9, 0);
  RangeIntensityCurve c;
  if (m.Has("fit")) {
    ConfigMap f = m.Map("fit");
    const std::string overlap = f.String("overlap", "fitted");
    if (overlap == "none") {
      c.overlap = OverlapFit::kNone;
    } else if (overlap != "fitted") {
      f.Fail("overlap", "must be fitted or none, got '" + overlap + "'");
    }
  }
  for (const auto& other : lab.range_intensity_curves) {
    if (other.overlap != c.overlap) {
      m.Fail("fit", "overlap must be the same for every range_intensity measurement (" +
                        other.file + " says otherwise)");
    }
  }
  ReadSignalUnit(m, c);
  const double nw_per_unit = NanowattsPerSignalUnit(c, lab.wavelength_nm);
  for (const auto& other : lab.range_intensity_curves) {
    if ((other.signal_unit == SignalUnit::kCounts && other.nw_per_count == 0) !=
        (c.signal_unit == SignalUnit::kCounts && c.nw_per_count == 0)) {
      m.Fail("signal", "a fitted count conversion must be every range_intensity measurement's (" +
                           other.file + " says otherwise): one link constant is fitted in counts");
    }
  }
  if (auto s = m.FirstError(); !s.ok()) return s;
  // The signal, its sigma and spread in the sensor's unit when it is one: the header then
  // carries that unit (signal_photons, signal_counts), converted below.
  std::vector<QuantitySpec> spec = kRangeIntensityColumns;
  const char* sensor_unit = c.signal_unit == SignalUnit::kPhotons  ? "photons"
                            : c.signal_unit == SignalUnit::kCounts ? "counts"
                                                                   : nullptr;
  if (sensor_unit)
    for (QuantitySpec& q : spec)
      if (std::string(q.canonical_unit) == "nw") q.canonical_unit = sensor_unit;
  const auto units = Units(m, spec);
  if (auto e = m.FirstError(); !e.ok()) return e;
  auto t = ParseLabTable(bytes, file, spec, units);
  if (!t.ok()) return t.error();
  for (const char* q : {"signal", "sigma", "spread"})
    for (double& v : t->columns[q])
      v *= nw_per_unit;
  for (size_t r = 0; r < t->rows(); ++r) {
    const double range = (*t)["range"][r];
    const double sigma = t->Has("sigma") ? (*t)["sigma"][r] : 0;
    const double spread = t->Has("spread") ? (*t)["spread"][r] : 0;
    const double pulses = t->Has("pulses") ? (*t)["pulses"][r] : 0;
    if (!(range > 0 && range <= kMostLabRangeM))
      return Reject(file, *t, r, "range must be in (0, 1e5] m");
    if (Status bad = CheckSigma(file, *t, r, sigma); !bad.ok()) return bad;
    // 1e12 nW is a kilowatt received: no lab measures that (1e300 overflowed the fit).
    if (!((*t)["signal"][r] > 0 && (*t)["signal"][r] <= 1e12))
      return Reject(file, *t, r,
                    nw_per_unit == 1 && c.signal_unit == SignalUnit::kCounts
                        ? "signal must be in (0, 1e12] counts"
                        : "signal must be in (0, 1e12] nW (after its unit's conversion)");
    if (spread < 0) return Reject(file, *t, r, "spread must be >= 0");
    if (t->Has("spread") != t->Has("pulses")) {
      return Reject(file, *t, r, "spread and pulses go together (the jitter fit needs both)");
    }
    if (!(pulses >= 0 && pulses <= 4e9 && pulses == std::floor(pulses))) {
      return Reject(file, *t, r, "pulses must be a whole number >= 0");
    }
    c.samples.push_back(
        {range, rho, theta, (*t)["signal"][r], sigma, spread, static_cast<uint32_t>(pulses)});
  }
  if (Status s = CheckSigmaScale(file, *t, "signal"); !s.ok()) return s;
  c.file = m.String("file");
  lab.range_intensity_curves.push_back(std::move(c));
  return {};
}

Status ReadThreshold(ConfigMap& m, ConfigMap& cond, const fs::path& file, const std::string& bytes,
                     LabFolder& lab) {
  ThresholdSweep c;
  c.target_reflectance = Condition(cond, "target_reflectance", 1e-4, 1);
  c.incidence_deg = Condition(cond, "incidence_deg", 0, 89.9, 0);
  const double distance = cond.Has("distance_m") ? Condition(cond, "distance_m", 0.01, 1e5) : 0;
  if (auto s = m.FirstError(); !s.ok()) return s;
  const auto units = Units(m, kThresholdColumns);
  if (auto e = m.FirstError(); !e.ok()) return e;
  auto t = ParseLabTable(bytes, file, kThresholdColumns, units);
  if (!t.ok()) return t.error();
  if (!t->Has("range") && distance == 0 && t->rows() > 0) {
    return Error{file.string() + ": no range column and no conditions.distance_m"};
  }
  for (size_t r = 0; r < t->rows(); ++r) {
    const double range = t->Has("range") ? (*t)["range"][r] : distance;
    const double att = t->Has("attenuation") ? (*t)["attenuation"][r] : 0;
    const double n = (*t)["trials"][r], k = (*t)["detections"][r];
    if (!(range > 0 && range <= kMostLabRangeM))
      return Reject(file, *t, r, "range must be in (0, 1e5] m");
    if (!(att >= 0 && att < 200)) return Reject(file, *t, r, "attenuation must be in [0, 200) dB");
    if (!(n >= 1 && n <= 4e9 && n == std::floor(n))) {
      return Reject(file, *t, r, "trials must be a whole number >= 1");
    }
    if (!(k >= 0 && k <= n && k == std::floor(k))) {
      return Reject(file, *t, r, "detections must be a whole number in [0, trials]");
    }
    c.range_m.push_back(range);
    c.attenuation_db.push_back(att);
    c.trials.push_back(static_cast<uint32_t>(n));
    c.detections.push_back(static_cast<uint32_t>(k));
  }
  c.file = m.String("file");
  lab.threshold_sweeps.push_back(std::move(c));
  return {};
}

Status ReadCapability(ConfigMap& m, const fs::path& file, const std::string& bytes,
                      LabFolder& lab) {
  if (auto s = m.FirstError(); !s.ok()) return s;
  const auto units = Units(m, kCapabilityColumns);
  if (auto e = m.FirstError(); !e.ok()) return e;
  auto t = ParseLabTable(bytes, file, kCapabilityColumns, units);
  if (!t.ok()) return t.error();
  CapabilityCurve c;
  for (size_t r = 0; r < t->rows(); ++r) {
    const double rho = (*t)["reflectance"][r];
    const double sigma = t->Has("sigma") ? (*t)["sigma"][r] : 0;
    if (!(rho > 0 && rho <= 1)) return Reject(file, *t, r, "reflectance must be in (0, 1]");
    if (!((*t)["max_range"][r] > 0 && (*t)["max_range"][r] <= kMostLabRangeM))
      return Reject(file, *t, r, "max_range must be in (0, 1e5] m");
    if (Status bad = CheckSigma(file, *t, r, sigma); !bad.ok()) return bad;
    c.samples.push_back({rho, (*t)["max_range"][r], sigma});
  }
  c.file = m.String("file");
  lab.capability_curves.push_back(std::move(c));
  return {};
}

// Angles must rise by one step (to 1e-4 of it: HDF5 images store float32).
Status EvenlySpaced(const std::string& where, const std::vector<double>& a) {
  if (a.size() < 3) return Error{where + " has fewer than 3 angles"};
  const double step = (a.back() - a.front()) / static_cast<double>(a.size() - 1);
  if (!(step > 0)) return Error{where + " must rise"};
  for (size_t i = 1; i < a.size(); ++i) {
    if (std::abs(a[i] - a[i - 1] - step) > 1e-4 * step) {  // float32 files
      return Error{where + " is not evenly spaced at index " + std::to_string(i)};
    }
  }
  return {};
}

Status ReadCollector(ConfigMap& m, const fs::path& file, const std::string& bytes, LabFolder& lab) {
  CollectorSlice c;
  const std::string axis = m.String("axis");
  if (axis != "horizontal" && axis != "vertical") {
    m.Fail("axis", "must be horizontal or vertical, got '" + axis + "'");
  }
  c.horizontal = axis == "horizontal";
  if (m.Has("fit")) {
    ConfigMap f = m.Map("fit");
    c.model = f.String("model", "gaussian");
    if (c.model != "gaussian" && c.model != "super_gaussian") {
      f.Fail("model",
             "unknown slice model '" + c.model + "' (expected gaussian or super_gaussian)");
    }
  }
  if (auto s = m.FirstError(); !s.ok()) return s;
  const auto units = Units(m, kCollectorColumns);
  if (auto e = m.FirstError(); !e.ok()) return e;
  auto t = ParseLabTable(bytes, file, kCollectorColumns, units);
  if (!t.ok()) return t.error();
  c.angle_mrad = (*t)["angle"];
  c.sensitivity = (*t)["sensitivity"];
  if (auto s = EvenlySpaced(file.string() + ": angle column", c.angle_mrad); !s.ok()) return s;
  double peak = 0;
  for (double v : c.sensitivity)
    peak = std::max(peak, v);
  if (!(peak > 0)) return Error{file.string() + ": no sensitivity is above 0"};
  c.file = m.String("file");
  lab.collector_slices.push_back(std::move(c));
  return {};
}

Status ReadBeamKernel(ConfigMap& m, const fs::path& file, LabFolder& lab) {
  BeamKernelImages k;
  k.exposure_us = m.Numbers("exposure_us");
  k.dark_counts = m.Number("dark_counts", 0);
  k.saturation_counts = m.Number("saturation_counts");
  k.read_noise_counts = m.Number("read_noise_counts", 1);
  if (!(k.dark_counts >= 0)) m.Fail("dark_counts", "must be >= 0");
  if (!(k.saturation_counts > k.dark_counts && k.saturation_counts < 1e9)) {
    m.Fail("saturation_counts", "must exceed dark_counts (and be below 1e9)");
  }
  if (!(k.read_noise_counts > 0 && k.read_noise_counts < 1e9))
    m.Fail("read_noise_counts", "must be positive (and below 1e9)");
  if (k.exposure_us.empty() || k.exposure_us.size() > 16) {
    m.Fail("exposure_us", "must list 1..16 exposures, one per image");
  }
  for (size_t i = 0; i < k.exposure_us.size(); ++i) {
    if (!(k.exposure_us[i] > 0 && k.exposure_us[i] < 1e9)) {
      m.Fail("exposure_us", "exposures must be positive (and below 1e9 us)");
    }
    for (size_t j = 0; j < i; ++j)
      if (k.exposure_us[j] == k.exposure_us[i]) m.Fail("exposure_us", "exposures must differ");
  }
  if (m.Has("fit")) {
    ConfigMap f = m.Map("fit");
    k.model = f.String("model", "gaussian");
    if (k.model != "gaussian" && k.model != "super_gaussian") {
      f.Fail("model", "unknown beam model '" + k.model + "' (expected gaussian or super_gaussian)");
    }
    const double spots = f.Number("spots", 1);
    if (!(spots >= 1 && spots <= 4 && spots == std::floor(spots))) {
      f.Fail("spots", "must be a whole number in 1..4");
    } else {
      k.spots = static_cast<uint32_t>(spots);
    }
    if (k.model == "super_gaussian" && k.spots != 1) {
      f.Fail("spots", "a super-Gaussian beam has one spot");
    }
    const std::string layout = f.String("layout", "elliptical");
    if (layout != "elliptical" && layout != "separable") {
      f.Fail("layout", "must be elliptical or separable, got '" + layout + "'");
    }
    k.separable = layout == "separable";
  }
  const auto units = Units(m, {{"angle", "mrad", true}});
  const std::string angle_unit = units.count("angle") ? units.at("angle") : "mrad";
  auto factor = UnitFactor(angle_unit, "mrad");
  if (!factor.ok()) m.Fail("units", "angle: " + factor.message());
  if (auto s = m.FirstError(); !s.ok()) return s;
  auto arrays = ReadHdf5Arrays(file, {{"h_angle", 1}, {"v_angle", 1}, {"counts", 3}});
  if (!arrays.ok()) return arrays.error();
  for (double h : (*arrays)["h_angle"].values)
    k.h_mrad.push_back(h * *factor);
  for (double v : (*arrays)["v_angle"].values)
    k.v_mrad.push_back(v * *factor);
  if (k.h_mrad.size() > 512 || k.v_mrad.size() > 512) {
    return Error{file.string() + ": images of " + std::to_string(k.h_mrad.size()) + " x " +
                 std::to_string(k.v_mrad.size()) + " pixels; at most 512 x 512"};
  }
  if (auto s = EvenlySpaced(file.string() + ": h_angle", k.h_mrad); !s.ok()) return s;
  if (auto s = EvenlySpaced(file.string() + ": v_angle", k.v_mrad); !s.ok()) return s;
  const Hdf5Array& counts = (*arrays)["counts"];
  if (counts.dims[0] != k.exposure_us.size() || counts.dims[1] != k.nv() ||
      counts.dims[2] != k.nh()) {
    return Error{
        file.string() + ": dataset 'counts' is " + std::to_string(counts.dims[0]) + " x " +
        std::to_string(counts.dims[1]) + " x " + std::to_string(counts.dims[2]) +
        ", expected exposures x v_angle x h_angle = " + std::to_string(k.exposure_us.size()) +
        " x " + std::to_string(k.nv()) + " x " + std::to_string(k.nh())};
  }
  const size_t pixels = k.nh() * k.nv();
  const double floor = k.dark_counts + 3 * k.read_noise_counts;
  for (size_t e = 0; e < k.exposure_us.size(); ++e) {
    size_t lit = 0, saturated = 0;
    for (size_t i = 0; i < pixels; ++i) {
      const double c = counts.values[e * pixels + i];
      lit += c > floor;
      saturated += c >= k.saturation_counts;
    }
    const std::string which = file.string() + ": image " + std::to_string(e) + " (exposure " +
                              std::to_string(k.exposure_us[e]) + " us)";
    if (lit == 0) return Error{which + " is dark: no pixel above dark + 3 read-noise sigma"};
    if (saturated == pixels) return Error{which + " is saturated in every pixel"};
  }
  k.counts.assign(counts.values.begin(), counts.values.end());
  k.file = m.String("file");
  lab.beam_kernels.push_back(std::move(k));
  return {};
}

// Records of one target (kind `waveforms`): time_ns (N, evenly spaced) and volts (records x N)
// in an HDF5 file; the target's range and reflectance in `conditions`.
Status ReadWaveforms(ConfigMap& m, const fs::path& file, LabFolder& lab) {
  ConfigMap cond = m.Map("conditions");
  WaveformSet s;
  s.range_m = cond.Number("range_m");
  s.reflectance = cond.Number("reflectance");
  if (!(s.range_m > 0 && s.range_m < 1e5)) cond.Fail("range_m", "must be in (0, 1e5) m");
  if (!(s.reflectance > 0 && s.reflectance <= 1)) cond.Fail("reflectance", "must be in (0, 1]");
  if (auto e = m.FirstError(); !e.ok()) return e;
  // At most 8 Mi values (2,048 records of 4,096 samples): refused before they are read.
  auto arrays = ReadHdf5Arrays(file, {{"time_ns", 1}, {"volts", 2}}, size_t{1} << 23);
  if (!arrays.ok()) return arrays.error();
  const Hdf5Array& t = (*arrays)["time_ns"];
  const Hdf5Array& v = (*arrays)["volts"];
  if (t.values.size() < 64) {
    return Error{file.string() + ": time_ns has " + std::to_string(t.values.size()) +
                 " samples; a record has at least 64"};
  }
  if (t.values.front() != 0) {
    return Error{file.string() +
                 ": time_ns must start at 0 (the record's first pretrigger "
                 "sample), got " +
                 NumberText(t.values.front()) + " ns"};
  }
  if (auto e = EvenlySpaced(file.string() + ": time_ns", t.values); !e.ok()) return e;
  if (v.dims[1] != t.values.size()) {
    return Error{file.string() + ": dataset 'volts' has records of " + std::to_string(v.dims[1]) +
                 " samples, 'time_ns' " + std::to_string(t.values.size())};
  }
  s.samples = static_cast<uint32_t>(t.values.size());
  s.records = static_cast<uint32_t>(v.dims[0]);
  s.dt_ns = (t.values.back() - t.values.front()) / (s.samples - 1);
  s.volts.reserve(v.values.size());
  for (size_t i = 0; i < v.values.size(); ++i) {
    if (!(std::abs(v.values[i]) <= 1e6)) {
      return Error{file.string() + ": volts[" + std::to_string(i / s.samples) + "][" +
                   std::to_string(i % s.samples) + "] is " + NumberText(v.values[i]) +
                   " V, not a voltage (at most 1e6 V in size)"};
    }
    s.volts.push_back(static_cast<float>(v.values[i]));
  }
  s.file = m.String("file");
  lab.waveform_sets.push_back(std::move(s));
  return {};
}

}  // namespace

Expected<LabFolder> ReadLabFolder(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Error{dir.string() + ": not a lab folder (not a directory, or it cannot be read)"};
  }
  const fs::path manifest_file = dir / "manifest.yaml";
  auto manifest_text = ReadTextFile(manifest_file, " lab manifest", uint64_t{1} << 20);
  if (!manifest_text.ok()) return manifest_text.error();
  auto manifest = ConfigMap::FromText(*manifest_text, manifest_file.string());
  if (!manifest.ok()) return manifest.error();
  ConfigMap& root = *manifest;
  LabFolder lab;
  lab.dir = dir;
  lab.name = root.String("name", "");
  lab.sensor_serial = root.String("sensor_serial", "");
  lab.wavelength_nm = root.Number("wavelength_nm");
  if (!(lab.wavelength_nm >= 200 && lab.wavelength_nm <= 20000)) {
    root.Fail("wavelength_nm", "must be the unit's wavelength in 200..20000 nm");
  }
  if (auto s = root.FirstError(); !s.ok()) return s.error();
  const fs::path real_dir = fs::canonical(dir, ec);
  if (ec) return Error{dir.string() + ": cannot resolve the lab folder (" + ec.message() + ")"};
  Checksum checksum;
  checksum.Add("manifest.yaml", *manifest_text);
  std::set<std::string> seen;
  for (ConfigMap& m : root.MapList("measurements")) {
    const std::string kind = m.String("kind");
    const std::string name = m.String("file");
    if (auto s = m.FirstError(); !s.ok()) return s.error();
    // A relative path without '..' parts whose real location (links followed) is inside the
    // lab folder, named once (compared after normalising: ./a.csv is a.csv).
    const fs::path normal = fs::path(name).lexically_normal();
    bool climbs = false;
    for (const auto& part : normal)
      climbs = climbs || part == "..";
    if (name.empty() || normal.is_absolute() || climbs || !normal.has_filename()) {
      m.Fail("file", "must be a file path inside the lab folder, got '" + name + "'");
      return m.FirstError().error();
    }
    if (!seen.insert(normal.string()).second) {
      m.Fail("file", "'" + name + "' is named twice");
      return m.FirstError().error();
    }
    const fs::path file = dir / normal;
    const fs::path real = fs::weakly_canonical(file, ec);
    const auto rel = real.lexically_relative(real_dir);
    if (!ec && (rel.empty() || *rel.begin() == "..")) {
      m.Fail("file",
             "'" + name + "' leads outside the lab folder (a link to " + real.string() + ")");
      return m.FirstError().error();
    }
    auto bytes = ReadTextFile(file, " lab measurement", kMaxLabFileBytes);
    if (!bytes.ok()) return bytes.error();
    checksum.Add(name, *bytes);
    Status s;
    if (kind == "beam_kernel") {
      s = ReadBeamKernel(m, file, lab);
    } else if (kind == "collector_sensitivity") {
      s = ReadCollector(m, file, *bytes, lab);
    } else if (kind == "capability") {
      s = ReadCapability(m, file, *bytes, lab);
    } else if (kind == "waveforms") {
      s = ReadWaveforms(m, file, lab);
    } else if (kind == "reflectance" || kind == "range_intensity" ||
               kind == "detection_threshold") {
      ConfigMap cond = m.Map("conditions");
      if (auto e = m.FirstError(); !e.ok()) return e.error();
      // Recorded, not used by the fits: the ambient light and the unit's serial per file.
      const double klux = cond.Number("ambient_klux", 0);
      if (!(klux >= 0 && klux <= 1000))  // direct sunlight: about 100 klux
        cond.Fail("ambient_klux", "must be in 0..1000 klux, got " + NumberText(klux));
      if (kind == "reflectance") s = ReadReflectance(m, cond, file, *bytes, lab);
      if (kind == "range_intensity") s = ReadRangeIntensity(m, cond, file, *bytes, lab);
      if (kind == "detection_threshold") s = ReadThreshold(m, cond, file, *bytes, lab);
    } else {
      m.Fail("kind", "unknown measurement kind '" + kind +
                         "' (expected beam_kernel, collector_sensitivity, detection_threshold, "
                         "reflectance, range_intensity, capability or waveforms)");
      return m.FirstError().error();
    }
    if (!s.ok()) return s.error();
  }
  if (auto s = root.Finish(); !s.ok()) return s.error();
  lab.checksum = checksum.Hex();
  if (auto s = lab.Validate(); !s.ok()) return s.error();
  return lab;
}

}  // namespace lt::calib
