// Order statistics of a sample by selection (std::nth_element, O(n)), for the medians and
// quantiles the reconstruction and reproduce steps take of returns, ranges and periods, and the
// sample's mean. The
// sample is taken by value, so the caller's order is kept. No interpolation between elements.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

namespace lt {

// The k-th smallest element (k from 0, k < size).
template <typename T>
T NthSmallest(std::vector<T> v, size_t k) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

// The element at size / 2 (the upper median of an even count); NaN for an empty sample.
template <typename T>
T Median(const std::vector<T>& v) {
  if (v.empty()) return std::numeric_limits<T>::quiet_NaN();
  return NthSmallest(v, v.size() / 2);
}

// The element at min(size - 1, floor(q size)); NaN for an empty sample.
template <typename T>
T QuantileAt(const std::vector<T>& v, double q) {
  if (v.empty()) return std::numeric_limits<T>::quiet_NaN();
  return NthSmallest(
      v, std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size()))));
}

// The arithmetic mean; NaN for an empty sample.
template <typename T>
T Mean(const std::vector<T>& v) {
  T sum = 0;
  for (const T& x : v)
    sum += x;
  return v.empty() ? std::numeric_limits<T>::quiet_NaN() : sum / static_cast<T>(v.size());
}

// The median or the mean, `fallback` for an empty sample (an alternating fit's group that
// holds no return this round keeps its effect at 0).
template <typename T>
T MedianOr(const std::vector<T>& v, T fallback) {
  return v.empty() ? fallback : Median(v);
}
template <typename T>
T MeanOr(const std::vector<T>& v, T fallback) {
  return v.empty() ? fallback : Mean(v);
}

}  // namespace lt
