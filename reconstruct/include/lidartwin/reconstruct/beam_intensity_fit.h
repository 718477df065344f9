// Per-laser intensity calibration from field data, without targets (issue 40): the same surface
// seen by different lasers must read the same reflectance (Levinson & Thrun, "Unsupervised
// Calibration for Multi-beam Lasers", ISER 2010, sec. 4: each laser's response estimated
// against a map of the surfaces' reflectivities, the two alternated; Steder et al., "Maximum
// likelihood remission calibration for groups of heterogeneous laser scanners", ICRA 2015: the
// remission a function of the laser, the range and the incidence angle).
//
// The model, in logarithms, for return i of laser b on surface cell c:
//   ln I_i = ln rho_c + ln G(R_i) + ln cos(theta_i) + beta_b + e_i,
// G the recording's range gain (IntensityReading, or 1), theta the incidence on the cell's
// plane, beta_b the laser's gain. Cells are voxels of one frame in the sensor's frame (a wall
// or a car is crossed by several lasers within one revolution; no poses needed), their plane
// from the points' covariance. beta and ln rho are alternated, by means until they settle and
// then by medians (robust to edges and mixed returns); the median beta is 0 (the gains' scale is
// the reading's).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"
#include "lidartwin/reconstruct/reconstructed_surface.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt {

struct BeamIntensityFitOptions {
  double cell_m = 0.4;              // voxel edge
  size_t min_cell_points = 8;       // for a plane
  double max_planar_ratio = 0.01;   // smallest / middle eigenvalue of a planar cell
  double plane_tolerance_m = 0.05;  // a return farther from the cell's plane: another surface
  double max_plane_rms_m = 0.02;    // the inliers' rms distance from their plane, at most
  double max_incidence_deg = 75;    // beyond, cos(theta) is too uncertain
  double min_range_m = 1.0, max_range_m = 80.0;
  int range_bins = 6;          // logarithmic, min_range_m..max_range_m: a curve per laser
  size_t min_bin_points = 40;  // a laser's bin with fewer shared returns takes its
                               // neighbours' (or 1)
  int iterations = 300;        // of each of the two alternations (least squares, then medians)
};

// Each laser's gain as a function of range: gain[b][k] at range_m[k] (the bins' centres in log
// range), linear in (ln R, ln g) between them and held beyond. Relative: in every range bin the
// median laser has gain 1 (a range trend common to all lasers is the reading's, G(R)). (Bins of
// the raw intensity as well, after Levinson & Thrun's per-value map, were tried: a return's bin
// then follows its own noise, and the least-squares gains ran away.)
struct BeamIntensityGains {
  std::vector<double> range_m;
  std::vector<std::vector<double>> gain, gain_sd;     // [laser][bin]; gain_sd 0: not determined
  std::vector<size_t> points;                         // shared-surface returns per laser
  size_t cells = 0;                                   // planar cells seen by two lasers or more
  double GainAt(size_t laser, double range_m) const;  // 1 for a laser not in the table
};

// The gains as a profile's `intensity_gains` (sensor_profile.h) for a sensor of `channels`
// lasers: a laser the fit did not see reads 1.
ChannelIntensityGains ProfileGains(const BeamIntensityGains& gains, size_t channels,
                                   std::string source);

// Errors: frames without channels (their lasers cannot be told apart), or no cell seen by two
// lasers.
Expected<BeamIntensityGains> FitBeamIntensityGains(const std::vector<Frame>& frames,
                                                   const IntensityReading& reading,
                                                   const BeamIntensityFitOptions& options);

// The spread of the reading across lasers on shared surfaces: per cell seen by two lasers or
// more (each with 2 returns at least), the variance over its lasers of their mean
// ln(I / (G(R) g_b(R) cos theta)) less the part the returns' own scatter gives those means (the
// between-laser component of a one-way analysis of variance); the root of its mean over the
// cells. gains null: g_b = 1. The held-out measure of issue 40's target (lowered by >= 30 % on
// frames not fitted).
struct CrossLaserSpread {
  double rms_ln = 0;      // natural-log units (0.1: about 10 %)
  double raw_rms_ln = 0;  // the same with the returns' scatter left in
  size_t cells = 0;
};
Expected<CrossLaserSpread> MeasureCrossLaserSpread(const std::vector<Frame>& frames,
                                                   const IntensityReading& reading,
                                                   const BeamIntensityGains* gains,
                                                   const BeamIntensityFitOptions& options);

}  // namespace lt
