#include "lidartwin/calib/range_intensity_fit.h"

#include <ceres/ceres.h>

#include <algorithm>
#include <cmath>

#include "least_squares.h"

#include "lidartwin/base/config_check.h"
#include "lidartwin/calib/goodness_of_fit.h"

#include "lidartwin/physics/link_budget.h"
#include "lidartwin/physics/units.h"

namespace lt::calib {

namespace {

// Parameters: ln K, ln R_o, ln k (all positive); without an overlap, ln K alone.
template <typename T>
T Signal(const T* p, bool overlap, double range_m, double reflectance, double incidence_deg) {
  using std::exp;
  const physics::LinkBudget unit{1.0, 1.0, 1.0, 0.0};
  const T r(range_m);
  const T c(std::cos(incidence_deg * physics::kDegToRad));
  const T s = exp(p[0]) * physics::ReceivedPower(unit, T(reflectance / physics::kPi), c, r);
  return overlap ? s * physics::NearFieldOverlap(r, exp(p[1]), exp(p[2])) : s;
}

struct SignalResidual {
  RangeIntensitySample s;
  bool overlap;
  double weight;
  template <typename T>
  bool operator()(const T* const p, T* residual) const {
    residual[0] =
        (Signal(p, overlap, s.range_m, s.reflectance, s.incidence_deg) - T(s.signal)) * T(weight);
    return true;
  }
};

// Below this share of the light the overlap shows in a row's signal; two such rows at least
// (with rows beyond it for K) tell R_o and k.
constexpr double kOverlapVisible = 0.9;

}  // namespace

Expected<FitResult> FitRangeIntensity(const std::vector<RangeIntensitySample>& samples,
                                      OverlapFit overlap_fit) {
  const bool overlap = overlap_fit == OverlapFit::kFitted;
  const int p_count = overlap ? 3 : 1;
  FitResult out;
  out.model = overlap ? "link_budget_with_overlap" : "link_budget_full_overlap";
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
  if (static_cast<int>(used.size()) <= p_count) {
    return Error{"range-intensity fit: " + std::to_string(used.size()) + " usable points for " +
                 std::to_string(p_count) + " parameter" + (p_count > 1 ? "s" : "") + "; at least " +
                 std::to_string(p_count + 1) + " are needed"};
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
                                 new SignalResidual{s, overlap, sigma_known ? 1 / s.sigma : 1.0}),
                             nullptr, p);
  }
  if (!overlap) problem.SetManifold(p, new ceres::SubsetManifold(3, {1, 2}));
  if (!SolveFit(problem, out, 500)) {
    return Error{"range-intensity fit did not converge: " + out.solver_report};
  }
  double rss = 0;
  for (const auto& s : used) {
    const double r = Signal(p, overlap, s.range_m, s.reflectance, s.incidence_deg) - s.signal;
    rss += r * r;
  }
  out.residual_rms = std::sqrt(rss / used.size());
  if (sigma_known) {
    std::vector<double> z;
    for (const auto& s : used)
      z.push_back((s.signal - Signal(p, overlap, s.range_m, s.reflectance, s.incidence_deg)) /
                  s.sigma);
    SetGoodnessOfFit(out, z, p_count, [&](size_t i) {
      return "the row at range " + NumberText(used[i].range_m) + " m, reflectance " +
             NumberText(used[i].reflectance);
    });
  }
  const double scale = sigma_known ? 1.0 : rss / (used.size() - p_count);
  double cov[9] = {};
  if (!BlockCovariance(problem, p, cov)) {
    return Error{overlap ? "range-intensity fit: the rows do not determine the link and the "
                           "near-field overlap together (a rank-deficient covariance): measure "
                           "the target both where its signal falls below the inverse-square law "
                           "and beyond, or declare the overlap complete (fit: {overlap: none}) "
                           "for a sensor without one"
                         : "range-intensity fit: the rows do not determine the link constant "
                           "(a rank-deficient covariance)"};
  }
  if (!overlap) {
    const double k = std::exp(p[0]);
    out.parameters.push_back({"link_constant", k, k * std::sqrt(cov[0] * scale)});
    out.parameters.push_back({"overlap_range_m", 0, 0});
    out.parameters.push_back({"overlap_sharpness", 2, 0});
    return out;
  }
  // Fitted in logarithms: sigma_x = x sigma_ln x (first order).
  const char* names[3] = {"link_constant", "overlap_range_m", "overlap_sharpness"};
  for (int i = 0; i < 3; ++i) {
    const double x = std::exp(p[i]);
    out.parameters.push_back({names[i], x, x * std::sqrt(cov[i * 3 + i] * scale)});
  }
  // The overlap is told by the rows where it dims the signal; beyond it, any R_o below the
  // nearest range fits as well (a far-only lab once wrote R_o = 0.027 +- 0.55 m).
  const double r_o = std::exp(p[1]), k = std::exp(p[2]);
  size_t dimmed = 0;
  double nearest = used[0].range_m, farthest = used[0].range_m;
  for (const auto& s : used) {
    if (physics::NearFieldOverlap(s.range_m, r_o, k) < kOverlapVisible) ++dimmed;
    nearest = std::min(nearest, s.range_m);
    farthest = std::max(farthest, s.range_m);
  }
  const double rel = out.parameters[1].stddev / r_o;
  if (dimmed < 2 || !(rel <= 0.5)) {
    return Error{"range-intensity fit: the rows (" + NumberText(nearest) + " to " +
                 NumberText(farthest) +
                 " m) do not determine the near-field overlap: " + std::to_string(dimmed) +
                 " lie where the fitted O(R) is below " + NumberText(kOverlapVisible) +
                 " (R_o = " + NumberText(r_o) + " +- " + NumberText(out.parameters[1].stddev) +
                 " m); measure the target nearer, down to where its signal falls below the "
                 "inverse-square law, or declare the overlap complete (fit: {overlap: none}) for "
                 "a sensor without a near-field overlap"};
  }
  return out;
}

double ModelSignal(const FitResult& fit, double range_m, double reflectance, double incidence_deg) {
  const FitParameter* k = fit.Find("link_constant");
  const FitParameter* r_o = fit.Find("overlap_range_m");
  const FitParameter* sharpness = fit.Find("overlap_sharpness");
  if (!k || !r_o || !sharpness) return std::nan("");
  const bool overlap = r_o->value > 0;
  const double p[3] = {std::log(k->value), overlap ? std::log(r_o->value) : 0.0,
                       std::log(sharpness->value)};
  return Signal(p, overlap, range_m, reflectance, incidence_deg);
}

}  // namespace lt::calib
