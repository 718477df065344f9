// Over 700 lines: the one loader of the sensor profile schema (house rule 13: one struct, one
// loader, one writer), a function per scan pattern and detector; the waveform keys already
// live in waveform_profile.cpp.
#include "lidartwin/sim/sensor_profile.h"
#include "lidartwin/base/text_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <fmt/core.h>

#include "lidartwin/base/config_reader.h"
#include "sensor/profile_keys.h"
#include "sensor/waveform_profile.h"

namespace lt {

using physics::kDegToRad;

namespace {

// A whole count held as a double, written whole (not as 4.2e+10).
std::string CountText(double count) {
  if (count < 9.2e18) return std::to_string(static_cast<uint64_t>(count));
  return NumberText(count);
}

}  // namespace

double InterpolateChannelGain(const std::vector<double>& nodes_m, const std::vector<double>& row,
                              double range_m) {
  if (row.empty() || nodes_m.size() != row.size()) return 1.0;
  if (!(range_m > nodes_m.front())) return row.front();
  if (range_m >= nodes_m.back()) return row.back();
  const size_t k = static_cast<size_t>(std::upper_bound(nodes_m.begin(), nodes_m.end(), range_m) -
                                       nodes_m.begin());
  const double t = std::log(range_m / nodes_m[k - 1]) / std::log(nodes_m[k] / nodes_m[k - 1]);
  return std::exp((1 - t) * std::log(row[k - 1]) + t * std::log(row[k]));
}

double ChannelIntensityGains::At(size_t channel, double r) const {
  return channel < gain.size() ? InterpolateChannelGain(range_m, gain[channel], r) : 1.0;
}

namespace {

// Where x lies among increasing nodes: the node below and the fraction towards the next in
// ln x (0 at or below the first, the last node beyond it).
std::pair<size_t, double> LogNodePlace(const std::vector<double>& nodes, double x) {
  if (nodes.size() < 2 || !(x > nodes.front())) return {0, 0.0};
  if (x >= nodes.back()) return {nodes.size() - 1, 0.0};
  const size_t k =
      static_cast<size_t>(std::upper_bound(nodes.begin(), nodes.end(), x) - nodes.begin()) - 1;
  return {k, std::log(x / nodes[k]) / std::log(nodes[k + 1] / nodes[k])};
}

}  // namespace

double RayDropTable::At(double r, double a) const {
  if (empty()) return 0;
  const auto [i, s] = LogNodePlace(range_m, r);
  const auto [j, t] = LogNodePlace(reflectance, a);
  const size_t n = reflectance.size();
  auto p = [&](size_t ri, size_t aj) {
    return probability[std::min(ri, range_m.size() - 1) * n + std::min(aj, n - 1)];
  };
  return (1 - s) * ((1 - t) * p(i, j) + t * p(i, j + 1)) +
         s * ((1 - t) * p(i + 1, j) + t * p(i + 1, j + 1));
}

bool BlockedDirections::empty() const {
  for (const auto& c : channel)
    if (!c.empty()) return false;
  return true;
}

size_t BlockedDirections::Intervals() const {
  size_t n = 0;
  for (const auto& c : channel)
    n += c.size();
  return n;
}

double BlockedDirections::Wrapped(double azimuth_rad) {
  const double r = std::remainder(azimuth_rad, 2 * physics::kPi);  // [-pi, pi]
  return r >= physics::kPi ? r - 2 * physics::kPi : r;
}

bool BlockedDirections::Blocked(uint32_t c, double azimuth_rad) const {
  if (c >= channel.size() || channel[c].empty()) return false;
  const double a = Wrapped(azimuth_rad);
  const auto& intervals = channel[c];
  // The last interval starting at or before a.
  auto it = std::upper_bound(intervals.begin(), intervals.end(), a,
                             [](double v, const AzimuthInterval& i) { return v < i.from_rad; });
  return it != intervals.begin() && a < std::prev(it)->to_rad;
}

uint32_t SensorProfile::BeamCount() const {
  // Validate() caps the count at kMaxBeamsPerFrame, so it fits.
  return static_cast<uint32_t>(physics::ScanBeamCount(Pattern()));
}

uint64_t SensorProfile::RaysPerFrame() const {
  // Random selection traces one sub-ray; the average mode and the return-signal detectors all.
  const bool all =
      footprint.mode == physics::DivergenceMode::kAverage || detector.ReadsReturnSignal();
  return physics::ScanBeamCount(Pattern()) * (all ? footprint.sub_rays : 1);
}

double SensorProfile::FramePeriodS() const {
  return scan == ScanKind::kSpinning ? 1.0 / rotation_rate_hz : 1.0 / frame_rate_hz;
}

physics::SpinningScan<double> SensorProfile::SpinningView() const {
  return {elevation_rad.data(),
          azimuth_offset_rad.data(),
          firing_offset_s.data(),
          static_cast<uint32_t>(elevation_rad.size()),
          columns,
          rotation_rate_hz,
          start_azimuth_rad,
          clockwise};
}

physics::ScanPattern<double> SensorProfile::Pattern(const double* const* tables) const {
  physics::ScanPattern<double> p{scan, SpinningView(), lissajous, line_scan, swath, elliptical};
  if (tables) {
    p.spinning.elevation_rad = tables[0];
    p.spinning.azimuth_offset_rad = tables[1];
    p.spinning.firing_offset_s = tables[2];
  }
  return p;
}

physics::DetectorParams<double> SensorProfile::Detector() const {
  return {detector.kind,
          min_range_m,
          max_range_m,
          detector.max_range_m,
          detector.reflectance_at_max_range,
          detector.range_noise_sigma_m};
}

physics::BeamFootprint SensorProfile::FootprintView(const float* cdf, const float* weight) const {
  physics::BeamFootprint f = footprint;
  if (f.kind == physics::FootprintKind::kTable) {
    f.table = {cdf ? cdf : kernel.cdf.data(),
               weight ? weight : kernel.weight.data(),
               kernel.nh,
               kernel.nv,
               kernel.h0_rad,
               kernel.v0_rad,
               kernel.dh_rad,
               kernel.dv_rad};
  }
  return f;
}

physics::ThresholdDetector SensorProfile::Threshold() const {
  return {physics::PulseSigmaRange(detector.pulse_width_ns * 1e-9),
          detector.threshold_w,
          detector.echo_range,
          detector.return_mode,
          detector.max_echoes,
          detector.walk_reference_power_w};
}

uint32_t SensorProfile::EchoesPerBeam() const {
  return detector.ReadsReturnSignal() ? detector.max_echoes : 1;
}

physics::BeamSample<double> SensorProfile::Beam(uint32_t i) const {
  return physics::ScanBeam(Pattern(), i);
}

namespace {

using profile_keys::Scaled;

void ReadSpinningTables(ConfigMap& scan, SensorProfile& p) {
  std::vector<double> elevation_deg;
  if (scan.Has("elevation_deg")) {
    elevation_deg = scan.Numbers("elevation_deg");
  } else {
    // Evenly spaced channels from top to bottom, as data sheets give them.
    const double top = scan.Number("elevation_top_deg");
    const double bottom = scan.Number("elevation_bottom_deg");
    const double channels = scan.Number("channels");
    if (channels < 1 || channels > 65535 || channels != std::floor(channels)) {
      scan.Fail("channels", "must be a whole number in 1..65535");
    } else if (!(top > bottom) && channels > 1) {
      scan.Fail("elevation_top_deg", "must be above elevation_bottom_deg");
    } else {
      const int n = static_cast<int>(channels);
      for (int k = 0; k < n; ++k) {
        elevation_deg.push_back(n == 1 ? top : top - (top - bottom) * k / (n - 1));
      }
    }
  }
  const size_t n = elevation_deg.size();
  for (double e : elevation_deg) {
    if (e < -90 || e > 90) {
      scan.Fail("elevation_deg", "elevation " + std::to_string(e) + " deg is outside -90..90");
      break;
    }
  }
  std::vector<double> azimuth_deg =
      scan.Has("azimuth_offset_deg") ? scan.Numbers("azimuth_offset_deg") : std::vector<double>();
  std::vector<double> firing_us =
      scan.Has("firing_offset_us") ? scan.Numbers("firing_offset_us") : std::vector<double>();
  if (azimuth_deg.empty()) {
    azimuth_deg.assign(n, 0.0);
  }
  if (firing_us.empty()) {
    firing_us.assign(n, 0.0);
  }
  if (azimuth_deg.size() != n) {
    scan.Fail("azimuth_offset_deg", "has " + std::to_string(azimuth_deg.size()) +
                                        " entries but there are " + std::to_string(n) +
                                        " channels");
  }
  if (firing_us.size() != n) {
    scan.Fail("firing_offset_us", "has " + std::to_string(firing_us.size()) +
                                      " entries but there are " + std::to_string(n) + " channels");
  }
  p.elevation_rad = Scaled(elevation_deg, kDegToRad);
  p.azimuth_offset_rad = Scaled(azimuth_deg, kDegToRad);
  p.firing_offset_s = Scaled(firing_us, 1e-6);
}

void ValidateSpinningTiming(ConfigMap& scan, SensorProfile& p) {
  if (!(p.rotation_rate_hz > 0)) {
    scan.Fail("rotation_rate_hz", "must be positive, got " + std::to_string(p.rotation_rate_hz));
    return;
  }
  if (p.columns < 1) return;
  const double column_period_s = 1.0 / (p.columns * p.rotation_rate_hz);
  for (double f : p.firing_offset_s) {
    if (f < 0 || f >= column_period_s) {
      scan.Fail("firing_offset_us", "offset " + std::to_string(f * 1e6) +
                                        " us is outside [0, column period " +
                                        std::to_string(column_period_s * 1e6) + " us)");
      return;
    }
  }
}

uint32_t WholeCount(ConfigMap& m, const std::string& key, double min_value) {
  const double v = m.Number(key);
  if (v < min_value || v != std::floor(v) || v > 1e9) {
    m.Fail(key, "must be a whole number >= " + std::to_string(static_cast<long>(min_value)) +
                    ", got " + std::to_string(v));
    return 0;
  }
  return static_cast<uint32_t>(v);
}

// ---- airborne patterns (seed 001 sec. 5.1) ----

// A number as a person writes it (100000, 0.5, 6.666666667), for messages.
std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

double PositiveRate(ConfigMap& scan, const std::string& key) {
  const double v = scan.Number(key);
  if (!(v > 0)) {
    scan.Fail(key, "must be positive, got " + Num(v));
    return 0;
  }
  if (!std::isfinite(v)) {
    scan.Fail(key, "must be finite, got " + Num(v));
    return 0;
  }
  return v;
}

// Mirror periods (scan lines or revolutions) per frame: rate / frame rate must be a whole
// number (an even number for a zigzag: two lines per mirror period), so that every frame
// starts with the mirror at the same phase and the pattern carries on across frames.
uint32_t PeriodsPerFrame(ConfigMap& scan, const std::string& rate_key, double rate_hz,
                         double frame_rate_hz, const std::string& what, uint32_t multiple) {
  if (!(rate_hz > 0 && frame_rate_hz > 0)) return 0;  // reported already
  const double ratio = rate_hz / frame_rate_hz;
  const double whole = std::round(ratio);
  const std::string given = Num(frame_rate_hz) + " Hz gives " + rate_key + " / " +
                            "frame_rate_hz = " + Num(ratio) + " " + what + " per frame";
  if (whole < 1 || whole > 1e9 || std::abs(ratio - whole) > 1e-9 * whole) {
    scan.Fail("frame_rate_hz", given + "; must be a whole number >= 1 so that every frame " +
                                   "starts with the mirror at the same phase");
    return 0;
  }
  const auto periods = static_cast<uint32_t>(whole);
  if (periods % multiple != 0) {
    scan.Fail("frame_rate_hz", given + "; must be a multiple of " + std::to_string(multiple) +
                                   " (a zigzag mirror sweeps there and back)");
    return 0;
  }
  return periods;
}

// Pulses per line or revolution: the whole pulse periods that fit in `window_s`.
uint32_t PulsesPer(ConfigMap& scan, double pulse_rate_hz, double window_s,
                   const std::string& what) {
  if (!(pulse_rate_hz > 0 && window_s > 0)) return 0;  // reported already
  // The tolerance keeps exact ratios such as 0.6 * 100000 / 100 = 600 from rounding down.
  const double n = std::floor(pulse_rate_hz * window_s * (1 + 1e-12));
  if (n < 1) {
    scan.Fail("pulse_rate_hz", Num(pulse_rate_hz) + " Hz gives fewer than one pulse per " + what +
                                   " (" + Num(window_s * 1e6) + " us of firing time)");
    return 0;
  }
  if (n > 1e9) {
    scan.Fail("pulse_rate_hz", Num(pulse_rate_hz) + " Hz gives more than 10^9 pulses per " + what);
    return 0;
  }
  return static_cast<uint32_t>(n);
}

void CheckPulsesPerFrame(ConfigMap& scan, uint64_t pulses_per_period, uint64_t periods) {
  if (pulses_per_period * periods > 1000000000) {
    scan.Fail("frame_rate_hz", "gives " + std::to_string(pulses_per_period * periods) +
                                   " pulses per frame, more than 10^9");
  }
}

// parallel and zigzag: across-track lines (physics::SwathScan).
void ReadSwath(ConfigMap& scan, SensorProfile& p) {
  const double fov_deg = scan.Number("field_of_view_deg");
  const double line_rate_hz = PositiveRate(scan, "line_rate_hz");
  const double pulse_rate_hz = PositiveRate(scan, "pulse_rate_hz");
  p.frame_rate_hz = PositiveRate(scan, "frame_rate_hz");
  const double efficiency = scan.Number("scan_efficiency", 1);
  if (!(fov_deg > 0 && fov_deg < 180)) {
    scan.Fail("field_of_view_deg",
              "must be in (0, 180) deg (the full across-track angle), got " + Num(fov_deg));
  }
  if (efficiency > 1 && efficiency <= 100) {
    scan.Fail("scan_efficiency",
              "is a fraction in (0, 1], got " + Num(efficiency) + " (a percentage?)");
  } else if (!(efficiency > 0 && efficiency <= 1)) {
    scan.Fail("scan_efficiency", "must be in (0, 1], got " + Num(efficiency));
  }
  auto& s = p.swath;
  s.half_angle_rad = fov_deg / 2 * kDegToRad;
  s.lines = PeriodsPerFrame(scan, "line_rate_hz", line_rate_hz, p.frame_rate_hz, "lines",
                            p.scan == ScanKind::kZigzag ? 2 : 1);
  if (!(line_rate_hz > 0 && efficiency > 0 && efficiency <= 1)) return;
  s.line_period_s = 1 / line_rate_hz;
  s.active_period_s = efficiency * s.line_period_s;
  s.pulses_per_line = PulsesPer(scan, pulse_rate_hz, s.active_period_s, "line");
  CheckPulsesPerFrame(scan, s.pulses_per_line, s.lines);
}

// elliptical: Palmer scanner (physics::EllipticalScan).
void ReadElliptical(ConfigMap& scan, SensorProfile& p) {
  const double off_nadir_deg = scan.Number("off_nadir_deg");
  const double rotation_rate_hz = PositiveRate(scan, "rotation_rate_hz");
  const double pulse_rate_hz = PositiveRate(scan, "pulse_rate_hz");
  p.frame_rate_hz = PositiveRate(scan, "frame_rate_hz");
  if (!(off_nadir_deg > 0 && off_nadir_deg < 90)) {
    scan.Fail("off_nadir_deg", "must be in (0, 90) deg, got " + Num(off_nadir_deg));
  }
  auto& s = p.elliptical;
  s.off_nadir_rad = off_nadir_deg * kDegToRad;
  s.revolutions = PeriodsPerFrame(scan, "rotation_rate_hz", rotation_rate_hz, p.frame_rate_hz,
                                  "revolutions", 1);
  if (!(rotation_rate_hz > 0)) return;
  s.revolution_period_s = 1 / rotation_rate_hz;
  s.pulses_per_revolution = PulsesPer(scan, pulse_rate_hz, s.revolution_period_s, "revolution");
  CheckPulsesPerFrame(scan, s.pulses_per_revolution, s.revolutions);
}

void ReadScan(ConfigMap& scan, SensorProfile& p, const std::filesystem::path& profile_file) {
  const std::string type = scan.String("type");
  if (type == "spinning") {
    p.scan = ScanKind::kSpinning;
    ReadSpinningTables(scan, p);
    p.columns = WholeCount(scan, "columns_per_revolution", 1);
    p.rotation_rate_hz = scan.Number("rotation_rate_hz");
    p.clockwise = scan.Bool("clockwise", true);
    p.start_azimuth_rad = scan.Number("start_azimuth_deg", 0) * kDegToRad;
    ValidateSpinningTiming(scan, p);
  } else if (type == "laserconfig") {
    p.scan = ScanKind::kSpinning;
    const std::string file = scan.String("file");
    const uint32_t samples = WholeCount(scan, "horizontal_samples", 1);
    p.rotation_rate_hz = scan.Number("rotation_rate_hz");
    p.clockwise = scan.Bool("clockwise", true);
    p.start_azimuth_rad = scan.Number("start_azimuth_deg", 0) * kDegToRad;
    if (!(p.rotation_rate_hz > 0)) {
      scan.Fail("rotation_rate_hz", "must be positive, got " + std::to_string(p.rotation_rate_hz));
      return;
    }
    if (!file.empty() && samples > 0) {
      const Status s = LoadLaserConfig(scan.Resolve(file), samples, p);
      if (!s.ok()) scan.Fail("file", s.message());
    }
  } else if (type == "lissajous") {
    p.scan = ScanKind::kLissajous;
    auto& l = p.lissajous;
    l.horizontal_amplitude_rad = scan.Number("horizontal_amplitude_deg") * kDegToRad;
    l.vertical_amplitude_rad = scan.Number("vertical_amplitude_deg") * kDegToRad;
    l.horizontal_frequency_hz = scan.Number("horizontal_frequency_hz");
    l.vertical_frequency_hz = scan.Number("vertical_frequency_hz");
    l.horizontal_phase_rad = scan.Number("horizontal_phase_deg", 0) * kDegToRad;
    l.vertical_phase_rad = scan.Number("vertical_phase_deg", 0) * kDegToRad;
    l.pulse_rate_hz = scan.Number("pulse_rate_hz");
    p.frame_rate_hz = scan.Number("frame_rate_hz");
    if (!(p.frame_rate_hz > 0)) scan.Fail("frame_rate_hz", "must be positive");
    if (!(l.pulse_rate_hz > 0)) scan.Fail("pulse_rate_hz", "must be positive");
    if (p.frame_rate_hz > 0 && l.pulse_rate_hz >= p.frame_rate_hz) {
      // Judged as a double before any cast: a count beyond 2^32 would wrap (issue 36).
      const double pulses = std::floor(l.pulse_rate_hz / p.frame_rate_hz);
      if (pulses > static_cast<double>(kMaxBeamsPerFrame))
        scan.Fail("pulse_rate_hz", "gives " + CountText(pulses) + " pulses per frame, more than " +
                                       std::to_string(kMaxBeamsPerFrame) +
                                       " (lower the pulse rate or raise frame_rate_hz)");
      else
        l.pulses = static_cast<uint32_t>(pulses);
    } else if (p.frame_rate_hz > 0 && l.pulse_rate_hz > 0) {
      scan.Fail("pulse_rate_hz", "gives less than one pulse per frame");
    }
  } else if (type == "line_scan") {
    p.scan = ScanKind::kLineScan;
    auto& l = p.line_scan;
    const double fov_h = scan.Number("horizontal_fov_deg");
    const double fov_v = scan.Number("vertical_fov_deg");
    const double step = scan.Number("horizontal_step_deg");
    l.lines = WholeCount(scan, "scan_lines", 1);
    p.frame_rate_hz = scan.Number("frame_rate_hz");
    if (!(fov_h > 0 && fov_h < 180)) scan.Fail("horizontal_fov_deg", "must be in (0, 180)");
    if (!(fov_v > 0 && fov_v < 180)) scan.Fail("vertical_fov_deg", "must be in (0, 180)");
    if (!(step > 0 && step <= fov_h)) scan.Fail("horizontal_step_deg", "must be in (0, fov]");
    if (!(p.frame_rate_hz > 0)) scan.Fail("frame_rate_hz", "must be positive");
    // Default: the lines fill the whole frame (no fly-back time), f_h = lines * rate / 2.
    const double default_f = l.lines * p.frame_rate_hz / 2;
    l.horizontal_frequency_hz = scan.Number("mirror_frequency_hz", default_f);
    l.horizontal_amplitude_rad = fov_h / 2 * kDegToRad;
    l.vertical_amplitude_rad = fov_v / 2 * kDegToRad;
    l.horizontal_step_rad = step * kDegToRad;
    if (step > 0) {
      const double points = std::floor(fov_h / step + 1e-9);
      if (points > static_cast<double>(kMaxBeamsPerFrame))
        scan.Fail("horizontal_step_deg", "gives " + CountText(points) +
                                             " points per line, more than " +
                                             std::to_string(kMaxBeamsPerFrame));
      else
        l.points_per_line = static_cast<uint32_t>(points);
    }
    if (l.horizontal_frequency_hz > 0 && p.frame_rate_hz > 0 &&
        l.lines / (2 * l.horizontal_frequency_hz) > 1.0 / p.frame_rate_hz * (1 + 1e-12)) {
      scan.Fail("mirror_frequency_hz",
                "too low: " + std::to_string(l.lines) + " lines do not fit in one frame");
    }
  } else if (type == "parallel" || type == "zigzag") {
    p.scan = type == "parallel" ? ScanKind::kParallel : ScanKind::kZigzag;
    ReadSwath(scan, p);
  } else if (type == "elliptical") {
    p.scan = ScanKind::kElliptical;
    ReadElliptical(scan, p);
  } else {
    scan.Fail("type", "unknown scan type '" + type +
                          "' (expected spinning, laserconfig, lissajous, line_scan, parallel, "
                          "zigzag or elliptical)");
  }
  (void)profile_file;
}

// A FWHM divergence [mrad] to the standard deviation of the Gaussian profile [rad].
double SigmaFromFwhmMrad(ConfigMap& m, const std::string& key) {
  const double fwhm = m.Number(key);
  if (!(fwhm > 0 && fwhm < 500)) {
    m.Fail(key, "must be in (0, 500) mrad, got " + std::to_string(fwhm));
    return 1e-3;
  }
  return fwhm * 1e-3 / physics::kFwhmPerSigma;
}

void ReadGaussianSpots(ConfigMap& b, SensorProfile& p) {
  auto& f = p.footprint;
  f.kind = physics::FootprintKind::kGaussian;
  if (!b.Has("spots")) {
    f.spot_count = 1;
    f.spots[0] = {0, 0, SigmaFromFwhmMrad(b, "divergence_h_fwhm_mrad"),
                  SigmaFromFwhmMrad(b, "divergence_v_fwhm_mrad"), 1.0};
    return;
  }
  std::vector<ConfigMap> spots = b.MapList("spots");
  if (spots.empty() || spots.size() > physics::kMaxSpots) {
    b.Fail("spots", "must list 1.." + std::to_string(physics::kMaxSpots) + " spots, got " +
                        std::to_string(spots.size()));
    return;
  }
  double total = 0;
  f.spot_count = static_cast<uint32_t>(spots.size());
  for (size_t k = 0; k < spots.size(); ++k) {
    ConfigMap& s = spots[k];
    const double power = s.Number("power", 1);
    if (!(power > 0 && power < 1e6))
      s.Fail("power", "must be positive, got " + std::to_string(power));
    const double h_offset = s.Number("h_offset_mrad", 0);
    const double v_offset = s.Number("v_offset_mrad", 0);
    for (const auto& [key, value] : {std::pair<const char*, double>{"h_offset_mrad", h_offset},
                                     std::pair<const char*, double>{"v_offset_mrad", v_offset}}) {
      if (!(std::abs(value) <= 500)) s.Fail(key, "must be within +-500 mrad, got " + Num(value));
    }
    f.spots[k] = {h_offset * 1e-3, v_offset * 1e-3, SigmaFromFwhmMrad(s, "divergence_h_fwhm_mrad"),
                  SigmaFromFwhmMrad(s, "divergence_v_fwhm_mrad"), power};
    total += power > 0 ? power : 0;
  }
  for (uint32_t k = 0; k < f.spot_count && total > 0; ++k)
    f.spots[k].power /= total;
}

void ReadKernelTable(ConfigMap& b, SensorProfile& p) {
  p.footprint.kind = physics::FootprintKind::kTable;
  const double gamma = b.Number("kernel_tail_exponent", 0.5);
  if (!(gamma >= 0 && gamma <= 1)) {
    b.Fail("kernel_tail_exponent", "must be in [0, 1], got " + std::to_string(gamma));
    return;
  }
  p.kernel_tail_exponent = gamma;
  Expected<KernelTable> table = Error{""};
  if (b.Has("kernel_file")) {
    p.kernel_file = std::filesystem::absolute(b.Resolve(b.String("kernel_file"))).string();
    table = LoadKernelGrid(p.kernel_file);
    if (!table.ok()) b.Fail("kernel_file", table.message());
  } else {
    const std::string h = b.String("kernel_h_file");
    const std::string v = b.String("kernel_v_file");
    if (h.empty() || v.empty()) return;
    p.kernel_h_file = std::filesystem::absolute(b.Resolve(h)).string();
    p.kernel_v_file = std::filesystem::absolute(b.Resolve(v)).string();
    // Each slice loaded under its own key, so that an error names the right one.
    auto h_slice = LoadKernelSlice(p.kernel_h_file);
    if (!h_slice.ok()) b.Fail("kernel_h_file", h_slice.message());
    auto v_slice = LoadKernelSlice(p.kernel_v_file);
    if (!v_slice.ok()) b.Fail("kernel_v_file", v_slice.message());
    if (h_slice.ok() && v_slice.ok()) table = SeparableKernel(*h_slice, *v_slice);
  }
  if (table.ok()) p.kernel = PrepareKernelSampling(*table, gamma);
}

void ReadFootprint(ConfigMap& b, SensorProfile& p) {
  const std::string kind = b.String("footprint", "cone");
  const double sub_rays = b.Number("sub_rays", 1);
  const std::string mode = b.String("mode", "random_selection");
  if (kind == "cone") {
    const double divergence_mrad = b.Number("divergence_mrad");
    if (!(divergence_mrad >= 0 && divergence_mrad < 1000)) {
      b.Fail("divergence_mrad",
             "must be in [0, 1000) mrad, got " + std::to_string(divergence_mrad));
    } else if (sub_rays > 1 && divergence_mrad == 0) {
      b.Fail("sub_rays", "more than one sub-ray needs divergence_mrad > 0");
    }
    // Seed 003: rays "inside a cone with an apex angle equal to the divergence angle".
    p.footprint.half_angle_rad = 0.5e-3 * divergence_mrad;
  } else if (kind == "gaussian") {
    ReadGaussianSpots(b, p);
  } else if (kind == "table") {
    ReadKernelTable(b, p);
  } else {
    b.Fail("footprint", "unknown footprint '" + kind + "' (expected cone, gaussian or table)");
  }
  if (sub_rays < 1 || sub_rays > 128 || sub_rays != std::floor(sub_rays)) {
    b.Fail("sub_rays", "must be a whole number in 1..128, got " + std::to_string(sub_rays));
  }
  if (const auto* m = profile_keys::Find(profile_keys::kDivergenceModes, mode)) {
    p.footprint.mode = *m;
  } else {
    b.Fail("mode", "unknown mode '" + mode + "' (expected " +
                       profile_keys::Choices(profile_keys::kDivergenceModes) + ")");
  }
  p.footprint.sub_rays = static_cast<uint32_t>(std::clamp(std::floor(sub_rays), 1.0, 128.0));
  const std::string gather = b.String("gather", "sub_rays");
  if (gather == "raster") {
    p.raster_gather = true;
  } else if (gather != "sub_rays") {
    b.Fail("gather", "unknown gather '" + gather + "' (expected sub_rays or raster)");
  }
  const double res = b.Number("raster_resolution_mrad", 1.0);
  if (!(res >= 0.01 && res <= 100)) {
    b.Fail("raster_resolution_mrad", "must be in [0.01, 100] mrad, got " + std::to_string(res));
  }
  p.raster_resolution_rad = res * 1e-3;
}

// A key that must be a positive number below `max`.
double Positive(ConfigMap& d, const std::string& key, double max) {
  const double v = d.Number(key);
  if (!(v > 0 && v < max)) {
    d.Fail(key, "must be positive and below " + std::to_string(max) + ", got " + std::to_string(v));
  }
  return v;
}

// The keys the threshold and waveform detectors share: the link budget (seed 002 eq. 2), the
// pulse, the return mode and the surfaces a sub-ray meets.
void ReadLinkKeys(ConfigMap& d, SensorProfile& p) {
  DetectorConfig& c = p.detector;
  c.link.peak_power_w = Positive(d, "peak_power_w", 1e6);
  c.link.aperture_diameter_m = Positive(d, "aperture_diameter_mm", 1e4) * 1e-3;
  c.link.optics_transmission = d.Number("optics_transmission", 1);
  if (!(c.link.optics_transmission > 0 && c.link.optics_transmission <= 1)) {
    d.Fail("optics_transmission",
           "must be a fraction in (0, 1], got " + std::to_string(c.link.optics_transmission));
  }
  const double extinction = d.Number("atmospheric_extinction_per_km", 0);
  if (!(extinction >= 0 && extinction < 1000)) {
    d.Fail("atmospheric_extinction_per_km",
           "must be in [0, 1000), got " + std::to_string(extinction));
  }
  c.link.extinction_per_m = extinction * 1e-3;
  c.pulse_width_ns = Positive(d, "pulse_width_ns", 1e4);
  if (c.pulse_width_ns > 0 && c.pulse_width_ns < 0.01) {
    d.Fail("pulse_width_ns", "must be at least 0.01 ns (10 ps), got " + Num(c.pulse_width_ns));
  }
  const std::string mode = d.String("return_mode", "strongest");
  if (const auto* m = profile_keys::Find(profile_keys::kReturnModes, mode)) {
    c.return_mode = *m;
  } else {
    d.Fail("return_mode", "unknown return mode '" + mode + "' (expected " +
                              profile_keys::Choices(profile_keys::kReturnModes) + ")");
  }
  const double k = d.Number("max_echoes", 2);
  if (k < 1 || k > physics::kMaxEchoesReported || k != std::floor(k)) {
    d.Fail("max_echoes", "must be a whole number in 1..8, got " + std::to_string(k));
  } else {
    c.max_echoes = static_cast<uint32_t>(k);
  }
  if (c.return_mode == physics::ReturnMode::kDual && c.max_echoes < 2) {
    d.Fail("max_echoes", "dual returns need max_echoes >= 2");
  }
  const double surfaces = d.Number("max_surfaces_per_sub_ray", 4);
  if (surfaces < 1 || surfaces > 16 || surfaces != std::floor(surfaces)) {
    d.Fail("max_surfaces_per_sub_ray",
           "must be a whole number in 1..16, got " + std::to_string(surfaces));
  } else {
    c.max_surfaces_per_sub_ray = static_cast<uint32_t>(surfaces);
  }
  c.overlap.range_m = d.Number("overlap_range_m", 0);
  if (!(c.overlap.range_m >= 0 && c.overlap.range_m < 1000)) {
    d.Fail("overlap_range_m",
           "must be 0 (full overlap) or in (0, 1000) m, got " + Num(c.overlap.range_m));
  }
  c.overlap.sharpness = d.Number("overlap_sharpness", 2);
  if (!(c.overlap.sharpness >= 0.1 && c.overlap.sharpness <= 20)) {
    d.Fail("overlap_sharpness", "must be in [0.1, 20], got " + Num(c.overlap.sharpness));
  }
}

void ReadThresholdDetector(ConfigMap& d, SensorProfile& p) {
  DetectorConfig& c = p.detector;
  ReadLinkKeys(d, p);
  c.threshold_w = Positive(d, "threshold_nw", 1e15) * 1e-9;
  if (c.threshold_w > 0 && c.threshold_w < 1e-15) {
    d.Fail("threshold_nw", "must be at least 1e-6 nW (1 fW), got " + Num(c.threshold_w * 1e9));
  }
  c.walk_reference_power_w = d.Number("walk_reference_power_nw", 10 * c.threshold_w * 1e9) * 1e-9;
  // The walk offset sigma sqrt(2 ln(P_walk / T)) stays within 5.3 sigma.
  if (!(c.walk_reference_power_w >= c.threshold_w &&
        c.walk_reference_power_w <= 1e6 * c.threshold_w)) {
    d.Fail("walk_reference_power_nw", "must be between threshold_nw and 1e6 x threshold_nw, got " +
                                          Num(c.walk_reference_power_w * 1e9));
  }
  const std::string range = d.String("range_mode", "peak");
  if (const auto* r = profile_keys::Find(profile_keys::kEchoRanges, range)) {
    c.echo_range = *r;
  } else {
    d.Fail("range_mode", "unknown range mode '" + range + "' (expected " +
                             profile_keys::Choices(profile_keys::kEchoRanges) + ")");
  }
  c.range_noise_sigma_m = d.Number("range_noise_sigma_m", 0);
  if (!(c.range_noise_sigma_m >= 0 && c.range_noise_sigma_m < 100)) {
    d.Fail("range_noise_sigma_m",
           "must be in [0, 100), got " + std::to_string(c.range_noise_sigma_m));
  }
  c.range_resolution_m = d.Number("range_resolution_mm", 0) * 1e-3;
  if (!(c.range_resolution_m == 0 || (c.range_resolution_m >= 1e-6 && c.range_resolution_m < 10))) {
    d.Fail("range_resolution_mm",
           "must be 0 (none) or in [0.001, 10000) mm, got " + Num(c.range_resolution_m * 1e3));
  }
  c.outlier_probability = d.Number("outlier_probability", 0);
  if (!(c.outlier_probability >= 0 && c.outlier_probability <= 1)) {
    d.Fail("outlier_probability",
           "must be in [0, 1], got " + std::to_string(c.outlier_probability));
  }
  c.signal_noise_w = d.Number("signal_noise_nw", 0) * 1e-9;
  if (!(c.signal_noise_w >= 0 && c.signal_noise_w <= c.threshold_w / 3 * (1 + 1e-12))) {
    d.Fail("signal_noise_nw", "must be in [0, threshold_nw / 3] (" + Num(c.threshold_w / 3 * 1e9) +
                                  " nW), got " + Num(c.signal_noise_w * 1e9));
  }
  c.pulse_energy_jitter = d.Number("pulse_energy_jitter", 0);
  if (!(c.pulse_energy_jitter >= 0 && c.pulse_energy_jitter <= 0.25)) {
    d.Fail("pulse_energy_jitter", "must be in [0, 0.25], got " + Num(c.pulse_energy_jitter));
  }
}

// The provenance `lidartwin calibrate` writes (configs/README.md, "calibration").
void ReadCalibrationRecord(ConfigMap& c, CalibrationRecord& r) {
  r.lab = c.String("lab");
  r.lab_sha256 = c.String("lab_sha256");
  if (r.lab_sha256.size() != 64 ||
      r.lab_sha256.find_first_not_of("0123456789abcdef") != std::string::npos) {
    c.Fail("lab_sha256", "must be 64 lower-case hex digits");
  }
  r.sensor_serial = c.String("sensor_serial", "");
  r.date_utc = c.String("date_utc", "");
  for (ConfigMap& e : c.MapList("parameters")) {
    CalibrationRecord::Entry entry;
    entry.key = e.String("key");
    entry.value = e.Number("value");
    entry.stddev = e.Number("stddev");
    entry.fit = e.String("fit", "");
    if (!(entry.stddev >= 0)) e.Fail("stddev", "must be >= 0");
    r.parameters.push_back(std::move(entry));
  }
}

// `intensity_gains:` (configs/README.md): nodes, and one row of gains per channel, row-major.
void ReadIntensityGains(ConfigMap& c, ChannelIntensityGains& g) {
  g.source = c.String("source", "");
  g.range_m = c.Numbers("range_m");
  const size_t nodes = g.range_m.size();
  if (nodes == 0 || nodes > kMaxIntensityGainNodes) {
    c.Fail("range_m",
           fmt::format("must hold 1 to {} ranges, got {}", kMaxIntensityGainNodes, nodes));
    return;
  }
  const std::vector<double> flat = c.Numbers("gain");
  if (flat.empty() || flat.size() % nodes != 0) {
    c.Fail("gain", fmt::format("must hold one row of {} gains (one per range_m) per channel, got "
                               "{} number(s)",
                               nodes, flat.size()));
    return;
  }
  for (size_t k = 0; k < flat.size(); k += nodes)
    g.gain.emplace_back(flat.begin() + static_cast<ptrdiff_t>(k),
                        flat.begin() + static_cast<ptrdiff_t>(k + nodes));
}

// `ray_drop:` (configs/README.md): nodes, and the probabilities row-major by range.
void ReadRayDrop(ConfigMap& c, RayDropTable& t) {
  t.source = c.String("source", "");
  const std::string decision = c.String("decision", "sample");
  if (const auto* d = profile_keys::Find(profile_keys::kRayDropDecisions, decision)) {
    t.decision = *d;
  } else {
    c.Fail("decision", "must be " + profile_keys::Choices(profile_keys::kRayDropDecisions) +
                           ", got '" + decision + "'");
  }
  t.range_m = c.Numbers("range_m");
  t.reflectance = c.Numbers("reflectance");
  t.probability = c.Numbers("probability");
}

// `blocked_directions:` (configs/README.md): per channel, azimuth intervals in degrees.
void ReadBlockedDirections(ConfigMap& c, BlockedDirections& b) {
  b.source = c.String("source", "");
  std::vector<bool> listed;
  for (ConfigMap& entry : c.MapList("channels")) {
    const double channel = entry.Number("channel");
    const std::vector<double> rows = entry.NumberRows("azimuth_deg", 2);
    if (!(channel >= 0 && channel < kMaxBlockedChannels && channel == std::floor(channel))) {
      entry.Fail("channel", fmt::format("must be a whole number in 0..{}, got {}",
                                        kMaxBlockedChannels - 1, NumberText(channel)));
      continue;
    }
    const auto k = static_cast<size_t>(channel);
    if (b.channel.size() <= k) b.channel.resize(k + 1), listed.resize(k + 1, false);
    if (listed[k]) {
      entry.Fail("channel", fmt::format("channel {} is listed twice", k));
      continue;
    }
    listed[k] = true;
    for (size_t n = 0; n + 1 < rows.size(); n += 2)
      b.channel[k].push_back({rows[n] * kDegToRad, rows[n + 1] * kDegToRad});
  }
}

void ReadDetector(ConfigMap& d, SensorProfile& p) {
  const std::string type = d.String("type");
  if (type == "ideal") {
    p.detector.kind = DetectorKind::kIdeal;
  } else if (type == "capability") {
    p.detector.kind = DetectorKind::kCapability;
    p.detector.max_range_m = d.Number("max_range_m");
    p.detector.reflectance_at_max_range = d.Number("reflectance_at_max_range");
    p.detector.range_noise_sigma_m = d.Number("range_noise_sigma_m", 0);
    if (!(p.detector.max_range_m > 0)) d.Fail("max_range_m", "must be positive");
    const double r = p.detector.reflectance_at_max_range;
    if (r > 1 && r <= 100) {
      d.Fail("reflectance_at_max_range",
             "is a fraction in (0, 1], got " + std::to_string(r) + " (a percentage?)");
    } else if (!(r > 0 && r <= 1)) {
      d.Fail("reflectance_at_max_range", "must be in (0, 1], got " + std::to_string(r));
    }
    if (p.detector.range_noise_sigma_m < 0) d.Fail("range_noise_sigma_m", "must be >= 0");
  } else if (type == "threshold") {
    p.detector.kind = DetectorKind::kThreshold;
    ReadThresholdDetector(d, p);
  } else if (type == "waveform") {
    p.detector.kind = DetectorKind::kWaveform;
    ReadLinkKeys(d, p);
    ReadWaveformKeys(d, p.detector.waveform);
  } else {
    d.Fail("type",
           "unknown detector '" + type + "' (expected ideal, capability, threshold or waveform)");
  }
}

}  // namespace

Expected<SensorProfile> ParseSensorProfile(const std::string& yaml_text,
                                           const std::filesystem::path& file) {
  auto parsed = ConfigMap::FromText(yaml_text, file.string());
  if (!parsed.ok()) return parsed.error();
  ConfigMap& root = parsed.value();
  SensorProfile p;
  p.source_text = yaml_text;
  p.source_file = file.string();
  p.name = root.String("name");
  p.wavelength_nm = root.Number("wavelength_nm");
  p.min_range_m = root.Number("min_range_m", 0);
  p.max_range_m = root.Number("max_range_m");
  if (p.wavelength_nm > 0 && p.wavelength_nm < 20) {
    root.Fail("wavelength_nm", "must be in nanometres (200..20000), got " +
                                   std::to_string(p.wavelength_nm) + " (micrometres?)");
  } else if (!(p.wavelength_nm >= 200 && p.wavelength_nm <= 20000)) {
    root.Fail("wavelength_nm", "must be in 200..20000 nm, got " + std::to_string(p.wavelength_nm));
  }
  if (p.min_range_m < 0) root.Fail("min_range_m", "must be >= 0");
  if (!(p.max_range_m > p.min_range_m)) root.Fail("max_range_m", "must exceed min_range_m");
  if (root.Has("beam_origin_m")) {
    const std::vector<double> o = root.Numbers("beam_origin_m");
    if (o.size() != 3)
      root.Fail("beam_origin_m",
                "must be [x, y, z] in metres, got " + std::to_string(o.size()) + " number(s)");
    else
      std::copy(o.begin(), o.end(), p.beam_origin_m.begin());
  }
  if (root.Has("beam_origin_radius_m"))
    p.beam_origin_radius_m = root.Number("beam_origin_radius_m");
  if (root.Has("range_offset_m")) p.range_offset_m = root.Number("range_offset_m");
  ConfigMap scan = root.Map("scan");
  ReadScan(scan, p, file);
  if (root.Has("beam")) {
    ConfigMap beam = root.Map("beam");
    ReadFootprint(beam, p);
  }
  ConfigMap detector = root.Map("detector");
  ReadDetector(detector, p);
  if (root.Has("calibration")) {
    ConfigMap c = root.Map("calibration");
    ReadCalibrationRecord(c, p.calibration);
  }
  if (root.Has("intensity_gains")) {
    ConfigMap g = root.Map("intensity_gains");
    ReadIntensityGains(g, p.intensity_gains);
  }
  if (root.Has("ray_drop")) {
    ConfigMap d = root.Map("ray_drop");
    ReadRayDrop(d, p.ray_drop);
  }
  if (root.Has("blocked_directions")) {
    ConfigMap b = root.Map("blocked_directions");
    ReadBlockedDirections(b, p.blocked_directions);
  }
  if (Status s = root.Finish(); !s.ok()) return s.error();
  // Validate(): a second line of defence behind the checks above, and the only check of the
  // rules that span several keys (beams per frame, raster gathering, contributions per beam),
  // reported at the line of the key it names.
  ConfigCheck check;
  p.Check(check);
  if (!check.ok()) {
    root.Fail(*check.problem());
    return root.FirstError().error();
  }
  return p;
}

Expected<SensorProfile> LoadSensorProfile(const std::filesystem::path& file) {
  auto text = ReadTextFile(file, " sensor profile");
  if (!text.ok()) return text.error();
  return ParseSensorProfile(*text, file);
}

}  // namespace lt
