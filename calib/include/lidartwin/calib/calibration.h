// A calibration run (issue 10 `lidartwin calibrate`): every fit the lab folder supports, in the
// order their results feed each other (beam kernel; range-intensity, whose link constant gives
// the threshold sweep its expected signals; threshold; reflectance; capability), and a copy of
// the base profile with the fitted values and their provenance. Any fit that fails (too few
// points, no convergence, rank-deficient covariance) fails the run: nothing half-fitted is
// returned.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lidartwin/calib/fit_result.h"
#include "lidartwin/calib/lab_folder.h"
#include "lidartwin/sim/beam_kernel.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::calib {

// Data against the fitted model, for the report's plots.
struct FitPlot {
  std::string title, x_label, y_label;
  std::vector<double> x, y, err;         // the measurement
  std::vector<double> model_x, model_y;  // the fitted curve
  std::vector<double> residual;          // y - model at x
};

struct FitRecord {
  std::string kind;  // the manifest's measurement kind
  std::string file;  // the measurement file(s)
  FitResult result;
  std::vector<FitPlot> plots;
};

// One profile key changed by the calibration.
struct ProfileUpdate {
  std::string key;
  double before = 0, after = 0, stddev = 0;
  std::string fit;
};

struct Calibration {
  SensorProfile profile;  // the base with the fitted values and `calibration` filled
  std::vector<FitRecord> fits;
  std::vector<ProfileUpdate> updates;
  // Fitted quantities that are not profile keys (materials' angular models; the emitter and
  // collector of a tabulated kernel), for the report and the profile's calibration record.
  std::vector<ProfileUpdate> materials;
  // A beam kernel that is not Gaussian: the effective kernel's table, to be written beside the
  // calibrated profile and named in its beam.kernel_file (the profile's footprint is a table).
  std::optional<KernelTable> kernel_table;
  // What the run accepted but a reader must know: poor fits kept on request, with the factor
  // their uncertainties were scaled by. Printed by the CLI and at the top of the report.
  std::vector<std::string> warnings;
};

struct CalibrationOptions {
  // A fit whose measurements' sigmas were given and that does not describe them (chi^2
  // p-value below kPoorFitPValue, goodness_of_fit.h) fails the run, naming the file and its
  // worst point. Accepted, it is kept with its standard deviations scaled by sqrt(chi^2 / dof)
  // and a warning.
  bool accept_poor_fits = false;
};

// lab_label: how the lab folder is named in the provenance; date_utc: ISO 8601.
Expected<Calibration> Calibrate(const LabFolder& lab, const SensorProfile& base,
                                const std::string& lab_label, const std::string& date_utc,
                                const CalibrationOptions& options = {});

}  // namespace lt::calib
