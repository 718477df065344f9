// Sensor profile: scan pattern, optics and detector of one LiDAR, loaded from YAML
// (configs/README.md lists every key with its unit and default).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lidartwin/base/config_check.h"
#include "lidartwin/base/status.h"
#include "lidartwin/physics/beam_footprint.h"
#include "lidartwin/physics/beam_response.h"
#include "lidartwin/physics/link_budget.h"
#include "lidartwin/physics/return_signal.h"
#include "lidartwin/physics/scan_pattern.h"
#include "lidartwin/sim/beam_kernel.h"

namespace lt {

using ScanKind = physics::ScanKind;
using DetectorKind = physics::DetectorModel;

// The waveform detector's keys (seed 002 sec. 5; configs/README.md, "waveform"), in the units
// of the file.
struct WaveformConfig {
  double sample_interval_ns = 1;
  uint32_t samples = 2048;
  uint32_t pretrigger_samples = 64;
  double internal_reflection_delay_ns = 2;
  double internal_reflection_nw = 0;  // required: ranging is relative to it
  double optical_bandwidth_nm = 30;   // band-pass around the wavelength
  double receiver_fov_mrad = 3;       // full angle of the field the sunlight comes from
  double photon_detection_efficiency = 0.25;
  double dark_count_rate_khz = 100;
  double sipm_cells = 0;  // microcells, 0: no saturation
  double sipm_recovery_ns = 20;
  double sipm_gain = 1e6;    // electrons per fired cell
  double sipm_pulse_ns = 1;  // decay of a cell's current pulse
  double transimpedance_ohm = 50;
  std::vector<double> circuit_poles_mhz{150};
  std::vector<double> circuit_zeros_mhz;
  // A measured front end instead of the three keys above (physics/circuit.h): H_c(f) at
  // frequencies rising from 0, gain and phase; empty: the pole-zero circuit.
  struct ResponseRows {
    std::vector<double> frequency_mhz, gain_ohm, phase_deg;
  };
  ResponseRows circuit_response;
  double baseline_mv = 100;
  double thermal_noise_mv = 1;
  bool shot_noise = true;
  double threshold_mv = 5;
  double noise_threshold_factor = 5;
  double internal_window_ns = 20;
  double full_scale_mv = 2000;
  double intensity_max = 4096;
};

struct DetectorConfig {
  DetectorKind kind = DetectorKind::kIdeal;
  // capability (seed 000 sec. II-D): d_max and R_L,max of eq. (5).
  double max_range_m = 0;
  double reflectance_at_max_range = 0;
  double range_noise_sigma_m = 0;  // Gaussian range noise, capability and threshold
  // threshold (seed 004 sec. II-C, seed 002 eq. 2): link budget, pulse, threshold, echoes.
  physics::LinkBudget link{0, 0, 1, 0};
  double pulse_width_ns = 0;  // FWHM of the emitted Gaussian pulse
  double threshold_w = 0;
  physics::EchoRange echo_range = physics::EchoRange::kPeak;
  physics::ReturnMode return_mode = physics::ReturnMode::kStrongest;
  uint32_t max_echoes = 2;
  double walk_reference_power_w = 0;
  uint32_t max_surfaces_per_sub_ray = 4;
  double range_resolution_m = 0;
  double outlier_probability = 0;
  // Receiver noise: sigma of the per-pulse Gaussian noise on the signal at the comparator
  // (physics/detection_probability.h, NoisyThreshold), 0: noiseless.
  double signal_noise_w = 0;
  // Pulse-to-pulse jitter of the emitted energy: every received power of a pulse is scaled by
  // 1 + j z, z standard normal (physics/link_budget.h, PulseEnergyFactor); 0: none.
  double pulse_energy_jitter = 0;
  // Near-field overlap O(R) = 1 - exp(-(R / R_o)^k) on every received power (link_budget.h).
  physics::Overlap overlap{0, 2};
  WaveformConfig waveform;  // the waveform detector's own keys

  // Threshold and waveform detectors: echoes from the beam's return signal, K per beam.
  bool ReadsReturnSignal() const { return physics::ReadsReturnSignal(kind); }

