#include "lidartwin/calib/jitter_fit.h"

#include <ceres/ceres.h>

#include <algorithm>
#include <cmath>

#include "least_squares.h"
#include "lidartwin/physics/detection_probability.h"

namespace lt::calib {

namespace {

// Parameters: ln j, ln sigma.
struct SpreadResidual {
  SignalSpreadSample s;
  template <typename T>
  bool operator()(const T* const p, T* residual) const {
    using std::exp;
    using std::log;
    const T model = physics::SignalSpread(exp(p[1]), exp(p[0]), T(s.signal));
    residual[0] = (T(std::log(s.spread)) - log(model)) * T(std::sqrt(2.0 * (s.pulses - 1)));
    return true;
  }
};

}  // namespace

Expected<FitResult> FitPulseEnergyJitter(const std::vector<SignalSpreadSample>& samples) {
  FitResult out;
  out.model = "signal spread sqrt(sigma^2 + (j S)^2)";
  std::vector<SignalSpreadSample> used;
  for (const auto& s : samples) {
    if (!(std::isfinite(s.signal) && std::isfinite(s.spread) && s.signal > 0 && s.spread > 0 &&
          s.pulses >= 2)) {
      ++out.points_rejected;
      continue;
    }
    used.push_back(s);
  }
  out.points_used = used.size();
  if (used.size() < 3) {
    return Error{"pulse-energy jitter fit: " + std::to_string(used.size()) +
                 " usable spreads for 2 parameters; at least 3 are needed"};
  }
  // Start: j from the largest signal's relative spread, sigma from the smallest's spread.
  const auto lo = std::min_element(
      used.begin(), used.end(), [](const auto& a, const auto& b) { return a.signal < b.signal; });
  const auto hi = std::max_element(
      used.begin(), used.end(), [](const auto& a, const auto& b) { return a.signal < b.signal; });
  double p[2] = {std::log(hi->spread / hi->signal), std::log(lo->spread)};
  ceres::Problem problem;
  for (const auto& s : used)
    problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<SpreadResidual, 1, 2>(new SpreadResidual{s}), nullptr, p);
  if (!SolveFit(problem, out)) {
    return Error{"pulse-energy jitter fit did not converge: " + out.solver_report};
  }
  double cov[4] = {};
  if (!BlockCovariance(problem, p, cov)) {
    return Error{
        "pulse-energy jitter fit: the covariance is rank-deficient (the spreads do not "
        "cover both the noise-dominated and the jitter-dominated signals)"};
  }
  double rss = 0;
  for (const auto& s : used) {
    const double r = std::log(s.spread) -
                     std::log(physics::SignalSpread(std::exp(p[1]), std::exp(p[0]), s.signal));
    rss += r * r;
  }
  out.residual_rms = std::sqrt(rss / used.size());  // in ln units
  const double j = std::exp(p[0]), sigma = std::exp(p[1]);
  out.parameters.push_back({"pulse_energy_jitter", j, j * std::sqrt(cov[0])});
  out.parameters.push_back({"noise_sigma", sigma, sigma * std::sqrt(cov[3])});
  return out;
}

}  // namespace lt::calib
