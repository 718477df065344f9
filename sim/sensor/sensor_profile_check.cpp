// SensorProfile::Validate(): the ranges of configs/README.md ("Sensor profiles") on the
// profile as the simulator holds it (radians, seconds, watts, derived counts), each problem
// named by the key of the file that sets the value and told in that key's unit. The loader
// (sensor_profile.cpp) checks the same ranges as it reads, with the line of each key, and
// calls Check() after parsing as a second line of defence and for the rules that span several
// keys (beams per frame, raster gathering, contributions per beam).
#include <fmt/core.h>

#include <cmath>

#include "lidartwin/sim/sensor_profile.h"
#include "sensor/waveform_profile.h"

namespace lt {

namespace {

using physics::kDegToRad;

constexpr double kRadToDeg = 1 / kDegToRad;
// Ranges a lidar reports lie within 1000 km (spaceborne altimeters: a few hundred km); past
// that, times of flight and the ray caster's far plane lose meaning.
constexpr double kMostRangeM = 1e6;

std::string Deg(double rad) {
  return NumberText(rad * kRadToDeg);
}

bool Finite(double v) {
  return std::isfinite(v);
}

// A rate within [lo, hi] Hz, or the failure naming the key and the range.
void CheckRate(ConfigCheck& scan, const char* key, double hz, double lo, double hi) {
  if (!(hz >= lo && hz <= hi)) {
    scan.Fail(
        key, "must be in " + NumberText(lo) + ".." + NumberText(hi) + " Hz, got " + NumberText(hz));
  }
}

// A count of periods per frame that must come out whole (swath lines, revolutions): the
// period times the count is the frame period.
void CheckPeriodsPerFrame(ConfigCheck& scan, const char* rate_key, double period_s,
                          uint32_t periods, double frame_rate_hz, const std::string& what,
                          uint32_t multiple) {
  if (!(period_s > 0 && frame_rate_hz > 0)) return;  // reported already
  const double ratio = 1 / (period_s * frame_rate_hz);
  if (periods < 1 || std::abs(ratio - periods) > 1e-9 * periods) {
    scan.Fail("frame_rate_hz", NumberText(frame_rate_hz) + " Hz gives " + rate_key +
                                   " / frame_rate_hz = " + NumberText(ratio) + " " + what +
                                   " per frame, the scan has " + std::to_string(periods) +
                                   "; must be a whole number >= 1");
  } else if (periods % multiple != 0) {
    scan.Fail("frame_rate_hz", std::to_string(periods) + " " + what + " per frame; must be a " +
                                   "multiple of " + std::to_string(multiple) +
                                   " (a zigzag mirror sweeps there and back)");
  }
}

void CheckSpinning(const SensorProfile& p, ConfigCheck& scan) {
  const size_t n = p.elevation_rad.size();
  if (n < 1 || n > 65535) {
    scan.Fail("elevation_deg", "must list 1..65535 channels, got " + std::to_string(n));
  }
  for (double e : p.elevation_rad) {
    if (!(std::abs(e) <= 90 * kDegToRad * (1 + 1e-12))) {
      scan.Fail("elevation_deg", "elevation " + Deg(e) + " deg is outside -90..90");
      break;
    }
  }
  if (p.azimuth_offset_rad.size() != n) {
    scan.Fail("azimuth_offset_deg", "has " + std::to_string(p.azimuth_offset_rad.size()) +
                                        " entries but there are " + std::to_string(n) +
                                        " channels");
  }
  for (double a : p.azimuth_offset_rad)
    if (!(std::fabs(a) <= 360 * kDegToRad))
      scan.Fail("azimuth_offset_deg", "must be within +-360 deg, got " + Deg(a));
  if (p.firing_offset_s.size() != n) {
    scan.Fail("firing_offset_us", "has " + std::to_string(p.firing_offset_s.size()) +
                                      " entries but there are " + std::to_string(n) + " channels");
  }
  if (p.columns < 1) scan.Fail("columns_per_revolution", "must be a whole number >= 1, got 0");
  if (!(p.rotation_rate_hz >= kMinRotationRateHz && p.rotation_rate_hz <= kMaxRotationRateHz)) {
    scan.Fail("rotation_rate_hz", "must be in " + NumberText(kMinRotationRateHz) + ".." +
                                      NumberText(kMaxRotationRateHz) + " Hz, got " +
                                      NumberText(p.rotation_rate_hz));
  } else if (p.columns >= 1) {
    const double column_period_s = 1.0 / (p.columns * p.rotation_rate_hz);
    for (double f : p.firing_offset_s) {
      if (!(f >= 0 && f < column_period_s)) {
        scan.Fail("firing_offset_us", "offset " + NumberText(f * 1e6) +
                                          " us is outside [0, column period " +
                                          NumberText(column_period_s * 1e6) + " us)");
        break;
      }
    }
  }
  if (!(std::fabs(p.start_azimuth_rad) <= 360 * kDegToRad))
    scan.Fail("start_azimuth_deg", "must be within +-360 deg, got " + Deg(p.start_azimuth_rad));
}

// The fastest mirror a scan key may name [Hz].
constexpr double kMostMirrorFrequencyHz = 1e6;

void CheckLissajous(const SensorProfile& p, ConfigCheck& scan) {
  const auto& l = p.lissajous;
  for (const auto& [key, v] :
       {std::pair<const char*, double>{"horizontal_amplitude_deg", l.horizontal_amplitude_rad},
        {"vertical_amplitude_deg", l.vertical_amplitude_rad},
        {"horizontal_frequency_hz", l.horizontal_frequency_hz},
        {"vertical_frequency_hz", l.vertical_frequency_hz},
        {"horizontal_phase_deg", l.horizontal_phase_rad},
        {"vertical_phase_deg", l.vertical_phase_rad}}) {
    if (!Finite(v)) scan.Fail(key, "must be finite");
  }
  // Resonant MEMS mirrors run at up to tens of kHz; beyond 1 MHz the figure's phase loses all
  // precision in a frame and the ray caster is handed directions it asserts on (issue 36:
  // 1e308 aborted the run).
  for (const auto& [key, v] :
       {std::pair<const char*, double>{"horizontal_frequency_hz", l.horizontal_frequency_hz},
        {"vertical_frequency_hz", l.vertical_frequency_hz}}) {
    if (Finite(v) && !(std::fabs(v) <= kMostMirrorFrequencyHz))
      scan.Fail(key, "must be within +-1e6 Hz, got " + NumberText(v));
  }
  for (const auto& [key, v] :
       {std::pair<const char*, double>{"horizontal_amplitude_deg", l.horizontal_amplitude_rad},
        {"vertical_amplitude_deg", l.vertical_amplitude_rad}}) {
    if (Finite(v) && !(std::fabs(v) <= 90 * kDegToRad))
      scan.Fail(key, "must be within +-90 deg, got " + Deg(v));
  }
  for (const auto& [key, v] :
       {std::pair<const char*, double>{"horizontal_phase_deg", l.horizontal_phase_rad},
        {"vertical_phase_deg", l.vertical_phase_rad}}) {
    if (Finite(v) && !(std::fabs(v) <= 360 * kDegToRad))
      scan.Fail(key, "must be within +-360 deg, got " + Deg(v));
  }
  CheckRate(scan, "frame_rate_hz", p.frame_rate_hz, kMinFrameRateHz, kMaxFrameRateHz);
  CheckRate(scan, "pulse_rate_hz", l.pulse_rate_hz, kMinPulseRateHz, kMaxPulseRateHz);
  if (l.pulses < 1) scan.Fail("pulse_rate_hz", "gives less than one pulse per frame");
}

void CheckLineScan(const SensorProfile& p, ConfigCheck& scan) {
  const auto& l = p.line_scan;
  const double fov_h = 2 * l.horizontal_amplitude_rad, fov_v = 2 * l.vertical_amplitude_rad;
  if (!(fov_h > 0 && fov_h < 180 * kDegToRad))
    scan.Fail("horizontal_fov_deg", "must be in (0, 180), got " + Deg(fov_h));
  if (!(fov_v > 0 && fov_v < 180 * kDegToRad))
    scan.Fail("vertical_fov_deg", "must be in (0, 180), got " + Deg(fov_v));
  if (!(l.horizontal_step_rad > 0 && l.horizontal_step_rad <= fov_h * (1 + 1e-12)))
    scan.Fail("horizontal_step_deg", "must be in (0, fov], got " + Deg(l.horizontal_step_rad));
  if (l.lines < 1) scan.Fail("scan_lines", "must be a whole number >= 1, got 0");
  if (l.points_per_line < 1) scan.Fail("horizontal_step_deg", "gives less than one point per line");
  if (!(p.frame_rate_hz >= kMinFrameRateHz && p.frame_rate_hz <= kMaxFrameRateHz)) {
    CheckRate(scan, "frame_rate_hz", p.frame_rate_hz, kMinFrameRateHz, kMaxFrameRateHz);
  } else if (!(l.horizontal_frequency_hz > 0 &&
               (l.horizontal_frequency_hz <= kMostMirrorFrequencyHz ||
                // Too many lines: the beam count's error says so (the mirror frequency's
                // default grows with them, and would name a key the file may not hold).
                uint64_t{l.lines} * l.points_per_line > kMaxBeamsPerFrame))) {
    scan.Fail("mirror_frequency_hz",
              "must be in (0, 1e6] Hz, got " + NumberText(l.horizontal_frequency_hz));
  } else if (l.lines / (2 * l.horizontal_frequency_hz) > 1.0 / p.frame_rate_hz * (1 + 1e-12)) {
    scan.Fail("mirror_frequency_hz",
              "too low: " + std::to_string(l.lines) + " lines do not fit in one frame");
  }
}

void CheckSwath(const SensorProfile& p, ConfigCheck& scan) {
  const auto& s = p.swath;
  if (!(s.half_angle_rad > 0 && s.half_angle_rad < 90 * kDegToRad)) {
    scan.Fail("field_of_view_deg", "must be in (0, 180) deg (the full across-track angle), got " +
                                       Deg(2 * s.half_angle_rad));
  }
  if (!(s.line_period_s > 0 && Finite(s.line_period_s))) {
    scan.Fail("line_rate_hz",
              "must be positive (line period " + NumberText(s.line_period_s) + " s)");
    return;
  }
  CheckRate(scan, "line_rate_hz", 1 / s.line_period_s, kMinLineRateHz, kMaxLineRateHz);
  if (!(s.active_period_s > 0 && s.active_period_s <= s.line_period_s * (1 + 1e-12))) {
    scan.Fail("scan_efficiency",
              "must be in (0, 1], got " + NumberText(s.active_period_s / s.line_period_s));
  }
  CheckRate(scan, "frame_rate_hz", p.frame_rate_hz, kMinFrameRateHz, kMaxFrameRateHz);
  CheckPeriodsPerFrame(scan, "line_rate_hz", s.line_period_s, s.lines, p.frame_rate_hz, "lines",
                       p.scan == ScanKind::kZigzag ? 2 : 1);
  if (s.pulses_per_line < 1) scan.Fail("pulse_rate_hz", "gives fewer than one pulse per line");
}

void CheckElliptical(const SensorProfile& p, ConfigCheck& scan) {
  const auto& s = p.elliptical;
  if (!(s.off_nadir_rad > 0 && s.off_nadir_rad < 90 * kDegToRad))
    scan.Fail("off_nadir_deg", "must be in (0, 90) deg, got " + Deg(s.off_nadir_rad));
  if (!(s.revolution_period_s > 0 && Finite(s.revolution_period_s))) {
    scan.Fail("rotation_rate_hz",
              "must be positive (revolution period " + NumberText(s.revolution_period_s) + " s)");
    return;
  }
  CheckRate(scan, "rotation_rate_hz", 1 / s.revolution_period_s, kMinLineRateHz, kMaxLineRateHz);
  CheckRate(scan, "frame_rate_hz", p.frame_rate_hz, kMinFrameRateHz, kMaxFrameRateHz);
  CheckPeriodsPerFrame(scan, "rotation_rate_hz", s.revolution_period_s, s.revolutions,
                       p.frame_rate_hz, "revolutions", 1);
  if (s.pulses_per_revolution < 1)
    scan.Fail("pulse_rate_hz", "gives fewer than one pulse per revolution");
}

void CheckScan(const SensorProfile& p, ConfigCheck& scan) {
  switch (p.scan) {
    case ScanKind::kSpinning:
      CheckSpinning(p, scan);
      break;
    case ScanKind::kLissajous:
      CheckLissajous(p, scan);
      break;
    case ScanKind::kLineScan:
      CheckLineScan(p, scan);
      break;
    case ScanKind::kParallel:
    case ScanKind::kZigzag:
      CheckSwath(p, scan);
      break;
    case ScanKind::kElliptical:
      CheckElliptical(p, scan);
      break;
  }
}

// A FWHM divergence in (0, 500) mrad, held as the Gaussian's sigma in radians.
void CheckFwhm(ConfigCheck& c, const char* key, double sigma_rad) {
  const double fwhm_mrad = sigma_rad * physics::kFwhmPerSigma * 1e3;
  if (!(fwhm_mrad > 0 && fwhm_mrad < 500))
    c.Fail(key, "must be in (0, 500) mrad, got " + NumberText(fwhm_mrad));
}

void CheckFootprint(const SensorProfile& p, ConfigCheck& beam) {
  const physics::BeamFootprint& f = p.footprint;
  if (f.sub_rays < 1 || f.sub_rays > 128)
    beam.Fail("sub_rays", "must be a whole number in 1..128, got " + std::to_string(f.sub_rays));
  switch (f.kind) {
    case physics::FootprintKind::kCone:
      if (!(f.half_angle_rad >= 0 && f.half_angle_rad < 0.5)) {
        beam.Fail("divergence_mrad",
                  "must be in [0, 1000) mrad, got " + NumberText(2e3 * f.half_angle_rad));
      } else if (f.sub_rays > 1 && f.half_angle_rad == 0) {
        beam.Fail("sub_rays", "more than one sub-ray needs divergence_mrad > 0");
      }
      break;
    case physics::FootprintKind::kGaussian: {
      if (f.spot_count < 1 || f.spot_count > physics::kMaxSpots) {
        beam.Fail("spots", "must list 1.." + std::to_string(physics::kMaxSpots) + " spots, got " +
                               std::to_string(f.spot_count));
        break;
      }
      // One centred spot is written as the beam's own keys (SaveSensorProfile).
      const bool flat =
          f.spot_count == 1 && f.spots[0].h_offset_rad == 0 && f.spots[0].v_offset_rad == 0;
      double total = 0;
      for (uint32_t k = 0; k < f.spot_count; ++k) {
        const physics::GaussianSpot& s = f.spots[k];
        ConfigCheck spot = flat ? beam : beam.Sub("spots", k);
        CheckFwhm(spot, "divergence_h_fwhm_mrad", s.sigma_h_rad);
        CheckFwhm(spot, "divergence_v_fwhm_mrad", s.sigma_v_rad);
        if (!(std::abs(s.h_offset_rad) <= 0.5))
          spot.Fail("h_offset_mrad",
                    "must be within +-500 mrad, got " + NumberText(s.h_offset_rad * 1e3));
        if (!(std::abs(s.v_offset_rad) <= 0.5))
          spot.Fail("v_offset_mrad",
                    "must be within +-500 mrad, got " + NumberText(s.v_offset_rad * 1e3));
        if (!(s.power > 0)) spot.Fail("power", "must be positive, got " + NumberText(s.power));
        total += s.power;
      }
      if (!(std::abs(total - 1) <= 1e-9)) {
        beam.Fail(flat ? "divergence_h_fwhm_mrad" : "spots",
                  "the spots' powers must sum to 1 (the loader normalises them), got " +
                      NumberText(total));
      }
      break;
    }
    case physics::FootprintKind::kTable: {
      if (p.kernel_file.empty() && (p.kernel_h_file.empty() || p.kernel_v_file.empty())) {
        beam.Fail("kernel_file",
                  "a table footprint names kernel_file, or kernel_h_file and kernel_v_file");
      }
      const auto cells = static_cast<size_t>(p.kernel.nh) * p.kernel.nv;
      if (cells == 0 || p.kernel.cdf.size() != cells || p.kernel.weight.size() != cells) {
        beam.Fail(p.kernel_file.empty() ? "kernel_h_file" : "kernel_file",
                  "the kernel's sampling tables are empty or do not match its " +
                      std::to_string(p.kernel.nh) + " x " + std::to_string(p.kernel.nv) +
                      " cells (PrepareKernelSampling)");
      }
      if (!(p.kernel_tail_exponent >= 0 && p.kernel_tail_exponent <= 1)) {
        beam.Fail("kernel_tail_exponent",
                  "must be in [0, 1], got " + NumberText(p.kernel_tail_exponent));
      }
      break;
    }
  }
  const double res_mrad = p.raster_resolution_rad * 1e3;
  if (!(res_mrad >= 0.01 && res_mrad <= 100))
    beam.Fail("raster_resolution_mrad", "must be in [0.01, 100] mrad, got " + NumberText(res_mrad));
  if (p.raster_gather && !p.detector.ReadsReturnSignal()) {
    beam.Fail("gather",
              "raster gathers a return signal, which only the threshold and waveform detectors "
              "read (detector.type: threshold or waveform)");
  }
  // The raster is traced once a frame from the head's axis (TraceRasterPixel): beams that leave
  // off it would gather from where they do not start.
  if (p.raster_gather && p.beam_origin_radius_m > 0) {
    beam.Fail(
        "gather",
        "raster traces the frame from the head's axis; sub_rays traces each beam from its own "
        "origin, which beam_origin_radius_m puts off it");
  }
  if (p.detector.ReadsReturnSignal() && f.sub_rays * p.detector.max_surfaces_per_sub_ray > 128) {
    beam.Fail("sub_rays", "beam.sub_rays (" + std::to_string(f.sub_rays) +
                              ") x detector.max_surfaces_per_sub_ray (" +
                              std::to_string(p.detector.max_surfaces_per_sub_ray) +
                              ") exceeds the 128 contributions a beam's signal holds");
  }
}

// A positive number below `max` (in the key's unit).
void Positive(ConfigCheck& d, const char* key, double v, double max) {
  if (!(v > 0 && v < max))
    d.Fail(key, "must be positive and below " + NumberText(max) + ", got " + NumberText(v));
}

// The keys the threshold and waveform detectors share.
void CheckLinkKeys(const DetectorConfig& c, ConfigCheck& d) {
  Positive(d, "peak_power_w", c.link.peak_power_w, 1e6);
  Positive(d, "aperture_diameter_mm", c.link.aperture_diameter_m * 1e3, 1e4);
  if (!(c.link.optics_transmission > 0 && c.link.optics_transmission <= 1)) {
    d.Fail("optics_transmission",
           "must be a fraction in (0, 1], got " + NumberText(c.link.optics_transmission));
  }
  const double extinction = c.link.extinction_per_m * 1e3;
  if (!(extinction >= 0 && extinction < 1000))
    d.Fail("atmospheric_extinction_per_km", "must be in [0, 1000), got " + NumberText(extinction));
  if (!(c.pulse_width_ns >= 0.01 && c.pulse_width_ns < 1e4))
    d.Fail("pulse_width_ns", "must be in [0.01, 10000) ns, got " + NumberText(c.pulse_width_ns));
  if (c.max_echoes < 1 || c.max_echoes > physics::kMaxEchoesReported) {
    d.Fail("max_echoes", "must be a whole number in 1.." +
                             std::to_string(physics::kMaxEchoesReported) + ", got " +
                             std::to_string(c.max_echoes));
  } else if (c.return_mode == physics::ReturnMode::kDual && c.max_echoes < 2) {
    d.Fail("max_echoes", "dual returns need max_echoes >= 2");
  }
  if (c.max_surfaces_per_sub_ray < 1 || c.max_surfaces_per_sub_ray > 16) {
    d.Fail("max_surfaces_per_sub_ray",
           "must be a whole number in 1..16, got " + std::to_string(c.max_surfaces_per_sub_ray));
  }
  if (!(c.overlap.range_m >= 0 && c.overlap.range_m < 1000)) {
    d.Fail("overlap_range_m",
           "must be 0 (full overlap) or in (0, 1000) m, got " + NumberText(c.overlap.range_m));
  }
  if (!(c.overlap.sharpness >= 0.1 && c.overlap.sharpness <= 20))
    d.Fail("overlap_sharpness", "must be in [0.1, 20], got " + NumberText(c.overlap.sharpness));
}

void CheckThreshold(const DetectorConfig& c, ConfigCheck& d) {
  CheckLinkKeys(c, d);
  const double threshold_nw = c.threshold_w * 1e9;
  if (!(threshold_nw >= 1e-6 && threshold_nw < 1e15))
    d.Fail("threshold_nw", "must be in [1e-6, 1e15) nW, got " + NumberText(threshold_nw));
  // The walk offset sigma sqrt(2 ln(P_walk / T)) stays within 5.3 sigma.
  if (!(c.walk_reference_power_w >= c.threshold_w &&
        c.walk_reference_power_w <= 1e6 * c.threshold_w)) {
    d.Fail("walk_reference_power_nw", "must be between threshold_nw and 1e6 x threshold_nw, got " +
                                          NumberText(c.walk_reference_power_w * 1e9));
  }
  if (!(c.range_noise_sigma_m >= 0 && c.range_noise_sigma_m < 100))
    d.Fail("range_noise_sigma_m", "must be in [0, 100), got " + NumberText(c.range_noise_sigma_m));
  if (!(c.range_resolution_m == 0 || (c.range_resolution_m >= 1e-6 && c.range_resolution_m < 10))) {
    d.Fail("range_resolution_mm", "must be 0 (none) or in [0.001, 10000) mm, got " +
                                      NumberText(c.range_resolution_m * 1e3));
  }
  if (!(c.outlier_probability >= 0 && c.outlier_probability <= 1))
    d.Fail("outlier_probability", "must be in [0, 1], got " + NumberText(c.outlier_probability));
  if (!(c.signal_noise_w >= 0 && c.signal_noise_w <= c.threshold_w / 3 * (1 + 1e-12))) {
    d.Fail("signal_noise_nw", "must be in [0, threshold_nw / 3] (" +
                                  NumberText(c.threshold_w / 3 * 1e9) + " nW), got " +
                                  NumberText(c.signal_noise_w * 1e9));
  }
  if (!(c.pulse_energy_jitter >= 0 && c.pulse_energy_jitter <= 0.25)) {
    d.Fail("pulse_energy_jitter", "must be in [0, 0.25], got " + NumberText(c.pulse_energy_jitter));
  }
}

// The optional `calibration:` map, when there is one (a lab checksum or parameters).
void CheckCalibration(const CalibrationRecord& r, ConfigCheck& c) {
  if (r.lab_sha256.empty() && r.parameters.empty()) return;  // not calibrated
  if (r.lab_sha256.size() != 64 ||
      r.lab_sha256.find_first_not_of("0123456789abcdef") != std::string::npos) {
    c.Fail("lab_sha256", "must be 64 lower-case hex digits");
  }
  for (size_t i = 0; i < r.parameters.size(); ++i) {
    ConfigCheck entry = c.Sub("parameters", i);
    const CalibrationRecord::Entry& e = r.parameters[i];
    if (e.key.empty()) entry.Fail("key", "must name the profile key the value was fitted for");
    if (!std::isfinite(e.value)) entry.Fail("value", "must be finite");
    if (!(e.stddev >= 0 && std::isfinite(e.stddev)))
      entry.Fail("stddev", "must be >= 0, got " + NumberText(e.stddev));
  }
}

// The optional `intensity_gains:` map: a row per channel of a per-channel scan, over increasing
// positive ranges, every gain positive and within a factor 1000 of the median laser's.
void CheckIntensityGains(const ChannelIntensityGains& g, const SensorProfile& p, ConfigCheck& c) {
  if (g.empty()) return;
  if (p.scan != ScanKind::kSpinning) {
    c.Fail("gain", "per-channel gains need a scan with channels (spinning or laserconfig)");
    return;
  }
  if (g.range_m.size() > kMaxIntensityGainNodes)
    return c.Fail("range_m", fmt::format("{} nodes; at most {} (a curve over range needs few)",
                                         g.range_m.size(), kMaxIntensityGainNodes));
  for (size_t k = 0; k < g.range_m.size(); ++k)
    if (!(g.range_m[k] > 0 && std::isfinite(g.range_m[k])) ||
        (k > 0 && !(g.range_m[k] > g.range_m[k - 1])))
      return c.Fail("range_m", "must be positive, finite and increasing [m]");
  if (g.gain.size() != p.elevation_rad.size())
    return c.Fail("gain", fmt::format("has {} rows of {} gains; the scan has {} channels",
                                      g.gain.size(), g.range_m.size(), p.elevation_rad.size()));
  for (size_t ch = 0; ch < g.gain.size(); ++ch) {
    if (g.gain[ch].size() != g.range_m.size())
      return c.Fail("gain", fmt::format("channel {}: {} gains for {} ranges", ch, g.gain[ch].size(),
                                        g.range_m.size()));
    for (double v : g.gain[ch])
      if (!(v >= 1e-3 && v <= 1e3))
        return c.Fail("gain", fmt::format("channel {}: a gain of {} (must be in [0.001, 1000])", ch,
                                          NumberText(v)));
  }
}

// The optional `ray_drop:` map: increasing positive nodes (1 to kMaxRayDropNodes each), one
// probability in [0, 1] per (range, reflectance) node.
void CheckRayDrop(const RayDropTable& t, const SensorProfile& p, ConfigCheck& c) {
  if (t.empty() && t.range_m.empty() && t.reflectance.empty()) return;
  if (p.detector.kind == DetectorKind::kWaveform)
    return c.Fail("probability",
                  "is over a percent reading (intensity / 100); the waveform detector reports "
                  "counts");
  for (const auto& [key, nodes] :
       {std::pair{"range_m", &t.range_m}, std::pair{"reflectance", &t.reflectance}}) {
    if (nodes->empty() || nodes->size() > kMaxRayDropNodes)
      return c.Fail(
          key, fmt::format("must hold 1 to {} nodes, got {}", kMaxRayDropNodes, nodes->size()));
    for (size_t k = 0; k < nodes->size(); ++k)
      if (!((*nodes)[k] > 0 && std::isfinite((*nodes)[k])) ||
          (k > 0 && !((*nodes)[k] > (*nodes)[k - 1])))
        return c.Fail(key, "must be positive, finite and increasing");
  }
  if (t.probability.size() != t.range_m.size() * t.reflectance.size())
    return c.Fail("probability",
                  fmt::format("must hold {} x {} probabilities (range_m by reflectance), got {}",
                              t.range_m.size(), t.reflectance.size(), t.probability.size()));
  for (double v : t.probability)
    if (!(v >= 0 && v <= 1))
      return c.Fail("probability", fmt::format("{} is not in [0, 1]", NumberText(v)));
}

// The optional `blocked_directions:` map: channels of the scan, intervals inside [-180, 180]
// deg, each from < to, sorted and disjoint, kMaxBlockedIntervals at most.
void CheckBlockedDirections(const BlockedDirections& b, const SensorProfile& p, ConfigCheck& c) {
  if (b.empty()) return;
  if (b.Intervals() > kMaxBlockedIntervals)
    return c.Fail("channels", fmt::format("holds {} intervals; at most {}", b.Intervals(),
                                          kMaxBlockedIntervals));
  const size_t channels =
      p.scan == ScanKind::kSpinning ? p.elevation_rad.size() : static_cast<size_t>(-1);
  constexpr double kSlack = 1e-9;  // written in degrees and read back
  for (size_t k = 0; k < b.channel.size(); ++k) {
    if (b.channel[k].empty()) continue;
    if (k >= channels)
      return c.Fail("channels", channels == 0
                                    ? fmt::format("channel {}: the scan has no channels", k)
                                    : fmt::format("channel {}: the scan has {} channels "
                                                  "(0..{})",
                                                  k, channels, channels - 1));
    for (size_t n = 0; n < b.channel[k].size(); ++n) {
      const AzimuthInterval& i = b.channel[k][n];
      if (!(i.from_rad >= -physics::kPi - kSlack && i.to_rad <= physics::kPi + kSlack &&
            i.from_rad < i.to_rad))
        return c.Fail(
            "channels",
            fmt::format("channel {}: [{}, {}] deg must lie in [-180, 180], from < to", k,
                        NumberText(i.from_rad / kDegToRad), NumberText(i.to_rad / kDegToRad)));
      if (n > 0 && !(i.from_rad >= b.channel[k][n - 1].to_rad))
        return c.Fail("channels", fmt::format("channel {}: the intervals must be sorted and "
                                              "disjoint ([{}, ..] after [.., {}] deg)",
                                              k, NumberText(i.from_rad / kDegToRad),
                                              NumberText(b.channel[k][n - 1].to_rad / kDegToRad)));
    }
  }
}

}  // namespace

void DetectorConfig::Check(ConfigCheck& check) const {
  switch (kind) {
    case DetectorKind::kIdeal:
      break;
    case DetectorKind::kCapability:
      if (!(max_range_m > 0 && max_range_m <= kMostRangeM))
        check.Fail("max_range_m", "must be in (0, 1e6] m, got " + NumberText(max_range_m));
      if (reflectance_at_max_range > 1 && reflectance_at_max_range <= 100) {
        check.Fail("reflectance_at_max_range", "is a fraction in (0, 1], got " +
                                                   NumberText(reflectance_at_max_range) +
                                                   " (a percentage?)");
      } else if (!(reflectance_at_max_range > 0 && reflectance_at_max_range <= 1)) {
        check.Fail("reflectance_at_max_range",
                   "must be in (0, 1], got " + NumberText(reflectance_at_max_range));
      }
      // As for the threshold detector: a sigma of 100 m already scatters every return off
      // its surface (issue 36: 1e30 made every point vanish without a word).
      if (!(range_noise_sigma_m >= 0 && range_noise_sigma_m < 100))
        check.Fail("range_noise_sigma_m",
                   "must be in [0, 100), got " + NumberText(range_noise_sigma_m));
      break;
    case DetectorKind::kThreshold:
      CheckThreshold(*this, check);
      break;
    case DetectorKind::kWaveform:
      CheckLinkKeys(*this, check);
      CheckWaveformKeys(waveform, check);
      break;
  }
}

Status DetectorConfig::Validate() const {
  ConfigCheck check;
  Check(check);
  return check.ToStatus("detector");
}

void SensorProfile::Check(ConfigCheck& check) const {
  if (wavelength_nm > 0 && wavelength_nm < 20) {
    check.Fail("wavelength_nm", "must be in nanometres (200..20000), got " +
                                    NumberText(wavelength_nm) + " (micrometres?)");
  } else if (!(wavelength_nm >= 200 && wavelength_nm <= 20000)) {
    check.Fail("wavelength_nm", "must be in 200..20000 nm, got " + NumberText(wavelength_nm));
  }
  for (double v : beam_origin_m)
    if (!(Finite(v) && std::fabs(v) <= kMaxBeamOriginM))
      check.Fail("beam_origin_m", "each coordinate must be within " + NumberText(kMaxBeamOriginM) +
                                      " m of the sensor frame's origin, got [" +
                                      NumberText(beam_origin_m[0]) + ", " +
                                      NumberText(beam_origin_m[1]) + ", " +
                                      NumberText(beam_origin_m[2]) + "]");
  if (!(Finite(beam_origin_radius_m) && beam_origin_radius_m >= 0 &&
        beam_origin_radius_m <= kMaxBeamOriginM))
    check.Fail("beam_origin_radius_m", "must be in 0.." + NumberText(kMaxBeamOriginM) + " m, got " +
                                           NumberText(beam_origin_radius_m));
  else if (beam_origin_radius_m > 0 && scan != ScanKind::kSpinning)
    check.Fail("beam_origin_radius_m",
               "a beam origin that turns with the head needs a spinning scan");
  if (!(Finite(range_offset_m) && std::fabs(range_offset_m) <= kMaxBeamOriginM))
    check.Fail("range_offset_m", "must be within " + NumberText(kMaxBeamOriginM) + " m, got " +
                                     NumberText(range_offset_m));
  if (!(min_range_m >= 0 && min_range_m < kMostRangeM))
    check.Fail("min_range_m", "must be in [0, 1e6) m, got " + NumberText(min_range_m));
  if (!(max_range_m > min_range_m && max_range_m <= kMostRangeM))
    check.Fail("max_range_m",
               "must exceed min_range_m and be at most 1e6 m, got " + NumberText(max_range_m));
  ConfigCheck scan_check = check.Sub("scan");
  CheckScan(*this, scan_check);
  if (!check.ok()) return;  // the counts below need a valid pattern
  // Beams per frame, counted in 64 bits where the scan multiplies two counts.
  const uint64_t beams = scan == ScanKind::kSpinning ? uint64_t{columns} * elevation_rad.size()
                                                     : physics::ScanBeamCount(Pattern());
  if (beams == 0) {
    check.Fail("scan", "the scan pattern has no beams");
  } else if (beams > kMaxBeamsPerFrame) {
    check.Fail("scan", "the scan gives " + std::to_string(beams) + " beams per frame, more than " +
                           std::to_string(kMaxBeamsPerFrame) +
                           (scan == ScanKind::kLineScan
                                ? " (fewer scan_lines or a larger horizontal_step_deg)"
                                : " (lower the pulse rate or raise the frame rate)"));
  } else if (beams * EchoesPerBeam() > kMaxRecordsPerFrame) {
    check.Fail("detector.max_echoes",
               std::to_string(beams) + " beams x " + std::to_string(EchoesPerBeam()) +
                   " echoes is more than " + std::to_string(kMaxRecordsPerFrame) +
                   " echo records per frame");
  }
  ConfigCheck beam_check = check.Sub("beam");
  CheckFootprint(*this, beam_check);
  ConfigCheck detector_check = check.Sub("detector");
  detector.Check(detector_check);
  if (detector.kind == DetectorKind::kWaveform && check.ok())
    CheckWaveformRecord(*this, detector_check);
  ConfigCheck calibration_check = check.Sub("calibration");
  CheckCalibration(calibration, calibration_check);
  ConfigCheck gains_check = check.Sub("intensity_gains");
  CheckIntensityGains(intensity_gains, *this, gains_check);
  ConfigCheck drop_check = check.Sub("ray_drop");
  CheckRayDrop(ray_drop, *this, drop_check);
  ConfigCheck blocked_check = check.Sub("blocked_directions");
  CheckBlockedDirections(blocked_directions, *this, blocked_check);
}

Status SensorProfile::Validate() const {
  ConfigCheck check;
  Check(check);
  return check.ToStatus("sensor profile '" + name + "'");
}

}  // namespace lt
