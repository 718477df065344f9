#include "lidartwin/calib/threshold_fit.h"

#include <ceres/ceres.h>

#include <algorithm>
#include <cmath>

#include "least_squares.h"

#include "lidartwin/base/config_check.h"
#include "lidartwin/calib/goodness_of_fit.h"

#include "lidartwin/physics/detection_probability.h"

namespace lt::calib {

namespace {

// Parameters: T and u = ln sigma (sigma stays positive).
struct CountResidual {
  double signal, trials, detections;
  double weight;  // 1 / sqrt(n p (1 - p)) at the previous estimate (IRLS)
  double jitter;  // known pulse-energy jitter
  template <typename T>
  bool operator()(const T* const p, T* residual) const {
    using std::exp;
    const T prob = physics::DetectionProbability(
        T(signal), p[0], physics::SignalSpread(exp(p[1]), T(jitter), T(signal)));
    residual[0] = (T(detections) - T(trials) * prob) * T(weight);
    return true;
  }
};

double Probability(const double* p, double s, double jitter) {
  return physics::DetectionProbability(s, p[0], physics::SignalSpread(std::exp(p[1]), jitter, s));
}

}  // namespace

Expected<FitResult> FitDetectionThreshold(const std::vector<DetectionSample>& samples,
                                          double jitter) {
  FitResult out;
  out.model = "probit";
  std::vector<DetectionSample> used;
  for (const auto& s : samples) {
    if (!std::isfinite(s.expected_signal) || s.trials == 0 || s.detections > s.trials) {
      ++out.points_rejected;
      continue;
    }
    used.push_back(s);
  }
  out.points_used = used.size();
  if (used.size() < 3) {
    return Error{"threshold fit: " + std::to_string(used.size()) +
                 " usable signal levels; at least 3 are needed"};
  }
  // The transition must be seen: some levels mostly missed, some mostly detected.
  bool low = false, high = false;
  for (const auto& s : used) {
    low = low || s.detections * 2 < s.trials;
    high = high || s.detections * 2 > s.trials;
  }
  if (!low || !high) {
    return Error{std::string("threshold fit: every signal level was ") +
                 (high ? "mostly detected" : "mostly missed") +
                 "; the sweep must cross the threshold"};
  }
  // And some level inside the transition: a bare step (all missed, then all detected) says
  // where T is only to within the step, and nothing about sigma.
  bool inside = false;
  for (const auto& s : used)
    inside = inside || (s.detections > 0 && s.detections < s.trials);
  if (!inside) {
    return Error{
        "threshold fit: no signal level inside the transition (every level detected "
        "always or never); sweep in finer steps across the threshold"};
  }
  // Start: T where the detection rate crosses 1/2, sigma a tenth of the swept span.
  std::sort(used.begin(), used.end(),
            [](const auto& a, const auto& b) { return a.expected_signal < b.expected_signal; });
  double p[2] = {
      used[used.size() / 2].expected_signal,
      std::log(0.1 * (used.back().expected_signal - used.front().expected_signal) + 1e-300)};
  for (size_t i = 1; i < used.size(); ++i) {
    if (used[i - 1].detections * 2 <= used[i - 1].trials &&
        used[i].detections * 2 >= used[i].trials) {
      p[0] = 0.5 * (used[i - 1].expected_signal + used[i].expected_signal);
      break;
    }
  }
  std::unique_ptr<ceres::Problem> problem;
  // Iteratively reweighted: weights from the current estimate, a handful of rounds.
  for (int round = 0; round < 8; ++round) {
    problem = std::make_unique<ceres::Problem>();
    for (const auto& s : used) {
      const double q = std::clamp(Probability(p, s.expected_signal, jitter), 1e-6, 1 - 1e-6);
      auto* cost = new ceres::AutoDiffCostFunction<CountResidual, 1, 2>(
          new CountResidual{s.expected_signal, double(s.trials), double(s.detections),
                            1 / std::sqrt(s.trials * q * (1 - q)), jitter});
      problem->AddResidualBlock(cost, nullptr, p);
    }
    const double before[2] = {p[0], p[1]};
    if (!SolveFit(*problem, out)) break;
    if (std::abs(p[0] - before[0]) <= 1e-10 * (std::abs(p[0]) + 1e-300) &&
        std::abs(p[1] - before[1]) <= 1e-10) {
      break;
    }
  }
  if (!out.converged) return Error{"threshold fit did not converge: " + out.solver_report};
  double rss = 0;
  for (const auto& s : used) {
    const double r = s.detections / double(s.trials) - Probability(p, s.expected_signal, jitter);
    rss += r * r;
  }
  out.residual_rms = std::sqrt(rss / used.size());  // in detection rate
  // Deviance residuals of the binomial counts (McCullagh & Nelder 1989, sec. 4.4.3): their
  // squares sum to the deviance, chi-square with N - 2 degrees of freedom for a model that
  // fits (counts of at least a few per level).
  std::vector<double> z;
  for (const auto& s : used) {
    const double n = s.trials, k = s.detections;
    const double q = std::clamp(Probability(p, s.expected_signal, jitter), 1e-300, 1 - 1e-16);
    const double hit = k > 0 ? k * std::log(k / (n * q)) : 0;
    const double miss = k < n ? (n - k) * std::log((n - k) / (n * (1 - q))) : 0;
    z.push_back(std::copysign(std::sqrt(std::max(0.0, 2 * (hit + miss))), k - n * q));
  }
  SetGoodnessOfFit(out, z, 2, [&](size_t i) {
    return "the level at expected signal " + NumberText(used[i].expected_signal) + " (" +
           std::to_string(used[i].detections) + " of " + std::to_string(used[i].trials) +
           " detected)";
  });
  double cov[4] = {};
  if (!BlockCovariance(*problem, p, cov)) {
    return Error{
        "threshold fit: the covariance is rank-deficient (too few levels inside the "
        "transition)"};
  }
  const double sigma = std::exp(p[1]);
  out.parameters.push_back({"threshold", p[0], std::sqrt(cov[0])});
  out.parameters.push_back({"noise_sigma", sigma, sigma * std::sqrt(cov[3])});
  return out;
}

}  // namespace lt::calib
