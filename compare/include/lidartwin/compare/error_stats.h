// Running statistics of an error (simulated minus real) that merge across frames and files:
// Welford's update for the signed error and, separately, for its absolute value, so a report
// can pool several metrics files exactly (Chan et al.'s pairwise merge).
#pragma once

#include <cstdint>
#include <map>

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

// Quantiles of an error's magnitude that merge across frames and files like the moments above:
// a histogram over logarithmic bins, kBinsPerDecade to the decade from kMinMagnitude up (so a
// quantile is known to 1.2 % of its value: half a bin), with the magnitudes below kMinMagnitude
// in bin 0. The mean is dominated by the few pixels at edges; re-simulation papers report the
// median and p90 beside it (issue 12).
struct MagnitudeQuantiles {
  static constexpr int kBinsPerDecade = 100;
  static constexpr double kMinMagnitude = 1e-5;  // 10 um for ranges in metres
  static constexpr int kDecades = 8;             // up to 1000 m
  std::map<int, uint64_t> counts;                // bin -> values (sparse)
  uint64_t n = 0;

  void Add(double magnitude, uint64_t count = 1);
  void Merge(const MagnitudeQuantiles& o);
  // The q-quantile (0 < q < 1) at the geometric centre of its bin; 0 when empty.
  double Quantile(double q) const;
};

}  // namespace lt::compare
