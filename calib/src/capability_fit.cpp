#include "lidartwin/calib/capability_fit.h"

#include <ceres/ceres.h>

#include <algorithm>
#include <cmath>

#include "least_squares.h"

#include "lidartwin/base/config_check.h"
#include "lidartwin/calib/goodness_of_fit.h"

#include "lidartwin/physics/capability.h"

namespace lt::calib {

namespace {

// Parameters: d_max and R_L,max.
struct RangeResidual {
  double reflectance, range, weight;
  template <typename T>
  bool operator()(const T* const p, T* residual) const {
    residual[0] = (physics::CapabilityMaxRange(T(reflectance), p[1], p[0]) - T(range)) * T(weight);
    return true;
  }
};

}  // namespace

Expected<FitResult> FitCapability(const std::vector<CapabilitySample>& samples) {
  FitResult out;
  out.model = "capability";
  std::vector<CapabilitySample> used;
  bool sigma_known = true;
  for (const auto& s : samples) {
    if (!std::isfinite(s.reflectance) || !std::isfinite(s.max_range_m) ||
        !std::isfinite(s.sigma_m) || !(s.reflectance > 0) || !(s.max_range_m > 0) ||
        s.sigma_m < 0) {
      ++out.points_rejected;
      continue;
    }
    sigma_known = sigma_known && s.sigma_m > 0;
    used.push_back(s);
  }
  out.points_used = used.size();
  if (used.size() < 3) {
    return Error{"capability fit: " + std::to_string(used.size()) +
                 " usable targets; at least 3 are needed"};
  }
  // Start: d_max the farthest range seen; R_L,max from the slope of the shorter ranges.
  double d_max = 0;
  for (const auto& s : used)
    d_max = std::max(d_max, s.max_range_m);
  double slope = 0;
  int n = 0;
  for (const auto& s : used) {
    if (s.max_range_m < 0.95 * d_max) {
      slope += s.max_range_m / s.reflectance;
      ++n;
    }
  }
  if (n == 0) {
    return Error{
        "capability fit: every target reaches the same farthest range; targets dark "
        "enough to stop short of d_max are needed to find R_L,max"};
  }
  double p[2] = {d_max, d_max / (slope / n)};
  ceres::Problem problem;
  for (const auto& s : used) {
    problem.AddResidualBlock(new ceres::AutoDiffCostFunction<RangeResidual, 1, 2>(new RangeResidual{
                                 s.reflectance, s.max_range_m, sigma_known ? 1 / s.sigma_m : 1.0}),
                             nullptr, p);
  }
  problem.SetParameterLowerBound(p, 0, 1e-6);
  problem.SetParameterLowerBound(p, 1, 1e-9);
  if (!SolveFit(problem, out)) {
    return Error{"capability fit did not converge: " + out.solver_report};
  }
  double rss = 0;
  int below = 0, at = 0;
  for (const auto& s : used) {
    const double model = physics::CapabilityMaxRange(s.reflectance, p[1], p[0]);
    rss += (model - s.max_range_m) * (model - s.max_range_m);
    (model < p[0] ? below : at) += 1;
  }
  if (below == 0 || at == 0) {
    return Error{std::string("capability fit: every target lies ") +
                 (below == 0 ? "at d_max" : "below d_max") +
                 " in the fit, so d_max and R_L,max cannot both be found"};
  }
  out.residual_rms = std::sqrt(rss / used.size());
  if (sigma_known) {
    std::vector<double> z;
    for (const auto& s : used)
      z.push_back((s.max_range_m - physics::CapabilityMaxRange(s.reflectance, p[1], p[0])) /
                  s.sigma_m);
    SetGoodnessOfFit(out, z, 2, [&](size_t i) {
      return "the target of reflectance " + NumberText(used[i].reflectance);
    });
  }
  const double scale = sigma_known ? 1.0 : rss / (used.size() - 2.0);
  double cov[4] = {};
  if (!BlockCovariance(problem, p, cov)) {
    return Error{"capability fit: the covariance is rank-deficient"};
  }
  out.parameters.push_back({"max_range_m", p[0], std::sqrt(cov[0] * scale)});
  out.parameters.push_back({"reflectance_at_max_range", p[1], std::sqrt(cov[3] * scale)});
  return out;
}

}  // namespace lt::calib