  // The ranges of the detector keys of its type (configs/README.md), by key within
  // `detector` and in the key's unit (threshold_nw, aperture_diameter_mm, ...).
  void Check(ConfigCheck& check) const;
  Status Validate() const;
};

// Frames larger than this are refused when a profile is loaded (a frame's records are held
// in memory at once): 16 Mi beams, 64 Mi echo records (a 64-byte record each: 4 GiB).
inline constexpr uint64_t kMaxBeamsPerFrame = uint64_t{1} << 24;
// A spinning head turns at 0.1..1000 Hz (products: 5..20 Hz): a slower one makes frames of
// hours, a faster one firing periods below a nanosecond.
inline constexpr double kMinRotationRateHz = 0.1;
inline constexpr double kMaxRotationRateHz = 1000;
// Frames of the other patterns last 0.1 ms..1000 s (an airborne swath frame of minutes; a
// flash at 10 kHz); pulses come at 1 Hz..10 GHz; airborne scan lines and mirror rotations at
// 1 mHz..1 MHz. Beyond these, times of a frame lose their precision or run past the range a
// double tells apart (issue 36: a frame rate of 1e-308 Hz gave frame times of 1e308 s and
// directions of NaN).
inline constexpr double kMinFrameRateHz = 1e-3, kMaxFrameRateHz = 1e4;
inline constexpr double kMinPulseRateHz = 1, kMaxPulseRateHz = 1e10;
inline constexpr double kMinLineRateHz = 1e-3, kMaxLineRateHz = 1e6;
inline constexpr uint64_t kMaxRecordsPerFrame = uint64_t{1} << 26;
// A lidar's beams leave within a metre of its reference point (Ouster: 36 mm).
inline constexpr double kMaxBeamOriginM = 1.0;

// Where a profile's fitted values came from (`lidartwin calibrate`): the lab folder, its
// checksum, and each fitted key with its standard deviation. Carried, not simulated.
struct CalibrationRecord {
  struct Entry {
    std::string key;  // profile key path, e.g. detector.threshold_nw
    double value = 0;
    double stddev = 0;  // 1 sigma, from the fit's covariance
    std::string fit;    // which fit gave it
  };
  std::string lab;         // the lab folder as named on the command line
  std::string lab_sha256;  // empty: the profile is not calibrated
  std::string sensor_serial;
  std::string date_utc;  // ISO 8601
  std::vector<Entry> parameters;
};

// Per-laser gains of the reported intensity (issue 40): each channel's readout relative to the
// median laser's, over range, as the field calibration fits them without targets
// (reconstruct/beam_intensity_fit.h, after Levinson & Thrun 2010 and Steder et al. 2015). The
// simulator multiplies every return's reported intensity by its channel's gain at its range,
// linear in (ln R, ln g) between the nodes and held beyond them. A readout gain: detection is
// unchanged. Empty: every gain 1.
inline constexpr size_t kMaxIntensityGainNodes = 64;

struct ChannelIntensityGains {
  std::vector<double> range_m;            // the nodes [m], increasing
  std::vector<std::vector<double>> gain;  // [channel][node], positive
  std::string source;                     // what they were fitted from
  bool empty() const { return gain.empty(); }
  double At(size_t channel, double range_m) const;  // 1 for a channel not in the table
};

// The (ln R, ln g) interpolation of one channel's row at `range_m` (ChannelIntensityGains::At,
// and the field fit's own gains).
double InterpolateChannelGain(const std::vector<double>& nodes_m, const std::vector<double>& row,
                              double range_m);

// Ray drop learned from recordings (issue 41): the probability that a return the detector kept
// goes unreported, over range and apparent reflectance (R0 cos theta: the reported intensity
// over 100, with the per-laser gains; a percent reading, so not with the waveform detector's
// counts), as reconstruct/ray_drop_fit.h fits it on a recording's
// frames (a return in one frame, its direction in another: dropped or not). Bilinear in
// (ln R, ln a) between the nodes and held beyond them. What the simulator does with it:
// kSample drops each return with that probability (a draw per return, deterministic per seed:
// datasets whose drops look like the sensor's); kMostLikely drops those more likely dropped
// than not (a re-simulation of one frame scored return by return). Empty: nothing dropped.
inline constexpr size_t kMaxRayDropNodes = 64;

struct RayDropTable {
  enum class Decision { kSample, kMostLikely };
  std::vector<double> range_m, reflectance;  // nodes, increasing, positive
  std::vector<double> probability;           // [range node][reflectance node], in [0, 1]
  Decision decision = Decision::kSample;
  std::string source;  // what it was fitted from
  bool empty() const { return probability.empty(); }
  double At(double range_m, double apparent_reflectance) const;
};

// Directions the sensor returned nothing from (issue 41): per channel, intervals of the beam's
// azimuth (the scan's own azimuth of the beam, atan2(y, x) of its direction in the sensor
// frame, radians in [-pi, pi]) in which every return is dropped, on both backends alike
// (sim/internal/beam_record.h, ApplyRayDrop). `reproduce` finds them in the reconstruction
// frames (reconstruct/ray_drop_fit.h, FindBlockedDirections): the mount or the vehicle under the
// lowest beams, a window or a black surface that no frame returned from, as seen from about
// where the sensor stood. Unlike the table above they hold for one place or one mount, not for
// the sensor.
inline constexpr size_t kMaxBlockedIntervals = size_t{1} << 20;
inline constexpr size_t kMaxBlockedChannels = 65536;  // a frame's channel is 16 bits

struct AzimuthInterval {
  double from_rad = 0, to_rad = 0;  // from < to
};

struct BlockedDirections {
  // [channel]: intervals sorted and disjoint; channels past the end have none.
  std::vector<std::vector<AzimuthInterval>> channel;
  std::string source;  // what they were found in
  bool empty() const;
  size_t Intervals() const;
  // Whether the beam of `channel` at `azimuth_rad` (any angle: wrapped into [-pi, pi)) is blocked.
  bool Blocked(uint32_t channel, double azimuth_rad) const;
  // Any angle into the intervals' [-pi, pi): pi itself is -pi.
  static double Wrapped(double azimuth_rad);
};

struct SensorProfile {
  std::string name;
  double wavelength_nm = 0;
  double min_range_m = 0;
  double max_range_m = 0;
  ScanKind scan = ScanKind::kSpinning;
  // Where the beams leave the sensor, in the sensor frame [m]: rays start there (moved by
  // beam_origin_radius_m) and ranges are measured from there (plus range_offset_m); points are
  // reported in the sensor frame. An Ouster's lidar frame
  // sits 36 mm above its sensor frame (lidar_to_sensor_transform). Default: the origin.
  std::array<double, 3> beam_origin_m{0, 0, 0};
  // A spinning head's beams leave from this far out of beam_origin_m along the head's direction
  // at their column (their azimuth less their own offset), turning with it: Ouster's
  // lidar_origin_to_beam_origin_mm (physics/ouster_beam.h: x = (d - n) cos(theta_e + theta_a)
  // cos(phi) + n cos(theta_e), ..), a RoboSense Helios's 34.98 mm lens offset. At 1.2 m the
  // OS-0-128's 27 mm move a beam at -30 deg by one channel's 0.7 deg. [m], in
  // 0..kMaxBeamOriginM.
  double beam_origin_radius_m = 0;
  // Added to every reported range: an Ouster measures from the lidar origin, n before the beam's
  // origin along it (range_offset_m = beam_origin_radius_m); a RoboSense from its lens (0).
  // [m], within kMaxBeamOriginM.
  double range_offset_m = 0;

