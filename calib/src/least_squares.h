// What every fit does with Ceres once its residuals are in the problem (private to calib/):
// one set of solver options, and the covariance of the parameter block that refuses a rank
// deficiency instead of truncating it.
#pragma once

#include <ceres/ceres.h>
#include <glog/logging.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "lidartwin/calib/fit_result.h"

namespace lt::calib {

// Solves with dense QR to tight tolerances, silently; records the brief report and whether it
// converged in `out`. Returns out.converged.
inline bool SolveFit(ceres::Problem& problem, FitResult& out, int max_iterations = 200) {
  ceres::Solver::Options options;
  options.linear_solver_type = ceres::DENSE_QR;
  options.max_num_iterations = max_iterations;
  options.function_tolerance = 1e-14;
  options.parameter_tolerance = 1e-14;
  options.logging_type = ceres::SILENT;
  ceres::Solver::Summary summary;
  // Ceres logs its solver's complaints (invalid steps of an overflowing cost) through glog; the
  // caller reports a failure in its own words.
  const int log_level = FLAGS_minloglevel;
  FLAGS_minloglevel = google::GLOG_FATAL;
  ceres::Solve(options, &problem, &summary);
  FLAGS_minloglevel = log_level;
  out.solver_report = summary.BriefReport();
  // A cost that is not finite (a zero or absurdly small measurement sigma) is no solution.
  out.converged = summary.termination_type == ceres::CONVERGENCE &&
                  std::isfinite(summary.initial_cost) && std::isfinite(summary.final_cost);
  return out.converged;
}

// The covariance of `block` in its tangent space (the free parameters when a manifold fixes
// some), row-major into `cov`; false when J^T J is rank-deficient (reciprocal condition
// number below 1e-14): the data cannot tell the parameters apart.
inline bool BlockCovariance(ceres::Problem& problem, const double* block, double* cov) {
  // Ceres logs a rank deficiency through glog before returning false; the caller says it.
  const int log_level = FLAGS_minloglevel;
  FLAGS_minloglevel = google::GLOG_FATAL;
  ceres::Covariance::Options options;
  options.algorithm_type = ceres::DENSE_SVD;
  options.null_space_rank = 0;  // a rank deficiency fails Compute instead of being truncated
  options.min_reciprocal_condition_number = 1e-14;
  ceres::Covariance covariance(options);
  const std::vector<std::pair<const double*, const double*>> blocks = {{block, block}};
  const bool ok = covariance.Compute(blocks, &problem) &&
                  covariance.GetCovarianceBlockInTangentSpace(block, block, cov);
  FLAGS_minloglevel = log_level;
  return ok;
}

}  // namespace lt::calib

namespace lt::calib {

// First-order propagation of a covariance through g: R^n -> R^m, Jacobian by central
// differences (step 1e-6 of each parameter's scale). Returns m x m, row-major.
template <typename G>
std::vector<double> PropagateCovariance(const G& g, const std::vector<double>& theta,
                                        const std::vector<double>& cov, size_t m) {
  const size_t n = theta.size();
  std::vector<double> jac(m * n);
  for (size_t j = 0; j < n; ++j) {
    const double h = 1e-6 * std::max(1.0, std::abs(theta[j]));
    std::vector<double> a = theta, b = theta;
    a[j] += h;
    b[j] -= h;
    const std::vector<double> ga = g(a), gb = g(b);
    for (size_t i = 0; i < m; ++i)
      jac[i * n + j] = (ga[i] - gb[i]) / (2 * h);
  }
  std::vector<double> out(m * m, 0.0);
  for (size_t i = 0; i < m; ++i)
    for (size_t k = 0; k < m; ++k) {
      double s = 0;
      for (size_t a = 0; a < n; ++a)
        for (size_t b = 0; b < n; ++b)
          s += jac[i * n + a] * cov[a * n + b] * jac[k * n + b];
      out[i * m + k] = s;
    }
  return out;
}

// Fills result.parameters' values from `values`, their standard deviations and the
// covariance from `cov` (m x m).
inline void SetParameters(FitResult& result, const std::vector<std::string>& names,
                          const std::vector<double>& values, const std::vector<double>& cov) {
  result.parameters.clear();
  for (size_t i = 0; i < names.size(); ++i)
    result.parameters.push_back(
        {names[i], values[i], std::sqrt(std::max(0.0, cov[i * names.size() + i]))});
  result.covariance = cov;
}

}  // namespace lt::calib
