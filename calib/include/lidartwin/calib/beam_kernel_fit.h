// Fits of the beam kernel (seed 004 sec. III): the emitter's relative radiant intensity from
// goniometer images stitched over exposures, the collector's sensitivity from its two slices,
// and their product, the effective kernel eta x kappa the simulator samples (sec. III-C).
//
// Emitter models (physics/beam_profile.h): `gaussian`, 1..4 elliptical Gaussian spots (a
// multi-spot mixture), or `super_gaussian`, one elliptical spot of order p. Residuals are in
// log space, so six decades of the profile weigh alike; each pixel's weight is its camera
// noise (read noise, shot noise) plus a speckle term estimated from a first pass; a Huber loss
// keeps hot pixels and speckle outliers from pulling the fit.
#pragma once

#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/calib/fit_result.h"
#include "lidartwin/calib/lab_folder.h"
#include "lidartwin/physics/beam_footprint.h"
#include "lidartwin/sim/beam_kernel.h"

namespace lt::calib {

// One pixel of the stitched image: the longest exposure that neither saturates nor sinks
// below 5 read-noise sigma, as counts per microsecond.
struct KernelPixel {
  double h_mrad, v_mrad;
  double value;        // measured x exp(sigma_ln^2 / 2): ln(value) unbiased to second order
  double sigma_ln;     // camera noise of ln(measured): sqrt(read^2 + n) / n, n the expected net
                       // counts (the neighbours' median, then the fitted emitter's)
  double measured;     // (counts - dark) / exposure
  double exposure_us;  // the exposure the pixel was taken from
};

struct StitchedKernel {
  std::vector<KernelPixel> pixels;
  size_t rejected = 0;  // saturated in every exposure, or below the noise floor in all
};

StitchedKernel StitchExposures(const BeamKernelImages& images);

// Parameters: gaussian: spot<k>.h_offset_mrad, spot<k>.v_offset_mrad, spot<k>.fwhm_h_mrad,
// spot<k>.fwhm_v_mrad, spot<k>.power (shares summing to 1), k = 1..spots;
// super_gaussian: h_offset_mrad, v_offset_mrad, sigma_h_mrad, sigma_v_mrad, order.
struct EmitterFit {
  FitResult result;
  std::string model;
  uint32_t spots = 1;
  bool separable = false;     // super_gaussian: H(h) V(v)
  std::vector<double> state;  // internal: per spot ln peak, h0, v0, ln sigma_h, ln sigma_v
                              // (+ ln order); mrad
  std::vector<double> state_covariance;
  StitchedKernel data;
  double speckle_sigma_ln = 0;  // estimated multiplicative noise beyond the camera's
  double Evaluate(double h_mrad, double v_mrad) const;  // counts per microsecond
};

Expected<EmitterFit> FitEmitter(const BeamKernelImages& images);

// The order of a footprint's Gaussian spots along the line they lie on (the principal axis of
// their offsets, pointing up, or right when level): a unit calibrated twice lists its spots
// alike, side by side or one above the other, whatever order its fit found them in.
std::vector<uint32_t> SpotsAlongTheirLine(const physics::BeamFootprint& footprint);

// One collector slice: gaussian (sensitivity A exp(-(a - a0)^2 / (2 s^2))) or super_gaussian
// (order p). Parameters: offset_mrad, fwhm_mrad (gaussian) or sigma_mrad and order.
struct CollectorFit {
  FitResult result;
  std::string model;
  bool horizontal = true;
  std::vector<double> state;  // ln A, a0, ln s (+ ln p)
  std::vector<double> state_covariance;
  std::vector<double> angle_mrad, sensitivity;  // the data
  double Evaluate(double angle_mrad) const;
};

Expected<CollectorFit> FitCollector(const CollectorSlice& slice);

// The effective kernel. All Gaussian: each emitter spot times the collector slices
// (physics::GaussianTimesSlice), normalised to unit power; parameters for each spot k,
// spot<k>.h_offset_mrad, .v_offset_mrad, .fwhm_h_mrad, .fwhm_v_mrad, .power, with
// uncertainties propagated from the three fits (independent measurements). Any super-Gaussian:
// the product eta x kappa tabulated on a 65 x 65 grid out to where the emitter falls below
// 1e-6 of its peak (`table`, for the profile's `footprint: table`), and no spot parameters.
struct EffectiveKernel {
  FitResult result;
  physics::BeamFootprint footprint{};  // kind gaussian, spots filled, sub_rays unset
  bool tabulated = false;
  KernelTable table;  // when tabulated
};

Expected<EffectiveKernel> CombineKernel(const EmitterFit& emitter, const CollectorFit& h,
                                        const CollectorFit& v);

}  // namespace lt::calib