  // Spinning and laserconfig: per-channel tables (radians, seconds).
  std::vector<double> elevation_rad;
  std::vector<double> azimuth_offset_rad;
  std::vector<double> firing_offset_s;
  uint32_t columns = 0;
  double rotation_rate_hz = 0;
  double start_azimuth_rad = 0;
  bool clockwise = true;

  physics::LissajousScan<double> lissajous{};
  physics::LineScan<double> line_scan{};
  physics::SwathScan<double> swath{};            // airborne parallel and zigzag
  physics::EllipticalScan<double> elliptical{};  // airborne Palmer scanner
  double frame_rate_hz = 0;                      // MEMS and airborne patterns

  DetectorConfig detector;
  // Tier 2: sub-rays in the divergence cone (seed 003); one central ray by default.
  physics::BeamFootprint footprint{
      1, 0.0, physics::DivergenceMode::kRandomSelection, physics::FootprintKind::kCone, 0, {}, {}};
  KernelSampling kernel;  // footprint table: its sampling tables (FootprintView points at them)
  // footprint table: where the kernel came from (absolute paths) and its tail exponent, so
  // that SaveSensorProfile writes it back.
  std::string kernel_file, kernel_h_file, kernel_v_file;
  double kernel_tail_exponent = 0.5;
  // Threshold detector: gather the footprint from an angular raster traced once per frame
  // (seed 004 Alg. 1) instead of tracing every sub-ray.
  bool raster_gather = false;
  double raster_resolution_rad = 1e-3;
  CalibrationRecord calibration;          // optional `calibration:` map
  ChannelIntensityGains intensity_gains;  // optional `intensity_gains:` map
  RayDropTable ray_drop;                  // optional `ray_drop:` map
  BlockedDirections blocked_directions;   // optional `blocked_directions:` map
  std::string source_text;                // the profile as read, stored with simulated data
  std::string source_file;                // where it was read from, for messages

