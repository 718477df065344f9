// Lab tables from recordings of flat targets at known places (issue 40, `lidartwin lab
// extract`): a unit's own captures of boards at measured positions become the lab folder
// `calibrate` fits (docs/calibration.md "From recordings to a lab folder").
//
// Each target is a flat quadrilateral given by its four corners in the sensor's frame [m] and
// its reflectance. A return belongs to it when it lies within plane_tolerance_m of the
// target's plane and inside the quadrilateral by at least edge_margin_m (mixed returns at the
// edges left out). Per target and frame:
//   - the returns' mean intensity, its standard error and the returns' spread and count: a
//     range_intensity row in the sensor's counts (the conversion to power fitted, as the
//     recording's raw intensity has no stated unit), for a recording of raw intensity;
//   - for a recording of calibrated reflectivity (percent), a reflectance row of the target's
//     material at its incidence instead;
//   - with the sensor's beam table: the beams whose ray crosses the target (inside the margin)
//     as trials and those with a return on it as detections: a detection_threshold row at its
//     range (no attenuation), the detection rate against range.
// Rows are grouped into one table per target reflectance and incidence (to 1 deg), as a lab
// measurement holds one of each.
#pragma once

#include <array>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"
#include "lidartwin/calib/lab_folder.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::calib {

struct LabTarget {
  std::string name;
  std::string material;                            // for reflectance tables; default: the name
  double reflectance = 0;                          // Lambertian-equivalent, (0, 1]
  std::array<std::array<double, 3>, 4> corners{};  // sensor frame [m], in order around it
  std::vector<uint32_t> frames;                    // the frames it stands in; empty: every frame
};

struct LabTargets {
  std::string name;           // the lab's, free text
  std::string sensor_serial;  // the unit recorded
  double wavelength_nm = 0;   // the unit's
  double plane_tolerance_m = 0.05;
  double edge_margin_m = 0.05;
  size_t min_returns = 10;  // a target seen by fewer in a frame gives no row
  std::vector<LabTarget> targets;
};

// The targets file (YAML; docs/calibration.md): errors name the file, the key and its line.
Expected<LabTargets> ReadLabTargets(const std::filesystem::path& file);

// What was found of each target in each frame (for the command's summary and the tests).
struct TargetObservation {
  std::string target;
  uint32_t frame = 0;
  double range_m = 0, incidence_deg = 0;  // to the target's centre, against its normal
  size_t returns = 0;
  double mean_intensity = 0, intensity_sd = 0;
  uint32_t beams = 0, detected = 0;  // with a beam table; else 0
};

struct ExtractedLab {
  LabFolder lab;  // in memory; WriteLabFolder writes it
  std::vector<TargetObservation> observations;
};

// Frame by frame (a recording streamed: memory bounded by a frame and the rows). `profile`: the
// sensor's beam table for the detection rows (nullptr: none), which outlives the extractor as
// `targets` does. `calibrated`: the recording's intensity is calibrated reflectivity in percent
// (reflectance rows), else raw (range-intensity rows in counts). Add's errors: a frame without
// intensity, or without channels where a profile is given. Finish's: a target's listed frame
// beyond the recording, no target seen by min_returns returns in any frame (naming each
// target's best count).
class LabExtractor {
 public:
  LabExtractor(const LabTargets& targets, const SensorProfile* profile, bool calibrated);
  ~LabExtractor();
  Status Add(const Frame& frame);  // the recording's next frame
  Expected<ExtractedLab> Finish();

 private:
  struct Target;
  const LabTargets& targets_;
  const SensorProfile* profile_;
  bool calibrated_;
  std::array<double, 3> origin_{};
  uint32_t frames_ = 0;
  std::vector<Target> state_;
  std::map<std::string, RangeIntensityCurve> ranges_;
  std::map<std::string, ReflectanceCurve> reflectances_;
  std::map<std::string, ThresholdSweep> detections_;
  ExtractedLab out_;
};

// The same over frames in memory.
Expected<ExtractedLab> ExtractLab(const std::vector<Frame>& frames, const LabTargets& targets,
                                  const SensorProfile* profile, bool calibrated);

}  // namespace lt::calib
