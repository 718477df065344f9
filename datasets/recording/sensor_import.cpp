#include "lidartwin/datasets/sensor_import.h"
#include "lidartwin/base/text_file.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>
#include <vector>

#include "hesai/hesai_csv.h"
#include "lidartwin/base/atomic_file.h"
#include "lidartwin/base/message_text.h"
#include "lidartwin/base/order_statistics.h"
#include "lidartwin/datasets/hesai.h"
#include "lidartwin/datasets/osf.h"
#include "lidartwin/datasets/ouster.h"
#include "lidartwin/datasets/recording.h"
#include "lidartwin/datasets/robosense.h"
#include "lidartwin/datasets/ros_bag.h"
#include "lidartwin/datasets/velodyne.h"
#include "lidartwin/sim/sensor_profile.h"
#include "recording/packet_recording.h"
#include "rosbag/bag_recording.h"
#include "velodyne/velodyne_models.h"

namespace lt {
namespace {

constexpr double kRadToDeg = 180.0 / std::numbers::pi;

// The common part of every imported profile: a spinning head with per-channel tables.
struct SpinningTables {
  std::string name, source, notes;
  double wavelength_nm = 0, min_range_m = 0, max_range_m = 0;
  std::vector<double> elevation_deg, azimuth_offset_deg, firing_offset_us;
  uint32_t columns = 0;
  double rotation_rate_hz = 10, start_azimuth_deg = 0;
  std::array<double, 3> beam_origin_m{0, 0, 0};
  double beam_origin_radius_m = 0, range_offset_m = 0;
  double divergence_fwhm_mrad = 0;  // the data sheet's; 0: not known
};

// The profile through the schema's one writer (SaveSensorProfile, beside the loader), with
// comments naming the source.
Expected<std::string> Render(const SpinningTables& t, const SensorImportOptions& o) {
  SensorProfile p;
  p.name = t.name;
  p.wavelength_nm = t.wavelength_nm;
  p.min_range_m = t.min_range_m;
  p.max_range_m = o.max_range_m > 0 ? o.max_range_m : t.max_range_m;
  p.scan = ScanKind::kSpinning;
  for (size_t k = 0; k < t.elevation_deg.size(); ++k) {
    p.elevation_rad.push_back(t.elevation_deg[k] / kRadToDeg);
    p.azimuth_offset_rad.push_back(t.azimuth_offset_deg[k] / kRadToDeg);
    p.firing_offset_s.push_back(t.firing_offset_us[k] * 1e-6);
  }
  p.columns = t.columns;
  p.rotation_rate_hz = t.rotation_rate_hz;
  p.start_azimuth_rad = t.start_azimuth_deg / kRadToDeg;
  p.beam_origin_m = t.beam_origin_m;
  p.beam_origin_radius_m = t.beam_origin_radius_m;
  p.range_offset_m = t.range_offset_m;
  p.clockwise = true;
  if (t.divergence_fwhm_mrad > 0) {
    // The beam's Gaussian profile, traced as its central ray until sub_rays is raised (the
    // threshold detector gathers the footprint; `reproduce` does for an Ouster).
    const double sigma = t.divergence_fwhm_mrad * 1e-3 / physics::kFwhmPerSigma;
    p.footprint.kind = physics::FootprintKind::kGaussian;
    p.footprint.sub_rays = 1;
    p.footprint.spot_count = 1;
    p.footprint.spots[0] = {0, 0, sigma, sigma, 1.0};
  }
  if (o.detector == "capability") {
    // Capability model (seed 000 eq. 5): the data-sheet range on an 80 % target.
    p.detector.kind = DetectorKind::kCapability;
    p.detector.max_range_m = p.max_range_m;
    p.detector.reflectance_at_max_range = 0.8;
    p.detector.range_noise_sigma_m = 0.01;
  }
  return SaveSensorProfile(
      p, fmt::format("Imported by `lidartwin import-sensor` from {}.\n{}", t.source, t.notes));
}

// Data-sheet maximum ranges (80 % target where the sheet gives one; rounded).
double DataSheetRange(const std::string& product) {
  if (product.find("OS-0") != std::string::npos || product.find("OS0") != std::string::npos)
    return 50;
  if (product.find("OS-1") != std::string::npos || product.find("OS1") != std::string::npos)
    return 120;
  if (product.find("OS-2") != std::string::npos || product.find("OS2") != std::string::npos)
    return 240;
  return 100;
}

// Data-sheet beam divergence (FWHM) of an Ouster OS1 by its channel count, 0 where no sheet at
// hand gives it. OS1 data sheet: "Beam Divergence 0.13 deg (FWHM; 64 and 16 channel), 0.18 deg
// (FWHM; 128 channel)"; taken as circular. The OS0's and OS2's optics differ (wider and
// narrower fields of view) and a metadata file that names no product says nothing: none.
double OusterDivergenceFwhmMrad(const std::string& product, size_t channels) {
  constexpr double kMradPerDeg = 1e3 * std::numbers::pi / 180;
  const bool os1 =
      product.find("OS-1") != std::string::npos || product.find("OS1") != std::string::npos;
  if (!os1) return 0;
  if (channels == 128) return 0.18 * kMradPerDeg;
  if (channels == 64 || channels == 16) return 0.13 * kMradPerDeg;
  return 0;
}

std::string SanitisedName(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// A sensor from its own points, for scans that come without metadata (a KITTI velodyne/
// folder, whose reader numbers the scan lines as channels: datasets/scan_lines.h): each
// channel's elevation the median of its returns' over the first frames, no azimuth offsets,
// the columns of a revolution from the median azimuth step along a channel, the ranges the
// returns span. Approximate where metadata is exact: the elevations are where the returns
// lie (within the lines' spread, 0.1 deg on the KITTI drive), and a head whose beams leave
// off its axis is not seen.
constexpr size_t kScanFramesForTables = 3;
Expected<SpinningTables> FromScans(const std::filesystem::path& folder, double rate) {
  auto source = OpenRecording(folder, {});
  if (!source.ok()) return source.error();
  std::vector<std::vector<double>> elevation, step;
  double farthest = 0;
  size_t frames = 0;
  bool enough = false;
  Status read = source->ForEachFrame([&](Frame&& f) -> Status {
    if (f.channel.size() != f.size())
      return Error{folder.string() +
                   ": its scans carry no channel (laser) per return, so no sensor can be made "
                   "from them; give the sensor's metadata or a profile"};
    std::vector<std::vector<double>> azimuths;
    for (size_t i = 0; i < f.size(); ++i) {
      const uint16_t c = f.channel[i];
      if (c >= elevation.size()) elevation.resize(c + 1), step.resize(c + 1);
      if (c >= azimuths.size()) azimuths.resize(c + 1);
      const double ground = std::hypot(double(f.x_m[i]), double(f.y_m[i]));
      if (!(f.range_m[i] > 0) || !std::isfinite(f.range_m[i])) continue;
      elevation[c].push_back(std::atan2(double(f.z_m[i]), ground) * kRadToDeg);
      azimuths[c].push_back(std::atan2(double(f.y_m[i]), double(f.x_m[i])));
      farthest = std::max(farthest, double(f.range_m[i]));
    }
    for (size_t c = 0; c < azimuths.size(); ++c) {
      auto& a = azimuths[c];
      std::sort(a.begin(), a.end());
      for (size_t k = 1; k < a.size(); ++k)
        if (a[k] > a[k - 1]) step[c].push_back(a[k] - a[k - 1]);
    }
    // Enough frames: the read stops here (an error only the flag tells from a real one).
    enough = ++frames >= kScanFramesForTables;
    return enough ? Status{Error{"stopped after the frames the tables need"}} : Status{};
  });
  if (!read.ok() && !enough) return read.error();
  SpinningTables t;
  t.name = SanitisedName(source->header().sensor.empty() ? "scans" : source->header().sensor);
  t.source = folder.string() + " (its own points)";
  t.notes = "Elevations and columns measured from the scans' returns; no metadata.";
  t.wavelength_nm = source->header().wavelength_nm > 0 ? source->header().wavelength_nm : 905;
  t.min_range_m = 0.5;
  t.max_range_m = std::ceil(farthest / 10) * 10;
  std::vector<double> steps;
  for (size_t c = 0; c < elevation.size(); ++c) {
    if (elevation[c].empty())
      return Error{
          fmt::format("{}: channel {} has no return in its first {} scans; its "
                      "elevation cannot be measured",
                      folder.string(), c, frames)};
    t.elevation_deg.push_back(Median(elevation[c]));
    t.azimuth_offset_deg.push_back(0);
    t.firing_offset_us.push_back(0);
    steps.insert(steps.end(), step[c].begin(), step[c].end());
  }
  if (steps.empty()) return Error{folder.string() + ": no azimuth step between its returns"};
  t.columns = static_cast<uint32_t>(std::lround(2 * std::numbers::pi / Median(steps)));
  t.rotation_rate_hz = rate > 0 ? rate : 10;
  return t;
}

// An OSF file's embedded sensor metadata (its only lidar stream's).
Expected<OusterMetadata> OsfSensorMetadata(const std::filesystem::path& file) {
  auto osf = OpenOsf(file);
  if (!osf.ok()) return osf.error();
  auto stream = ChooseOsfStream(*osf, "");
  if (!stream.ok()) return stream.error();
  return (*stream)->sensor;
}

Expected<SpinningTables> FromOuster(const std::filesystem::path& file, double rate) {
  auto m = file.extension() == ".osf" ? OsfSensorMetadata(file)
           : LooksLikeRosBag(file)    ? ros::BagOusterMetadata(file)
                                      : LoadOusterMetadata(file);
  if (!m.ok()) return m.error();
  SpinningTables t;
  t.name = SanitisedName("ouster_" + m->product + (m->serial.empty() ? "" : "_" + m->serial));
  t.wavelength_nm = 865;  // Ouster data sheets: 865 nm
  t.min_range_m = 0.3;
  t.max_range_m = DataSheetRange(m->product);
  t.columns = m->columns_per_frame;
  t.rotation_rate_hz = rate > 0 ? rate : m->rotation_rate_hz;
  // Ouster's beam model: azimuth = encoder angle - beam_azimuth_angle, the encoder angle
  // 2 pi (1 - column / W) turning clockwise; so the offset is minus the metadata's azimuth.
  t.elevation_deg = m->altitude_deg;
  for (double a : m->azimuth_deg)
    t.azimuth_offset_deg.push_back(-a);
  t.firing_offset_us.assign(m->altitude_deg.size(), 0.0);  // a column fires at once
  t.divergence_fwhm_mrad = OusterDivergenceFwhmMrad(m->product, m->altitude_deg.size());
  // lidar_to_sensor_transform turns the lidar frame about z (180 deg on every unit so far):
  // the same turn of the head's start angle puts the simulated points in the sensor frame.
  const auto& r = m->lidar_to_sensor;
  t.start_azimuth_deg = std::atan2(r[4], r[0]) * kRadToDeg;
  // Its translation (mm) is where the lidar frame's origin, and so the beams, sit in the sensor
  // frame (Ouster's xyz: x = r cos .. + t_x, z = r sin phi + t_z; physics/ouster_beam.h).
  // Each beam leaves from beam_to_lidar's x translation out along the head's direction, its z
  // translation up (0 on every unit so far), and its range counts the x (physics/ouster_beam.h).
  t.beam_origin_m = {r[3] * 1e-3, r[7] * 1e-3, (r[11] + m->beam_origin_z_mm) * 1e-3};
  t.beam_origin_radius_m = m->beam_origin_x_mm * 1e-3;
  t.range_offset_m = m->lidar_origin_to_beam_origin_mm * 1e-3;
  t.source = file.filename().string();
  t.notes = fmt::format(
      "{} {}: {} beams, {} columns at {} Hz; the lidar frame's origin {:.1f} mm above the sensor\n"
      "# frame's, each beam's origin {:.2f} mm out from it along the head's direction.",
      m->product, m->serial, m->altitude_deg.size(), m->columns_per_frame, m->rotation_rate_hz,
      r[11], m->beam_origin_x_mm);
  return t;
}

Expected<SpinningTables> FromVelodyne(const std::filesystem::path& file, double rate) {
  auto c = LoadVelodyneCalibration(file);
  if (!c.ok()) return c.error();
  const size_t n = c->lasers.size();
  SpinningTables t;
  t.wavelength_nm = 903;
  t.min_range_m = 0.5;
  t.max_range_m = 100;
  t.rotation_rate_hz = rate > 0 ? rate : 10;
  // The model by the table (VelodyneCalibrationProduct: elevations, or 128 lasers), else by
  // the laser count (16: VLP-16, 32: HDL-32E, 64: HDL-64E), and its firing sequence (the user
  // manuals, velodyne_models.cpp): when each laser fires after its sequence starts.
  uint8_t product = VelodyneCalibrationProduct(*c);
  if (product == 0 && n == 16) product = 0x22;
  if (product == 0 && n == 32) product = 0x21;
  const VelodyneModel* model =
      n == 64 && product == 0 ? &VelodyneHdl64e() : VelodyneModelOf(product);
  if (!model || !model->timing) {
    return Error{fmt::format("{}: {} lasers; import-sensor knows the firing sequences of {}",
                             file.string(), n, VelodyneModelNames())};
  }
  const VelodyneTiming& timing = *model->timing;
  std::string short_name;
  for (const char ch : std::string(n == 16 ? "VLP-16" : model->name))
    if (std::isalnum(static_cast<unsigned char>(ch)))
      short_name += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  t.name = "velodyne_" + short_name + "_" + SanitisedName(file.stem().string());
  const double sequence_us = timing.sequence_s * 1e6;
  t.columns = static_cast<uint32_t>(std::lround(1e6 / (t.rotation_rate_hz * sequence_us)));
  for (size_t k = 0; k < n; ++k) {
    const VelodyneLaser& l = c->lasers[k];
    t.elevation_deg.push_back(l.vert_correction_rad * kRadToDeg);
    // The driver's ROS frame: azimuth (counter-clockwise from x) = rot_correction - raw
    // azimuth, the raw azimuth growing clockwise with time.
    t.azimuth_offset_deg.push_back(l.rot_correction_rad * kRadToDeg);
    t.firing_offset_us.push_back(timing.FiringOffset(static_cast<int>(k), false) * 1e6);
  }
  t.source = file.filename().string();
  t.notes = fmt::format(
      "{} lasers by laser_id; {} columns (a firing sequence of {:g} us each) at {} Hz; distance\n"
      "# and offset corrections are not modelled.",
      n, t.columns, sequence_us, t.rotation_rate_hz);
  return t;
}

Expected<SpinningTables> FromHesai(const std::filesystem::path& file,
                                   const SensorImportOptions& o) {
  auto angles = LoadHesaiCalibration(file);
  if (!angles.ok()) return angles.error();
  const size_t n = angles->elevation_deg.size();
  SpinningTables t;
  t.name = "hesai_" + SanitisedName(file.stem().string());
  t.wavelength_nm = 905;
  t.min_range_m = 0.3;
  t.max_range_m = 200;
  t.rotation_rate_hz = o.rotation_rate_hz > 0 ? o.rotation_rate_hz : 10;
  t.columns = static_cast<uint32_t>(std::lround(360.0 / (0.2 * t.rotation_rate_hz / 10)));
  t.elevation_deg = angles->elevation_deg;
  // Hesai's azimuth corrections are clockwise-positive; ours count counter-clockwise.
  for (double a : angles->azimuth_offset_deg)
    t.azimuth_offset_deg.push_back(-a);
  t.firing_offset_us.assign(n, 0.0);
  std::string fire_note = "no fire-time file: all channels of a column fire together";
  if (!o.firetimes.empty()) {
    auto fire = LoadHesaiFiretimes(o.firetimes);
    if (!fire.ok()) return fire.error();
    const std::vector<double>& us = *fire;
    if (us.size() != n)
      return Error{fmt::format("{}: fire times for {} channels, the angles have {}",
                               o.firetimes.string(), us.size(), n)};
    // The file gives each channel's time relative to the block; only differences matter.
    const double first = *std::min_element(us.begin(), us.end());
    for (size_t k = 0; k < n; ++k)
      t.firing_offset_us[k] = us[k] - first;
    fire_note = "fire times from " + o.firetimes.filename().string() + ", shifted to start at 0";
  }
  t.source = file.filename().string();
  t.notes = fmt::format("{} channels, {} columns (0.2 deg at 10 Hz) at {} Hz; {}.", n, t.columns,
                        t.rotation_rate_hz, fire_note);
  return t;
}

// RoboSense: the angle CSV ("vertical,horizontal" a laser, 0.01 deg as the driver keeps them)
// and the firing table of a Helios-16P (16 lines) or a Helios (32; an RS-LiDAR-32's pairs fire
// within the same 55.5 us, in another order: its notes say so).
// `file` is the angle file or the recording whose DIFOP packet gave the angles.
SpinningTables FromRobosense(const RobosenseCalibration& c, const std::filesystem::path& file,
                             double rate) {
  SpinningTables t;
  t.name = "robosense_" + SanitisedName(file.stem().string());
  t.wavelength_nm = 905;
  t.min_range_m = 0.2;  // the driver's limits (datasets/robosense.h)
  t.max_range_m = 200;
  t.rotation_rate_hz = rate > 0 ? rate : c.rotation_rate_hz > 0 ? c.rotation_rate_hz : 10;
  // A block of 0.2 deg at 600 rpm (the unit's azimuth step), one column a block.
  t.columns = static_cast<uint32_t>(std::lround(360.0 / (0.2 * t.rotation_rate_hz / 10)));
  for (size_t k = 0; k < c.vertical_cdeg.size(); ++k) {
    t.elevation_deg.push_back(c.vertical_cdeg[k] / 100.0);
    // The horizontal correction turns clockwise, as the block azimuth does; ours count
    // counter-clockwise.
    t.azimuth_offset_deg.push_back(-c.horizontal_cdeg[k] / 100.0);
  }
  t.firing_offset_us = RobosenseFiringUs(c.vertical_cdeg.size());
  // The Helios family's lens lies 34.98 mm out along the head's direction, and the range is
  // measured from it (the driver's RX; datasets/robosense: x = d cos(v) cos(theta_f) +
  // RX cos(theta)).
  t.beam_origin_radius_m = kHeliosLensOffsetM;
  t.source = file.filename().string();
  t.notes = fmt::format(
      "{} lasers ({}'s firing table), {} columns at {} Hz; each beam leaves from the lens, "
      "{:.2f} mm out along the head's direction.",
      c.vertical_cdeg.size(), c.vertical_cdeg.size() == 32 ? "a Helios" : "a Helios-16P", t.columns,
      t.rotation_rate_hz, kHeliosLensOffsetM * 1e3);
  if (c.file != file) t.notes += " The angles are the DIFOP packet's at " + c.file.string() + ".";
  return t;
}

}  // namespace

void SensorImportOptions::Check(ConfigCheck& check) const {
  if (detector != "ideal" && detector != "capability")
    check.Fail("detector", "'" + detector + "': expected ideal or capability");
  if (!(rotation_rate_hz >= 0 && std::isfinite(rotation_rate_hz))) {
    check.Fail("rotation_rate_hz",
               "must be positive (or 0: from the metadata), got " + NumberText(rotation_rate_hz));
  }
  if (!(max_range_m >= 0 && std::isfinite(max_range_m))) {
    check.Fail("max_range_m",
               "must be positive (or 0: the data-sheet range), got " + NumberText(max_range_m));
  }
}

Status SensorImportOptions::Validate() const {
  ConfigCheck check;
  Check(check);
  return check.ToStatus("import-sensor options");
}

Expected<std::string> ImportSensorProfile(const std::filesystem::path& metadata,
                                          const SensorImportOptions& options) {
  if (Status s = options.Validate(); !s.ok()) return s.error();
  std::string ext = metadata.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
  Expected<SpinningTables> t = Error{""};
  std::error_code ec;
  if (LooksLikeRosBag(metadata)) {
    // An Ouster bag's metadata topic, or a RoboSense unit's DIFOP packets.
    auto robosense = ros::BagRobosenseCalibration(metadata, options.topic);
    if (!robosense.ok()) return robosense.error();
    if (*robosense)
      t = FromRobosense(**robosense, metadata, options.rotation_rate_hz);
    else
      t = FromOuster(metadata, options.rotation_rate_hz);
  } else if (ext == ".pcap" || ext == ".pcapng") {
    auto robosense = RobosenseCaptureCalibration(PcapPackets(metadata));
    if (!robosense.ok()) return PcapWithoutSidecar(metadata, robosense.message());
    t = FromRobosense(*robosense, metadata, options.rotation_rate_hz);
  } else if (ext == ".json" || ext == ".osf") {
    t = FromOuster(metadata, options.rotation_rate_hz);
  } else if (std::filesystem::is_directory(metadata, ec)) {
    t = FromScans(metadata, options.rotation_rate_hz);
  } else if (ext == ".yaml" || ext == ".yml" || ext == ".xml") {
    t = FromVelodyne(metadata, options.rotation_rate_hz);
  } else if (ext == ".dat") {
    return Error{metadata.string() +
                 ": a Hesai AT128's angle correction: the AT128 sweeps a mirror, not a spinning "
                 "fan of lasers, and sensor profiles describe spinning units only"};
  } else if (ext == ".csv") {
    // Hesai's angle CSV has three columns, RoboSense's two.
    t = FromHesai(metadata, options);
    if (!t.ok() && options.firetimes.empty()) {
      auto robosense = LoadRobosenseCalibration(metadata);
      if (robosense.ok()) t = FromRobosense(*robosense, metadata, options.rotation_rate_hz);
    }
  } else {
    return Error{
        fmt::format("{}: unknown metadata type '{}' (expected Ouster .json, .osf or a bag with "
                    "its metadata topic, Velodyne .yaml or db.xml, Hesai or RoboSense .csv, a "
                    "RoboSense Helios's pcap or bag)",
                    metadata.string(), ext)};
  }
  if (!t.ok()) return t.error();
  if (!options.firetimes.empty() && ext != ".csv")
    return Error{"firetimes: a fire-time file is for Hesai angle-correction CSVs only"};
  return Render(*t, options);
}

Expected<ImportedSensor> ImportSensorProfileTo(const std::filesystem::path& metadata,
                                               const SensorImportOptions& options,
                                               const std::filesystem::path& out) {
  auto yaml = ImportSensorProfile(metadata, options);
  if (!yaml.ok()) return yaml.error();
  auto profile = ParseSensorProfile(*yaml, out);
  if (!profile.ok()) return Error{"the imported profile does not load: " + profile.message()};
  if (Status s = WriteTextFileAtomically(out, *yaml); !s.ok()) return s.error();
  return ImportedSensor{profile->name, profile->BeamCount()};
}

}  // namespace lt
