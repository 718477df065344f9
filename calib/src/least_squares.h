// What every fit does with Ceres once its residuals are in the problem (private to calib/):
// one set of solver options, and the covariance of the parameter block that refuses a rank
// deficiency instead of truncating it.
#pragma once

#include <ceres/ceres.h>

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
  ceres::Solve(options, &problem, &summary);
  out.solver_report = summary.BriefReport();
  out.converged = summary.termination_type == ceres::CONVERGENCE;
  return out.converged;
}

// The covariance of `block` in its tangent space (the free parameters when a manifold fixes
// some), row-major into `cov`; false when J^T J is rank-deficient (reciprocal condition
// number below 1e-14): the data cannot tell the parameters apart.
inline bool BlockCovariance(ceres::Problem& problem, const double* block, double* cov) {
  ceres::Covariance::Options options;
  options.algorithm_type = ceres::DENSE_SVD;
  options.null_space_rank = 0;  // a rank deficiency fails Compute instead of being truncated
  options.min_reciprocal_condition_number = 1e-14;
  ceres::Covariance covariance(options);
  const std::vector<std::pair<const double*, const double*>> blocks = {{block, block}};
  return covariance.Compute(blocks, &problem) &&
         covariance.GetCovarianceBlockInTangentSpace(block, block, cov);
}

}  // namespace lt::calib
