// What `reproduce` learns about the sensor from the recording's own reconstruction frames
// (issue 12), so that a held-out frame is simulated in the sensor's units and with its drop-outs:
//   - the intensity reading: for a raw-intensity sensor (legacy Ouster, Velodyne) the range
//     gain G(R) of I = G(R) R0 cos(theta), from the median intensity per range bin;
//   - the capability detector's sensitivity (seed 000 sec. II-D, eq. 5: a return is detected
//     while R / d >= R_L,max / d_max), from the lower envelope of the returns' apparent
//     reflectance over range.
// The shared recordings hold no target of known reflectance, so neither is absolute: G's scale
// is fixed by a nominal median reflectance, and the detection threshold is a bound (the
// weakest returns the sensor kept; docs/calibration.md shows no capture crosses its threshold).
#pragma once

#include <vector>

#include "lidartwin/base/status.h"
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
};

// G(R) at the bins' median ranges (the median intensity of each bin), scaled so that the median I /
// G(R) over all returns is the nominal reflectance. Errors: no returns in range, fewer than two
// bins with enough returns.
Expected<IntensityReading> FitRawIntensityReading(const std::vector<Frame>& frames,
                                                  const RecordingFitOptions& options);

// R_L,max / d_max [1/m]: the envelope_quantile of (apparent reflectance / range) over the
// returns, the apparent reflectance being reading.Reflectance(I, R, cos 0) = R0 cos(theta) as
// the sensor saw it. Multiply by d_max for the profile's reflectance_at_max_range.
Expected<double> FitDetectionEnvelope(const std::vector<Frame>& frames,
                                      const IntensityReading& reading,
                                      const RecordingFitOptions& options);

}  // namespace lt
