#include "lidartwin/calib/range_intensity_fit.h"

#include <ceres/ceres.h>

#include <algorithm>
#include <cmath>

#include "least_squares.h"

#include "lidartwin/physics/link_budget.h"
#include "lidartwin/physics/units.h"

namespace lt::calib {

namespace {

// Parameters: ln K, ln R_o, ln k (all positive).
template <typename T>
T Signal(const T* p, double range_m, double reflectance, double incidence_deg) {
  using std::exp;
  const physics::LinkBudget unit{1.0, 1.0, 1.0, 0.0};
  const T r(range_m);
  const T c(std::cos(incidence_deg * physics::kDegToRad));
  return exp(p[0]) * physics::ReceivedPower(unit, T(reflectance / physics::kPi), c, r) *
         physics::NearFieldOverlap(r, exp(p[1]), exp(p[2]));
}

struct SignalResidual {
  RangeIntensitySample s;
  double weight;
  template <typename T>
  bool operator()(const T* const p, T* residual) const {
    residual[0] = (Signal(p, s.range_m, s.reflectance, s.incidence_deg) - T(s.signal)) * T(weight);
    return true;
  }
};

}  // namespace

Expected<FitResult> FitRangeIntensity(const std::vector<RangeIntensitySample>& samples) {
  FitResult out;
  out.model = "link_budget_with_overlap";
  std::vector<RangeIntensitySample> used;
  bool sigma_known = true;
  for (const auto& s : samples) {
    if (!std::isfinite(s.range_m) || !std::isfinite(s.reflectance) || !std::isfinite(s.signal) ||
        !std::isfinite(s.incidence_deg) || !std::isfinite(s.sigma) || !(s.range_m > 0) ||
        !(s.reflectance > 0) || !(s.incidence_deg >= 0 && s.incidence_deg < 90) || s.sigma < 0) {
      ++out.points_rejected;
      continue;
    }
    sigma_known = sigma_known && s.sigma > 0;
    used.push_back(s);
  }
  out.points_used = used.size();
  if (used.size() < 4) {
    return Error{"range-intensity fit: " + std::to_string(used.size()) +
                 " usable points for 3 parameters; at least 4 are needed"};
  }
  // Start: K from the farthest point (overlap there taken as complete), R_o a tenth of the
  // farthest range, a moderately sharp rise.
  const auto far = *std::max_element(
      used.begin(), used.end(), [](const auto& a, const auto& b) { return a.range_m < b.range_m; });
  const double unit_far = far.reflectance * std::cos(far.incidence_deg * physics::kDegToRad) /
                          (4 * far.range_m * far.range_m);
  double p[3] = {std::log(std::max(far.signal, 1e-300) / unit_far), std::log(0.1 * far.range_m),
                 std::log(2.0)};
  ceres::Problem problem;
  for (const auto& s : used) {
    problem.AddResidualBlock(new ceres::AutoDiffCostFunction<SignalResidual, 1, 3>(
                                 new SignalResidual{s, sigma_known ? 1 / s.sigma : 1.0}),
                             nullptr, p);
  }
  if (!SolveFit(problem, out, 500)) {
    return Error{"range-intensity fit did not converge: " + out.solver_report};
  }
  double rss = 0;
  for (const auto& s : used) {
    const double r = Signal(p, s.range_m, s.reflectance, s.incidence_deg) - s.signal;
    rss += r * r;
  }
  out.residual_rms = std::sqrt(rss / used.size());
  const double scale = sigma_known ? 1.0 : rss / (used.size() - 3.0);
  double cov[9] = {};
  if (!BlockCovariance(problem, p, cov)) {
    return Error{
        "range-intensity fit: the covariance is rank-deficient (ranges inside the "
        "overlap region and beyond it are both needed)"};
  }
  // Fitted in logarithms: sigma_x = x sigma_ln x (first order).
  const char* names[3] = {"link_constant", "overlap_range_m", "overlap_sharpness"};
  for (int i = 0; i < 3; ++i) {
    const double x = std::exp(p[i]);
    out.parameters.push_back({names[i], x, x * std::sqrt(cov[i * 3 + i] * scale)});
  }
  return out;
}

double ModelSignal(const FitResult& fit, double range_m, double reflectance, double incidence_deg) {
  const FitParameter* k = fit.Find("link_constant");
  const FitParameter* r_o = fit.Find("overlap_range_m");
  const FitParameter* sharpness = fit.Find("overlap_sharpness");
  if (!k || !r_o || !sharpness) return std::nan("");
  const double p[3] = {std::log(k->value), std::log(r_o->value), std::log(sharpness->value)};
  return Signal(p, range_m, reflectance, incidence_deg);
}

}  // namespace lt::calib
