// Running statistics of an error (simulated minus real) that merge across frames and files:
// Welford's update for the signed error and, separately, for its absolute value, so a report
// can pool several metrics files exactly (Chan et al.'s pairwise merge).
#pragma once

#include <cstdint>

namespace lt::compare {

struct RunningStats {
  uint64_t n = 0;
  double mean = 0;
  double m2 = 0;  // sum of squared deviations from the mean

  void Add(double x);
  void Merge(const RunningStats& o);
  // Sample standard deviation (n - 1); 0 for fewer than two values.
  double Std() const;
  // From a stored (n, mean, sample std), as metrics.json keeps them.
  static RunningStats FromMoments(uint64_t n, double mean, double std);
};

// Seed 000 Tables I-II report the mean and standard deviation of the error magnitude; we keep
// the signed error too (its mean is the bias, which the magnitude hides).
struct ErrorStats {
  RunningStats signed_error;
  RunningStats abs_error;

  void Add(double error);
  void Merge(const ErrorStats& o);
  uint64_t n() const { return abs_error.n; }
};

}  // namespace lt::compare
