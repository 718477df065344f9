// Piecewise cubic Hermite interpolation of tabulated data, clamped at the ends.
//
// Seed 003 ("Material Spectroscopy") interpolates reflectance spectra with a Hermite scheme and
// clips outside the tabulated range. The seed does not name the tangents; we use the
// Fritsch-Carlson monotone tangents (Fritsch & Carlson, SIAM J. Numer. Anal. 17(2), 1980),
// so the interpolant never overshoots the neighbouring samples: a reflectance spectrum stays
// inside [0, 1] and a flat stretch stays flat. Linear data is reproduced exactly.
#pragma once

#include "lidartwin/physics/hd.h"

namespace lt::physics {

namespace detail {
template <typename T>
LT_HD T Secant(const T* x, const T* y, int i) {
  return (y[i + 1] - y[i]) / (x[i + 1] - x[i]);
}

// Fritsch-Carlson tangent at node i: zero at a local extremum, otherwise the weighted
// harmonic mean of the neighbouring secants (Fritsch & Butland's form, which satisfies the
// monotonicity conditions of Fritsch & Carlson 1980). One-sided secant at the ends.
template <typename T>
LT_HD T MonotoneTangent(const T* x, const T* y, int n, int i) {
  if (i == 0) return Secant(x, y, 0);
  if (i == n - 1) return Secant(x, y, n - 2);
  const T d0 = Secant(x, y, i - 1);
  const T d1 = Secant(x, y, i);
  if (d0 * d1 <= 0) return 0;
  const T h0 = x[i] - x[i - 1];
  const T h1 = x[i + 1] - x[i];
  const T w0 = 2 * h1 + h0;
  const T w1 = h1 + 2 * h0;
  return (w0 + w1) / (w0 / d0 + w1 / d1);
}
}  // namespace detail

// Interpolates y(xq) from n samples (x strictly increasing, n >= 1). Outside [x0, x_{n-1}]
// the end value is returned (seed 003: "it will clip to the edge values").
template <typename T>
LT_HD T HermiteInterpolate(const T* x, const T* y, int n, T xq) {
  if (n == 1 || xq <= x[0]) return y[0];
  if (xq >= x[n - 1]) return y[n - 1];
  int lo = 0;
  int hi = n - 1;
  while (hi - lo > 1) {  // x[lo] <= xq < x[hi]
    const int mid = (lo + hi) / 2;
    if (x[mid] <= xq) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const T h = x[hi] - x[lo];
  const T s = (xq - x[lo]) / h;
  const T m0 = detail::MonotoneTangent(x, y, n, lo);
  const T m1 = detail::MonotoneTangent(x, y, n, hi);
  // Cubic Hermite basis functions on s in [0, 1].
  const T s2 = s * s;
  const T s3 = s2 * s;
  const T h00 = 2 * s3 - 3 * s2 + 1;
  const T h10 = s3 - 2 * s2 + s;
  const T h01 = -2 * s3 + 3 * s2;
  const T h11 = s3 - s2;
  return h00 * y[lo] + h10 * h * m0 + h01 * y[hi] + h11 * h * m1;
}

}  // namespace lt::physics
