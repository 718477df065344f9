// What every calibration fit reports (DESIGN.md sec. 5): each parameter with its standard
// deviation from the covariance of the least-squares solution, the residuals, the points
// used and rejected, and whether the solver converged.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace lt::calib {

struct FitParameter {
  std::string name;  // with its unit, as in a profile key: r0, specular_exponent, ...
  double value = 0;
  double stddev = 0;  // 1 sigma, from ceres::Covariance
};

// Whether the model describes the measurements within their sigmas, where the sigmas were
// given (or are known, as a spread's sampling error or a binomial count's): chi^2 against its
// distribution with N - p degrees of freedom (goodness_of_fit.h).
struct GoodnessOfFit {
  bool judged = false;    // false: no sigmas, nothing to judge against
  double chi2 = 0;        // sum of squared normalised residuals (deviance for counts)
  double dof = 0;         // points less parameters
  double p_value = 1;     // P(chi^2_dof >= chi2) if the model and the sigmas are right
  std::string worst;      // the point of largest |residual| / sigma, in the fit's own words
  size_t parameters = 0;  // the fitted parameters the chi^2 covers (the first ones listed)
  std::string not_judged_because = "no measurement sigmas";
};

struct FitResult {
  std::string model;
  std::vector<FitParameter> parameters;
  double residual_rms = 0;  // in the measurement's unit
  size_t points_used = 0;
  size_t points_rejected = 0;  // non-finite or out of the model's domain
  bool converged = false;
  std::string solver_report;  // Ceres' brief report
  // Covariance of the parameters above, row-major (parameters.size()^2), where the fit
  // propagates it; empty otherwise.
  std::vector<double> covariance;
  GoodnessOfFit goodness;

  const FitParameter* Find(const std::string& name) const {
    for (const auto& p : parameters)
      if (p.name == name) return &p;
    return nullptr;
  }
};

}  // namespace lt::calib
