// The fits of issue 10's "Real measurements" over the shared real-data folder
// (`lidartwin calibrate-real`): the Spectralon panel's angular response at each sensor
// wavelength, and each Ouster capture's range-intensity and detection models. Input files
// that are missing or malformed are errors naming the file and line; a fit the data cannot
// support (too few points, a transition not crossed) is a result, reported with its reason.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/calib/fit_result.h"
#include "lidartwin/calib/ouster_samples.h"
#include "lidartwin/calib/reflectance_fit.h"
#include "lidartwin/calib/spectralon.h"

namespace lt::calib {

struct RealDataOptions {
  // The shipped sensors' wavelengths (configs/sensors: 850 OS0, 865, 903 VLP-16, 905, 1550).
  std::vector<double> wavelengths_nm = {850, 865, 903, 905, 1550};
  SampleOptions samples;
  // Gap limits the detection population is also built with, to show its sensitivity.
  std::vector<uint32_t> sensitivity_gaps = {1, 2, 4, 8, 16};
  Status Validate() const;  // names the option and the problem
};

struct SpectralonAtWavelength {
  double wavelength_nm = 0;
  double reflectance = 0;                   // Labsphere 8 deg/h calibration (Spectralon_Num4.txt)
  double reflectance_uncertainty = 0;       // as that calibration states it
  double reflectance_sphere = 0;            // the 2023 integrating-sphere measurement
  std::vector<ReflectanceSample> response;  // I(theta) = 100 rho cos(theta) / A(theta)
  // Both shapes fitted to the response, which is a model's output without noise (issue 40): their
  // residuals are misfit, not noise, so no test or information criterion compares them; the
  // residual RMS says which shape reproduces the response more closely.
  FitResult lambert, lambert_specular;
  // The shape with the lower residual RMS.
  const char* CloserShape() const {
    return lambert_specular.residual_rms < lambert.residual_rms ? "lambert_specular" : "lambert";
  }
};

struct SpectralonResult {
  std::string table_file, calibration_file, sphere_file;
  std::vector<SpectralonAtWavelength> wavelengths;
};

// Either a fit or the reason there is none.
struct FitOutcome {
  std::optional<FitResult> fit;
  std::string refused;  // the fit's error, or why it was not attempted
};

// The detection population at another gap limit: how the lowest detection rate and the fit
// move with the population's definition (docs/calibration.md "Real measurements").
struct GapSensitivity {
  uint32_t max_gap_columns = 0;
  size_t pixels = 0, missing = 0;
  DetectionSample lowest{0, 0, 0}, highest{0, 0, 0};  // the first and last bins
  FitOutcome outcome;
};

struct DetectionOutcome {
  std::string predictor;           // how the pixel's signal was predicted
  std::string signal_unit;         // the unit of expected_signal and of the threshold
  DetectionPopulation population;  // counts; pixels cleared once binned
  size_t pixels = 0;               // pixels of the population
  size_t missing = 0;              // of them without a return
  size_t without_prediction = 0;   // pixels whose prediction was not finite
  std::vector<DetectionSample> bins;
  FitOutcome outcome;
  std::vector<GapSensitivity> gap_sensitivity;
};

struct OusterUnitResult {
  std::string label;        // product line and capture
  std::string short_label;  // the capture's name up to its lidar mode (for legends)
  std::string pcap, metadata;
  std::string profile;
  size_t frames = 0;
  bool has_signal = false;               // the profile carries signal photons
  bool calibrated_reflectivity = false;  // every reflectivity within the 8-bit scale
  double max_reflectivity_pct = 0;
  // Range-intensity fits for both readings of reflectivity (ouster_samples.h); `chosen` is the
  // one with the lower chi^2 per degree of freedom.
  RangeIntensityPopulation population;
  FitOutcome includes_cosine, excludes_cosine;
  double chi2_includes = 0, chi2_excludes = 0;  // chi^2 / dof with the samples' sigmas
  std::optional<ReflectivityReading> chosen;
  // Detection: in photons when the unit reports signal, and against the unit-link power
  // rho cos(theta) / (4 R^2) [1/m^2] when its reflectivity is calibrated.
  DetectionOutcome detection_photons, detection_link;
};

struct RealDataCalibration {
  SpectralonResult spectralon;
  std::vector<OusterUnitResult> ouster;
};

// REAL_DATA_DIR/spectralon-grit-lab: BRF_normalization_factor.csv, Spectralon_Num4.txt,
// Spectralon-panel-4-diffuse-reflectance_2023Jan18.txt. REAL_DATA_DIR/ouster-sdk: every .pcap,
// each with the .json of the longest common name prefix (metadata/ is not read).
Expected<RealDataCalibration> CalibrateRealData(const std::filesystem::path& real_data_dir,
                                                const RealDataOptions& options);

// The Spectralon part alone (tests, and the CLI through CalibrateRealData).
Expected<SpectralonResult> CalibrateSpectralon(const std::filesystem::path& folder,
                                               const std::vector<double>& wavelengths_nm);

// One Ouster capture with its metadata.
Expected<OusterUnitResult> CalibrateOusterCapture(const std::filesystem::path& pcap,
                                                  const std::filesystem::path& metadata,
                                                  const RealDataOptions& options);

// The .json beside each .pcap in `folder` (longest common prefix of the file names; ties and
// folders without a JSON are errors naming the capture).
Expected<std::vector<std::pair<std::filesystem::path, std::filesystem::path>>> PairOusterCaptures(
    const std::filesystem::path& folder);

// DIR/real_data_report.md with the tables, and one SVG per plot beside it. Errors name the
// file that could not be written.
Status WriteRealDataReport(const RealDataCalibration& result, const std::filesystem::path& dir);
// One line per Spectralon wavelength (the Lambertian R0 and both models' RMS) and per Ouster
// capture (which fits were made): what `lidartwin calibrate-real` prints.
std::string RealDataSummaryText(const RealDataCalibration& result);

}  // namespace lt::calib
