// The mean and spread of repeated readings (private to calib/): a virtual lab's shots and a
// recorded target's returns.
#pragma once

#include <cmath>
#include <vector>

#include "lidartwin/base/order_statistics.h"

namespace lt::calib {

// The sample standard deviation (n - 1); 0 for fewer than two readings.
inline double SampleSd(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = Mean(v);
  double s = 0;
  for (double x : v)
    s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1));
}

// The standard error of the mean: SampleSd / sqrt(n).
inline double StandardError(const std::vector<double>& v) {
  return SampleSd(v) / std::sqrt(static_cast<double>(v.size()));
}

}  // namespace lt::calib
