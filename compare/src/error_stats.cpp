#include "lidartwin/compare/error_stats.h"

#include <cmath>

namespace lt::compare {

void RunningStats::Add(double x) {
  ++n;
  const double d = x - mean;
  mean += d / static_cast<double>(n);
  m2 += d * (x - mean);
}

void RunningStats::Merge(const RunningStats& o) {
  if (o.n == 0) return;
  if (n == 0) {
    *this = o;
    return;
  }
  const double na = static_cast<double>(n), nb = static_cast<double>(o.n);
  const double d = o.mean - mean;
  mean += d * nb / (na + nb);
  m2 += o.m2 + d * d * na * nb / (na + nb);
  n += o.n;
}

double RunningStats::Std() const {
  return n < 2 ? 0.0 : std::sqrt(m2 / static_cast<double>(n - 1));
}

RunningStats RunningStats::FromMoments(uint64_t n, double mean, double std) {
  RunningStats s;
  s.n = n;
  s.mean = mean;
  s.m2 = n < 2 ? 0.0 : std * std * static_cast<double>(n - 1);
  return s;
}

void ErrorStats::Add(double error) {
  signed_error.Add(error);
  abs_error.Add(std::fabs(error));
}

void ErrorStats::Merge(const ErrorStats& o) {
  signed_error.Merge(o.signed_error);
  abs_error.Merge(o.abs_error);
}

}  // namespace lt::compare
