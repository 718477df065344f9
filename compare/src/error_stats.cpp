#include "lidartwin/compare/error_stats.h"

#include <algorithm>
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

void MagnitudeQuantiles::Add(double magnitude, uint64_t count) {
  const double m = std::fabs(magnitude);
  int bin = 0;
  if (m > kMinMagnitude) {
    bin = 1 + static_cast<int>(std::floor(std::log10(m / kMinMagnitude) * kBinsPerDecade));
    bin = std::min(bin, kDecades * kBinsPerDecade);
  }
  if (count == 0) return;
  counts[bin] += count;
  n += count;
}

void MagnitudeQuantiles::Merge(const MagnitudeQuantiles& o) {
  for (const auto& [bin, c] : o.counts)
    counts[bin] += c;
  n += o.n;
}

double MagnitudeQuantiles::Quantile(double q) const {
  if (n == 0) return 0;
  const double wanted = q * static_cast<double>(n);
  uint64_t seen = 0;
  for (const auto& [bin, c] : counts) {
    seen += c;
    if (static_cast<double>(seen) >= wanted) {
      if (bin == 0) return 0;  // below kMinMagnitude
      // Bin b covers kMin * 10^((b-1)/k) .. kMin * 10^(b/k); its geometric centre:
      return kMinMagnitude * std::pow(10.0, (bin - 0.5) / kBinsPerDecade);
    }
  }
  return kMinMagnitude * std::pow(10.0, kDecades);
}

}  // namespace lt::compare
