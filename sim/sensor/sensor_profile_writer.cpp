// SaveSensorProfile: the one writer of the sensor profile schema, beside its loader
// (sensor_profile.cpp; house rule 13). Every key is the loader's, with its unit; numbers are
// written with 17 significant digits so that a profile reads back to the same doubles.
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <sstream>

#include "lidartwin/sim/sensor_profile.h"
#include "sensor/profile_keys.h"
#include "sensor/waveform_profile.h"

namespace lt {

namespace {

using physics::kDegToRad;

using profile_keys::Scaled;

void WriteScan(YAML::Emitter& e, const SensorProfile& p) {
  e << YAML::Key << "scan" << YAML::Value << YAML::BeginMap;
  switch (p.scan) {
    case ScanKind::kSpinning:
      e << YAML::Key << "type" << YAML::Value << "spinning";
      e << YAML::Key << "elevation_deg" << YAML::Value << YAML::Flow
        << Scaled(p.elevation_rad, 1 / kDegToRad);
      e << YAML::Key << "azimuth_offset_deg" << YAML::Value << YAML::Flow
        << Scaled(p.azimuth_offset_rad, 1 / kDegToRad);
      e << YAML::Key << "firing_offset_us" << YAML::Value << YAML::Flow
        << Scaled(p.firing_offset_s, 1e6);
      e << YAML::Key << "columns_per_revolution" << YAML::Value << p.columns;
      e << YAML::Key << "rotation_rate_hz" << YAML::Value << p.rotation_rate_hz;
      e << YAML::Key << "clockwise" << YAML::Value << p.clockwise;
      e << YAML::Key << "start_azimuth_deg" << YAML::Value << p.start_azimuth_rad / kDegToRad;
      break;
    case ScanKind::kLissajous: {
      const auto& l = p.lissajous;
      e << YAML::Key << "type" << YAML::Value << "lissajous";
      e << YAML::Key << "horizontal_amplitude_deg" << YAML::Value
        << l.horizontal_amplitude_rad / kDegToRad;
      e << YAML::Key << "vertical_amplitude_deg" << YAML::Value
        << l.vertical_amplitude_rad / kDegToRad;
      e << YAML::Key << "horizontal_frequency_hz" << YAML::Value << l.horizontal_frequency_hz;
      e << YAML::Key << "vertical_frequency_hz" << YAML::Value << l.vertical_frequency_hz;
      e << YAML::Key << "horizontal_phase_deg" << YAML::Value << l.horizontal_phase_rad / kDegToRad;
      e << YAML::Key << "vertical_phase_deg" << YAML::Value << l.vertical_phase_rad / kDegToRad;
      e << YAML::Key << "pulse_rate_hz" << YAML::Value << l.pulse_rate_hz;
      e << YAML::Key << "frame_rate_hz" << YAML::Value << p.frame_rate_hz;
      break;
    }
    case ScanKind::kLineScan: {
      const auto& l = p.line_scan;
      e << YAML::Key << "type" << YAML::Value << "line_scan";
      e << YAML::Key << "horizontal_fov_deg" << YAML::Value
        << 2 * l.horizontal_amplitude_rad / kDegToRad;
      e << YAML::Key << "vertical_fov_deg" << YAML::Value
        << 2 * l.vertical_amplitude_rad / kDegToRad;
      e << YAML::Key << "scan_lines" << YAML::Value << l.lines;
      e << YAML::Key << "horizontal_step_deg" << YAML::Value << l.horizontal_step_rad / kDegToRad;
      e << YAML::Key << "frame_rate_hz" << YAML::Value << p.frame_rate_hz;
      e << YAML::Key << "mirror_frequency_hz" << YAML::Value << l.horizontal_frequency_hz;
      break;
    }
    case ScanKind::kParallel:
    case ScanKind::kZigzag: {
      const auto& s = p.swath;
      e << YAML::Key << "type" << YAML::Value
        << (p.scan == ScanKind::kParallel ? "parallel" : "zigzag");
      e << YAML::Key << "field_of_view_deg" << YAML::Value << 2 * s.half_angle_rad / kDegToRad;
      e << YAML::Key << "line_rate_hz" << YAML::Value << 1 / s.line_period_s;
      e << YAML::Key << "pulse_rate_hz" << YAML::Value << s.pulses_per_line / s.active_period_s;
      e << YAML::Key << "scan_efficiency" << YAML::Value << s.active_period_s / s.line_period_s;
      e << YAML::Key << "frame_rate_hz" << YAML::Value << p.frame_rate_hz;
      break;
    }
    case ScanKind::kElliptical: {
      const auto& s = p.elliptical;
      e << YAML::Key << "type" << YAML::Value << "elliptical";
      e << YAML::Key << "off_nadir_deg" << YAML::Value << s.off_nadir_rad / kDegToRad;
      e << YAML::Key << "rotation_rate_hz" << YAML::Value << 1 / s.revolution_period_s;
      e << YAML::Key << "pulse_rate_hz" << YAML::Value
        << s.pulses_per_revolution / s.revolution_period_s;
      e << YAML::Key << "frame_rate_hz" << YAML::Value << p.frame_rate_hz;
      break;
    }
  }
  e << YAML::EndMap;
}

void WriteSpot(YAML::Emitter& e, const physics::GaussianSpot& s, bool with_offsets) {
  if (with_offsets) {
    e << YAML::Key << "h_offset_mrad" << YAML::Value << s.h_offset_rad * 1e3;
    e << YAML::Key << "v_offset_mrad" << YAML::Value << s.v_offset_rad * 1e3;
  }
  e << YAML::Key << "divergence_h_fwhm_mrad" << YAML::Value
    << s.sigma_h_rad * physics::kFwhmPerSigma * 1e3;
  e << YAML::Key << "divergence_v_fwhm_mrad" << YAML::Value
    << s.sigma_v_rad * physics::kFwhmPerSigma * 1e3;
}

void WriteBeam(YAML::Emitter& e, const SensorProfile& p) {
  const auto& f = p.footprint;
  e << YAML::Key << "beam" << YAML::Value << YAML::BeginMap;
  switch (f.kind) {
    case physics::FootprintKind::kCone:
      e << YAML::Key << "footprint" << YAML::Value << "cone";
      e << YAML::Key << "divergence_mrad" << YAML::Value << 2e3 * f.half_angle_rad;
      break;
    case physics::FootprintKind::kGaussian:
      e << YAML::Key << "footprint" << YAML::Value << "gaussian";
      if (f.spot_count == 1 && f.spots[0].h_offset_rad == 0 && f.spots[0].v_offset_rad == 0) {
        WriteSpot(e, f.spots[0], false);
      } else {
        e << YAML::Key << "spots" << YAML::Value << YAML::BeginSeq;
        for (uint32_t k = 0; k < f.spot_count; ++k) {
          e << YAML::Flow << YAML::BeginMap;
          WriteSpot(e, f.spots[k], true);
          e << YAML::Key << "power" << YAML::Value << f.spots[k].power;
          e << YAML::EndMap;
        }
        e << YAML::EndSeq;
      }
      break;
    case physics::FootprintKind::kTable:
      e << YAML::Key << "footprint" << YAML::Value << "table";
      if (!p.kernel_file.empty()) {
        e << YAML::Key << "kernel_file" << YAML::Value << p.kernel_file;
      } else {
        e << YAML::Key << "kernel_h_file" << YAML::Value << p.kernel_h_file;
        e << YAML::Key << "kernel_v_file" << YAML::Value << p.kernel_v_file;
      }
      e << YAML::Key << "kernel_tail_exponent" << YAML::Value << p.kernel_tail_exponent;
      break;
  }
  e << YAML::Key << "sub_rays" << YAML::Value << f.sub_rays;
  e << YAML::Key << "mode" << YAML::Value
    << profile_keys::NameOf(profile_keys::kDivergenceModes, f.mode);
  e << YAML::Key << "gather" << YAML::Value << (p.raster_gather ? "raster" : "sub_rays");
  e << YAML::Key << "raster_resolution_mrad" << YAML::Value << p.raster_resolution_rad * 1e3;
  e << YAML::EndMap;
}

// The keys the threshold and waveform detectors share (sensor_profile.cpp, ReadLinkKeys).
void WriteLinkKeys(YAML::Emitter& e, const DetectorConfig& d) {
  e << YAML::Key << "peak_power_w" << YAML::Value << d.link.peak_power_w;
  e << YAML::Key << "aperture_diameter_mm" << YAML::Value << d.link.aperture_diameter_m * 1e3;
  e << YAML::Key << "optics_transmission" << YAML::Value << d.link.optics_transmission;
  e << YAML::Key << "atmospheric_extinction_per_km" << YAML::Value << d.link.extinction_per_m * 1e3;
  e << YAML::Key << "pulse_width_ns" << YAML::Value << d.pulse_width_ns;
  e << YAML::Key << "return_mode" << YAML::Value
    << profile_keys::NameOf(profile_keys::kReturnModes, d.return_mode);
  e << YAML::Key << "max_echoes" << YAML::Value << d.max_echoes;
  e << YAML::Key << "max_surfaces_per_sub_ray" << YAML::Value << d.max_surfaces_per_sub_ray;
  e << YAML::Key << "overlap_range_m" << YAML::Value << d.overlap.range_m;
  e << YAML::Key << "overlap_sharpness" << YAML::Value << d.overlap.sharpness;
}

void WriteDetector(YAML::Emitter& e, const SensorProfile& p) {
  const DetectorConfig& d = p.detector;
  e << YAML::Key << "detector" << YAML::Value << YAML::BeginMap;
  switch (d.kind) {
    case DetectorKind::kIdeal:
      e << YAML::Key << "type" << YAML::Value << "ideal";
      break;
    case DetectorKind::kCapability:
      e << YAML::Key << "type" << YAML::Value << "capability";
      e << YAML::Key << "max_range_m" << YAML::Value << d.max_range_m;
      e << YAML::Key << "reflectance_at_max_range" << YAML::Value << d.reflectance_at_max_range;
      e << YAML::Key << "range_noise_sigma_m" << YAML::Value << d.range_noise_sigma_m;
      break;
    case DetectorKind::kThreshold:
      e << YAML::Key << "type" << YAML::Value << "threshold";
      WriteLinkKeys(e, d);
      e << YAML::Key << "threshold_nw" << YAML::Value << d.threshold_w * 1e9;
      e << YAML::Key << "range_mode" << YAML::Value
        << profile_keys::NameOf(profile_keys::kEchoRanges, d.echo_range);
      e << YAML::Key << "walk_reference_power_nw" << YAML::Value << d.walk_reference_power_w * 1e9;
      e << YAML::Key << "range_noise_sigma_m" << YAML::Value << d.range_noise_sigma_m;
      e << YAML::Key << "range_resolution_mm" << YAML::Value << d.range_resolution_m * 1e3;
      e << YAML::Key << "outlier_probability" << YAML::Value << d.outlier_probability;
      e << YAML::Key << "signal_noise_nw" << YAML::Value << d.signal_noise_w * 1e9;
      e << YAML::Key << "pulse_energy_jitter" << YAML::Value << d.pulse_energy_jitter;
      break;
    case DetectorKind::kWaveform:
      e << YAML::Key << "type" << YAML::Value << "waveform";
      WriteLinkKeys(e, d);
      WriteWaveformKeys(e, d.waveform);
      break;
  }
  e << YAML::EndMap;
}

void WriteCalibrationRecord(YAML::Emitter& e, const CalibrationRecord& r) {
  if (r.lab_sha256.empty()) return;
  e << YAML::Key << "calibration" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "lab" << YAML::Value << r.lab;
  e << YAML::Key << "lab_sha256" << YAML::Value << r.lab_sha256;
  e << YAML::Key << "sensor_serial" << YAML::Value << r.sensor_serial;
  e << YAML::Key << "date_utc" << YAML::Value << r.date_utc;
  e << YAML::Key << "parameters" << YAML::Value << YAML::BeginSeq;
  for (const auto& p : r.parameters) {
    e << YAML::Flow << YAML::BeginMap;
    e << YAML::Key << "key" << YAML::Value << p.key;
    e << YAML::Key << "value" << YAML::Value << p.value;
    e << YAML::Key << "stddev" << YAML::Value << p.stddev;
    e << YAML::Key << "fit" << YAML::Value << p.fit;
    e << YAML::EndMap;
  }
  e << YAML::EndSeq << YAML::EndMap;
}

void WriteIntensityGains(YAML::Emitter& e, const ChannelIntensityGains& g) {
  if (g.empty()) return;
  e << YAML::Key << "intensity_gains" << YAML::Value << YAML::BeginMap;
  if (!g.source.empty()) e << YAML::Key << "source" << YAML::Value << g.source;
  e << YAML::Key << "range_m" << YAML::Value << YAML::Flow << g.range_m;
  // One row per channel, row-major (ReadIntensityGains).
  e << YAML::Key << "gain" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const auto& row : g.gain)
    for (double v : row)
      e << v;
  e << YAML::EndSeq << YAML::EndMap;
}

void WriteRayDrop(YAML::Emitter& e, const RayDropTable& t) {
  if (t.empty()) return;
  e << YAML::Key << "ray_drop" << YAML::Value << YAML::BeginMap;
  if (!t.source.empty()) e << YAML::Key << "source" << YAML::Value << t.source;
  e << YAML::Key << "decision" << YAML::Value
    << profile_keys::NameOf(profile_keys::kRayDropDecisions, t.decision);
  e << YAML::Key << "range_m" << YAML::Value << YAML::Flow << t.range_m;
  e << YAML::Key << "reflectance" << YAML::Value << YAML::Flow << t.reflectance;
  e << YAML::Key << "probability" << YAML::Value << YAML::Flow << t.probability;
  e << YAML::EndMap;
}

// Degrees, as read (ReadBlockedDirections), one flow line per channel.
void WriteBlockedDirections(YAML::Emitter& e, const BlockedDirections& b) {
  if (b.empty()) return;
  e << YAML::Key << "blocked_directions" << YAML::Value << YAML::BeginMap;
  if (!b.source.empty()) e << YAML::Key << "source" << YAML::Value << b.source;
  e << YAML::Key << "channels" << YAML::Value << YAML::BeginSeq;
  for (size_t k = 0; k < b.channel.size(); ++k) {
    if (b.channel[k].empty()) continue;
    e << YAML::Flow << YAML::BeginMap << YAML::Key << "channel" << YAML::Value << k << YAML::Key
      << "azimuth_deg" << YAML::Value << YAML::BeginSeq;
    for (const AzimuthInterval& i : b.channel[k])
      e << YAML::BeginSeq << i.from_rad / physics::kDegToRad << i.to_rad / physics::kDegToRad
        << YAML::EndSeq;
    e << YAML::EndSeq << YAML::EndMap;
  }
  e << YAML::EndSeq << YAML::EndMap;
}

}  // namespace

