// What `reproduce` learns about the sensor from the recording's own reconstruction frames
// (issue 12), so that a held-out frame is simulated in the sensor's units and with its drop-outs:
//   - the intensity reading: for a raw-intensity sensor (legacy Ouster, Velodyne) the range
//     gain G(R) of I = G(R) R0 cos(theta), from the median intensity per range bin;
//   - the capability detector's sensitivity (seed 000 sec. II-D, eq. 5: a return is detected
//     while R / d >= R_L,max / d_max), from the lower envelope of the returns' apparent
//     reflectance over range;
//   - the threshold detector's threshold (seed 002 eq. 2, seed 004 sec. II-C): the received
//     power, through a link budget, that nearly every return of the frames exceeded.
// The shared recordings hold no target of known reflectance, so none is absolute: G's scale
// is fixed by a nominal median reflectance, and the detection threshold is a bound (the
// weakest returns the sensor kept; docs/calibration.md shows no capture crosses its threshold).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/physics/link_budget.h"
#include "lidartwin/reconstruct/reconstructed_surface.h"

namespace lt {

struct RecordingFitOptions {
  double min_range_m = 1.0, max_range_m = 80.0;
  int range_bins = 16;               // logarithmic bins between min_range_m and max_range_m
  size_t min_returns_per_bin = 200;  // fewer: the bin is left out of G
  double nominal_reflectance = 0.2;  // the median return's R0 under G (fixes G's scale) ...
  double tail_quantile = 0.999;      // ... unless the returns' tail at this quantile would
  double tail_reflectance = 0.95;    // read above this: then the tail reads this
  double envelope_quantile = 0.001;  // of R / d over the returns, for the detection bound
  // Of the returns' received power, for the threshold detector's threshold: the OS-1-128's
  // frames' powers fall off below their 1st percentile (0.1 %: 26 nW, 0.5 %: 44, 1 %: 54, 2 %:
  // 69 under the link budget of docs/validation.md), the sensor's threshold blurred by its noise.
  double threshold_quantile = 0.01;
  // G across viewpoints (range_gain_fit.h): world cells of this edge, seen from ranges this
  // ratio apart at least, at most this incidence; alternations of each kind.
  double gain_cell_m = 0.4, gain_min_range_ratio = 1.1, gain_max_incidence_deg = 75;
  int gain_iterations = 300;
  int gain_passes = 8;             // of the whole fit, from the last pass's G ...
  double gain_settled_ln = 0.005;  // ... until no node moves by more than this
  // The surfaces' roughness (roughness_fit.h): fitted at all; from returns within this
  // incidence, this many cells at least whose frames' median cos(theta) differ by this ratio;
  // sigma's profile over [0, roughness_max_rad] in this many steps; its standard error from
  // this many resamples of the cells.
  bool fit_roughness = true;
  double roughness_max_incidence_deg = 87, roughness_min_cos_ratio = 1.25;
  size_t roughness_min_cells = 50;
  double roughness_max_rad = 1.5;
  int roughness_grid_steps = 30;
  int roughness_bootstrap = 50;
  uint64_t roughness_bootstrap_seed = 20261201;
};

// G's correction across viewpoints: its logarithm per node of the binned G (0 where no surface
// seen from two ranges determines it: a node takes its nearest determined bin's), and what
// determined it.
struct RangeGainCorrection {
  std::vector<double> ln_correction;
  size_t cells = 0, returns = 0;  // the surfaces seen from two ranges, their returns
  int bins_determined = 0;
};

// The surfaces' roughness (Oren and Nayar's sigma) that made one surface read most alike from
// every incidence it was seen at, and what said so: the cells seen at two angles, their
// returns, and the mean |ln I - ln G - ln S - the cell's median| as Lambertian and as fitted.
struct SurfaceRoughness {
  double roughness_rad = 0;
  double standard_error_rad = NAN;  // resampling the cells (roughness_fit.h); NaN: not measured
  size_t cells = 0, returns = 0;
  double lambertian_spread = 0, fitted_spread = 0;
};

// G(R) at the bins' median ranges (the median intensity of each bin), scaled so that the median I /
// G(R) over all returns is the nominal reflectance. Errors: no returns in range, fewer than two
// bins with enough returns.
Expected<IntensityReading> FitRawIntensityReading(const std::vector<Frame>& frames,
                                                  const RecordingFitOptions& options);

// The same from posed frames, its shape corrected where surfaces were seen from two ranges or
// more (a moving sensor: range_gain_fit.h), and the surfaces' roughness where they were seen
// at two incidences (roughness_fit.h), the two fitted in turn; then scaled. correction and
// roughness (each may be null): what the surfaces said.
Expected<IntensityReading> FitRawIntensityReading(const PosedFrames& input,
                                                  const RecordingFitOptions& options,
                                                  RangeGainCorrection* correction,
                                                  SurfaceRoughness* roughness = nullptr);

// R_L,max / d_max [1/m]: the envelope_quantile of (apparent reflectance / range) over the
// returns, the apparent reflectance being reading.Reflectance(I, R, cos 0) = R0 cos(theta) as
// the sensor saw it. Multiply by d_max for the profile's reflectance_at_max_range.
Expected<double> FitDetectionEnvelope(const std::vector<Frame>& frames,
                                      const IntensityReading& reading,
                                      const RecordingFitOptions& options);

// The threshold [W] of a threshold detector with this link budget and overlap that the
// returns of the frames would have crossed: the threshold_quantile of the power each return
// brings back, P = a P_white(R) O(R), with a = reading.Reflectance(I, R, cos 0) the apparent
// reflectance R0 cos(theta) it was read with (a Lambertian's P: seed 002 eq. 2) and P_white the
// power of a white Lambertian target at normal incidence (physics/link_budget.h). The link
// budget's scale cancels: the simulator computes the echoes' powers through the same one.
// Returns that read 0 are left out (their reading is no power). Errors: fewer than 100 returns
// reading above 0 in range.
Expected<double> FitDetectionThreshold(const std::vector<Frame>& frames,
                                       const IntensityReading& reading,
                                       const physics::LinkBudget& link,
                                       const physics::Overlap& overlap,
                                       const RecordingFitOptions& options);

}  // namespace lt
