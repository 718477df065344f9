#include "lidartwin/calib/jitter_fit.h"

#include <ceres/ceres.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "least_squares.h"
#include "lidartwin/base/config_check.h"
#include "lidartwin/calib/goodness_of_fit.h"
#include "lidartwin/physics/detection_probability.h"

namespace lt::calib {

namespace {

// Parameters: the variances, scaled to about 1 at the start: p[0] = j^2 / J0^2 and p[1] =
// sigma^2 / s0^2. In variances (not ln j, ln sigma) neither term's derivative vanishes where it
// is small: a jitter below the kernel's sampling spread, or a noise the rows barely see, is
// then an estimate near 0 with its uncertainty, not a rank-deficient covariance.
struct SpreadResidual {
  SignalSpreadSample s;
  double m;       // known relative spread besides the jitter
  double j0_sq;   // J0^2
  double s0_sq;   // s0^2
  double weight;  // 1 / the standard deviation of ln s
  template <typename T>
  bool operator()(const T* const p, T* residual) const {
    using std::log;
    const T variance = T(s0_sq) * p[1] + (T(j0_sq) * p[0] + T(m * m)) * T(s.signal * s.signal);
    residual[0] = (T(std::log(s.spread)) - T(0.5) * log(variance + T(1e-300))) * T(weight);
    return true;
  }
};

}  // namespace

Expected<FitResult> FitPulseEnergyJitter(const std::vector<SignalSpreadSample>& samples,
                                         double sampling_spread, double sampling_kurtosis) {
  const double m = sampling_spread;
  FitResult out;
  out.model = m > 0 ? "signal spread sqrt(sigma^2 + (j^2 + m^2) S^2), m = " + NumberText(m) +
                          " from the kernel's sampling"
                    : "signal spread sqrt(sigma^2 + (j S)^2)";
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
  const double total = hi->spread / hi->signal;
  // The start's scale of j^2: what the largest signal's spread leaves above m, held to a
  // hundredth of its square where the sampling takes nearly all (j^2 / J0^2 is the parameter:
  // its scale must not be 0).
  const double j0_sq = std::max(total * total - m * m, 0.01 * total * total),
               s0_sq = lo->spread * lo->spread;
  // 1 / sd(ln s) of each spread: the Gaussian 1 / sqrt(2 (N - 1)) in the first pass; then with
  // the sampling's kurtosis at the first pass's variances.
  std::vector<double> weight;
  for (const auto& s : used)
    weight.push_back(std::sqrt(2.0 * (s.pulses - 1)));
  double p[2] = {1, 1};
  std::unique_ptr<ceres::Problem> problem;
  for (int pass = 0; pass < (sampling_kurtosis != 0 ? 2 : 1); ++pass) {
    if (pass == 1) {
      for (size_t i = 0; i < used.size(); ++i) {
        const double s2 = used[i].signal * used[i].signal;
        const double v = s0_sq * p[1] + (j0_sq * p[0] + m * m) * s2;
        const double g = sampling_kurtosis * m * m * m * m * s2 * s2 / (v * v);
        const double n = used[i].pulses;
        // A light-tailed sampling (g < 0) narrows the error: held to half the Gaussian's
        // variance at least.
        weight[i] = 1 / std::sqrt(std::max(0.25 * (2 / (n - 1) + g / n), 0.25 / (n - 1)));
      }
    }
    problem = std::make_unique<ceres::Problem>();
    for (size_t i = 0; i < used.size(); ++i)
      problem->AddResidualBlock(new ceres::AutoDiffCostFunction<SpreadResidual, 1, 2>(
                                    new SpreadResidual{used[i], m, j0_sq, s0_sq, weight[i]}),
                                nullptr, p);
    // Variances are not negative.
    problem->SetParameterLowerBound(p, 0, 0.0);
    problem->SetParameterLowerBound(p, 1, 0.0);
    if (!SolveFit(*problem, out)) {
      return Error{"pulse-energy jitter fit did not converge: " + out.solver_report};
    }
  }
  double cov[4] = {};
  if (!BlockCovariance(*problem, p, cov)) {
    return Error{
        "pulse-energy jitter fit: the covariance is rank-deficient (the spreads do not "
        "cover both the noise-dominated and the jitter-dominated signals)"};
  }
  const double j_sq = j0_sq * p[0], sigma_sq = s0_sq * p[1];
  // ln s of a sample spread of n pulses has the standard deviation the weights give (1 /
  // sqrt(2 (n - 1)) for Gaussian pulses): the goodness of fit is judged against it.
  double rss = 0;
  std::vector<double> z;
  for (const auto& s : used) {
    const double r =
        std::log(s.spread) -
        std::log(physics::SignalSpread(std::sqrt(sigma_sq), std::sqrt(j_sq + m * m), s.signal));
    rss += r * r;
    z.push_back(r * weight[z.size()]);
  }
  SetGoodnessOfFit(out, z, 2,
                   [&](size_t i) { return "the spread at signal " + NumberText(used[i].signal); });
  out.residual_rms = std::sqrt(rss / used.size());  // in ln units
  // From a variance v +- s_v to its root: the 1-sigma upper bound sqrt(v + s_v) less sqrt(v),
  // which is s_v / (2 sqrt v) (first order) where v is well above s_v, and sqrt(s_v) at v = 0.
  auto root = [](double v, double sd_v) {
    const double x = std::sqrt(std::max(v, 0.0));
    return std::pair{x, std::sqrt(std::max(v, 0.0) + sd_v) - x};
  };
  const auto [j, sd_j] = root(j_sq, j0_sq * std::sqrt(cov[0]));
  const auto [sigma, sd_sigma] = root(sigma_sq, s0_sq * std::sqrt(cov[3]));
  out.parameters.push_back({"pulse_energy_jitter", j, sd_j});
  out.parameters.push_back({"noise_sigma", sigma, sd_sigma});
  return out;
}

}  // namespace lt::calib