std::string SaveSensorProfile(const SensorProfile& p, const std::string& header) {
  YAML::Emitter e;
  e.SetDoublePrecision(17);
  e << YAML::BeginMap;
  e << YAML::Key << "name" << YAML::Value << p.name;
  e << YAML::Key << "wavelength_nm" << YAML::Value << p.wavelength_nm;
  e << YAML::Key << "min_range_m" << YAML::Value << p.min_range_m;
  e << YAML::Key << "max_range_m" << YAML::Value << p.max_range_m;
  if (p.beam_origin_m != std::array<double, 3>{0, 0, 0}) {
    e << YAML::Key << "beam_origin_m" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (double v : p.beam_origin_m)
      e << v;
    e << YAML::EndSeq;
  }
  if (p.beam_origin_radius_m != 0)
    e << YAML::Key << "beam_origin_radius_m" << YAML::Value << p.beam_origin_radius_m;
  if (p.range_offset_m != 0) e << YAML::Key << "range_offset_m" << YAML::Value << p.range_offset_m;
  WriteScan(e, p);
  WriteBeam(e, p);
  WriteDetector(e, p);
  WriteCalibrationRecord(e, p.calibration);
  WriteIntensityGains(e, p.intensity_gains);
  WriteRayDrop(e, p.ray_drop);
  WriteBlockedDirections(e, p.blocked_directions);
  e << YAML::EndMap;
  std::string out;
  std::istringstream lines(header);
  for (std::string line; std::getline(lines, line);)
    out += "# " + line + "\n";
  return out + e.c_str() + "\n";
}

}  // namespace lt
