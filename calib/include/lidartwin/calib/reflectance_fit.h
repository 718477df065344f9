// Fit of a material's angular response from intensity against incidence angle at a known
// range (issue 10 "reflectance"): the calibrated intensity of a surface that fills the
// footprint is I(theta) = 100 pi beta(theta) cos(theta) (link_budget.h: the echo's power over
// a white Lambertian target's), beta the monostatic BRDF of surface_response.h. Models:
//   lambert:           beta = R0 / pi                       -> parameter r0
//   lambert_specular:  beta = R0 / pi + k_s (n + 2) / (2 pi) cos^n(2 theta)
//                                                           -> r0, specular_albedo,
//                                                           specular_exponent
//   retroreflective:   beta = R0 / pi + beta_r cos(pi/2 theta / theta_max), theta < theta_max
//                      (a retroreflective cone, seed 004 sec. I-B)
//                      -> r0, retroreflective_peak_sr, retroreflective_max_entrance_deg
// The cost functor calls those physics functions with ceres::Jet: no equation is written here.
#pragma once

#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/calib/fit_result.h"

namespace lt::calib {

struct ReflectanceSample {
  double incidence_deg;  // theta, 0..90
  double intensity;      // calibrated intensity [percent of a white Lambertian target]
  double sigma = 0;      // 1-sigma noise of the intensity; 0: unknown (estimated from the fit)
};

enum class AngularModel { kLambert, kLambertSpecular, kRetroreflective };

const char* AngularModelName(AngularModel m);
Expected<AngularModel> ParseAngularModel(const std::string& name);

// Least-squares fit. Errors: too few usable points for the model, no convergence, or a
// rank-deficient covariance (the data cannot tell the parameters apart), each saying so.
// Unknown sigmas are estimated from the residuals (s^2 = RSS / (N - p)), which then scales
// the covariance.
Expected<FitResult> FitReflectance(const std::vector<ReflectanceSample>& samples,
                                   AngularModel model);

// The model's intensity at an incidence angle, for plots and tests.
double ModelIntensity(const FitResult& fit, double incidence_deg);

}  // namespace lt::calib