  uint32_t BeamCount() const;
  // Rays traced per frame: one per beam, or one per sub-ray in the average mode.
  uint64_t RaysPerFrame() const;
  double FramePeriodS() const;
  // Beam i of a frame, i < BeamCount(); times relative to the frame start.
  physics::BeamSample<double> Beam(uint32_t i) const;
  // The spinning view over the tables (valid while this profile lives).
  physics::SpinningScan<double> SpinningView() const;
  // The whole pattern as one value; `tables` replaces the spinning tables' pointers (for a
  // copy of them in device memory), nullptr keeps this profile's.
  physics::ScanPattern<double> Pattern(const double* const* tables = nullptr) const;
  physics::DetectorParams<double> Detector() const;
  // The footprint with its kernel tables' pointers: this profile's, or the given copies (in
  // device memory).
  physics::BeamFootprint FootprintView(const float* cdf = nullptr,
                                       const float* weight = nullptr) const;
  physics::ThresholdDetector Threshold() const;
  // Record slots per beam: max_echoes for the threshold detector, else 1.
  uint32_t EchoesPerBeam() const;

  // The ranges of configs/README.md on the values as held here, each problem named by the key
  // that sets the value and told in its unit ("detector.threshold_nw: must be in [1e-6, 1e15)
  // nW"): wavelength and ranges, the scan of its type (tables, rates, whole numbers of lines or
  // revolutions per frame), beams and echo records per frame, the footprint, raster gathering
  // and contributions per beam, the detector, the calibration record when there is one. For
  // profiles built or changed in code (sensor_profile_check.cpp); LoadSensorProfile calls it
  // too.
  void Check(ConfigCheck& check) const;
  Status Validate() const;
};

// Loads a profile; errors name the file, the key and the problem.
Expected<SensorProfile> LoadSensorProfile(const std::filesystem::path& file);
Expected<SensorProfile> ParseSensorProfile(const std::string& yaml_text,
                                           const std::filesystem::path& file);

// The profile as YAML that ParseSensorProfile reads back to the same profile (the one writer
// beside the one loader; tests/sim/sensor_profile_writer_test.cpp). Tables read from a
// laserconfig file are written out as the spinning tables they became; kernel files are
// referred to by absolute path. `header` (may be empty) goes first, as '#' comment lines.
std::string SaveSensorProfile(const SensorProfile& profile, const std::string& header = "");

// Reads a seed 003 laserconfig JSON (azimuthResolution, elevationOffsets, azimuthOffsets,
// firingSequence) into the spinning tables of `profile`. horizontal_samples: columns per
// revolution; the firing sequence repeats horizontal_samples / azimuthResolution times.
Status LoadLaserConfig(const std::filesystem::path& file, uint32_t horizontal_samples,
                       SensorProfile& profile);

}  // namespace lt
