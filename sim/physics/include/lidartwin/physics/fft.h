// The discrete Fourier transform of a waveform (the circuit of seed 002 eq. 10 multiplies its
// spectrum by H(f)): an iterative radix-2 Cooley-Tukey FFT in place, over a twiddle table
// computed once per sensor (in double, stored in float) so that every backend multiplies by
// the very same factors.
//   X[k] = sum_i x[i] exp(-2 pi i j k / N),  x[i] = (1 / N) sum_k X[k] exp(+2 pi i j k / N).
#pragma once

#include <cmath>
#include <cstdint>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/units.h"

namespace lt::physics {

struct ComplexF {
  float re, im;
};

LT_HD inline ComplexF Mul(ComplexF a, ComplexF b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

// Twiddle k of a length-n transform, exp(-2 pi i k / n), k < n / 2.
inline ComplexF Twiddle(uint32_t k, uint32_t n) {
  const double a = -2 * kPi * k / n;
  return {static_cast<float>(std::cos(a)), static_cast<float>(std::sin(a))};
}

// Butterfly b (< n / 2) of the stage that merges transforms of length len / 2 into len: the
// pair (start + k, start + k + len / 2), start = (b / (len / 2)) len, k = b mod (len / 2). The
// butterflies of one stage touch disjoint pairs, so they may run in any order or in parallel
// (a GPU warp) and give the same values.
template <typename Samples>
LT_HD void Butterfly(Samples x, uint32_t n, uint32_t len, uint32_t b, const ComplexF* twiddles,
                     bool inverse) {
  const uint32_t half = len >> 1;
  const uint32_t k = b & (half - 1);
  const uint32_t start = (b - k) * 2;
  ComplexF w = twiddles[k * (n / len)];
  if (inverse) w.im = -w.im;
  const ComplexF a = x[start + k];
  const ComplexF c = Mul(w, x[start + k + half]);
  x[start + k] = {a.re + c.re, a.im + c.im};
  x[start + k + half] = {a.re - c.re, a.im - c.im};
}

// The inverse transform's 1 / n on one value.
LT_HD inline void ScaleInverse(ComplexF& v, uint32_t n) {
  const float scale = 1.0f / static_cast<float>(n);
  v.re *= scale;
  v.im *= scale;
}

// True when n is a power of two.
LT_HD inline bool IsPowerOfTwo(uint32_t n) {
  return n != 0 && (n & (n - 1)) == 0;
}

// In-place FFT of x[0 .. n), n a power of two; twiddles[k] = Twiddle(k, n) for k < n / 2.
// inverse: the conjugate transform, scaled by 1 / n (x = IFFT(FFT(x)) to rounding).
// Samples: anything indexed like a ComplexF array.
template <typename Samples>
LT_HD void Fft(Samples x, uint32_t n, const ComplexF* twiddles, bool inverse) {
  // Bit-reversal permutation.
  for (uint32_t i = 1, j = 0; i < n; ++i) {
    uint32_t bit = n >> 1;
    for (; j & bit; bit >>= 1)
      j ^= bit;
    j ^= bit;
    if (i < j) {
      const ComplexF t = x[i];
      x[i] = x[j];
      x[j] = t;
    }
  }
  for (uint32_t len = 2; len <= n; len <<= 1) {
    for (uint32_t b = 0; b < n / 2; ++b)
      Butterfly(x, n, len, b, twiddles, inverse);
  }
  if (inverse) {
    for (uint32_t i = 0; i < n; ++i)
      ScaleInverse(x[i], n);
  }
}

}  // namespace lt::physics
