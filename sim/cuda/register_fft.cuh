// The circuit's transform (seed 002 eq. 10) of two beams' records at once, by one warp, the
// records held in registers (issue 15's fast path).
//
// Two beams in one complex transform: the circuit is real (H(-f) = conj H(f), and the bins are
// made exactly so, circuit.h), so for real currents x_a, x_b, IDFT{H DFT{x_a + i x_b}} =
// v_a + i v_b with v_a, v_b real: the real part is beam a's voltage and the imaginary part beam
// b's, with no unpacking. One complex FFT of N serves two beams, half the work of one a beam;
// the float transform's rounding mixes the two at about 1e-7 of the brighter one's peak.
//
// Four steps (Bailey's FFT, Van Loan, "Computational Frameworks for the FFT", sec. 3.3) with
// N = 32 R, n = l + 32 m (lane l holds m = 0 .. R-1), k = k1 + R k2:
//   X[k1 + R k2] = sum_l W_32^(l k2) W_N^(l k1) sum_m z[l + 32 m] W_R^(m k1),
// so each lane transforms its R values in registers, multiplies by W_N^(l k1), the warp
// transposes through shared memory, and each lane transforms the 32 values of its columns in
// registers. The spectrum stays in that order for the product with H; the inverse runs the
// steps backwards to the natural order. Shared memory is touched twice a transform (once each
// way) instead of at each of log2 N radix-2 stages.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "lidartwin/physics/fft.h"
#include "lidartwin/physics/units.h"
#include "lidartwin/physics/waveform.h"

namespace lt::cuda {

// The 64th roots of unity W_64^e = exp(-2 pi i e / 64), e < 32, the factors of the in-register
// transforms, evaluated at compile time (Taylor series in double, then rounded to float as
// physics::Twiddle rounds its table).
struct UnitRoots64 {
  float re[32], im[32];
};
constexpr double TaylorCos(double x) {
  double term = 1, sum = 1;
  for (int n = 1; n < 40; ++n) {
    term *= -x * x / ((2 * n - 1) * (2 * n));
    sum += term;
  }
  return sum;
}
constexpr double TaylorSin(double x) {
  double term = x, sum = x;
  for (int n = 1; n < 40; ++n) {
    term *= -x * x / ((2 * n) * (2 * n + 1));
    sum += term;
  }
  return sum;
}
constexpr UnitRoots64 MakeUnitRoots64() {
  UnitRoots64 r{};
  for (int e = 0; e < 32; ++e) {
    const double a = -2 * physics::kPi * e / 64;
    r.re[e] = static_cast<float>(TaylorCos(a));
    r.im[e] = static_cast<float>(TaylorSin(a));
  }
  return r;
}
static __constant__ UnitRoots64 kUnitRoots64 = MakeUnitRoots64();

constexpr int Log2Of(int n) {
  int k = 0;
  while ((1 << k) < n)
    ++k;
  return k;
}
constexpr int BitReverse(int i, int bits) {
  int r = 0;
  for (int b = 0; b < bits; ++b)
    r |= ((i >> b) & 1) << (bits - 1 - b);
  return r;
}

// f(std::integral_constant<int, i>) for i = Begin .. End - 1: the index a constant expression,
// where an unrolled loop's index is one only if the optimizer folds it (the bit reversal's
// was not, and put the whole array in local memory).
template <int Begin, int End, typename F>
__device__ __forceinline__ void StaticFor(F&& f) {
  if constexpr (Begin < End) {
    f(std::integral_constant<int, Begin>{});
    StaticFor<Begin + 1, End>(f);
  }
}

// v W_64^e (conjugate root for the inverse); e is a compile-time constant after unrolling, so
// the trivial factors cost nothing.
template <bool kInverse>
__device__ __forceinline__ physics::ComplexF Rotate(physics::ComplexF v, int e) {
  if (e == 0) return v;
  if (e == 16) return kInverse ? physics::ComplexF{-v.im, v.re} : physics::ComplexF{v.im, -v.re};
  const float c = kUnitRoots64.re[e];
  const float s = kInverse ? -kUnitRoots64.im[e] : kUnitRoots64.im[e];
  return {v.re * c - v.im * s, v.re * s + v.im * c};
}

// In-register DFT of a[0 .. R) (R a power of two, 2 .. 64), radix-2 decimation in time;
// kInverse: the conjugate transform, unscaled. Every index is a compile-time constant once the
// loops unroll, so `a` stays in registers and the bit reversal is a renaming.
template <int R, bool kInverse>
__device__ __forceinline__ void RegisterFft(physics::ComplexF (&a)[R]) {
  static_assert(R >= 2 && R <= 64 && (R & (R - 1)) == 0, "R: a power of two, 2 .. 64");
  constexpr int kBits = Log2Of(R);
  StaticFor<0, R>([&](auto index) {
    constexpr int i = decltype(index)::value;
    constexpr int j = BitReverse(i, kBits);
    if constexpr (i < j) {
      const physics::ComplexF t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  });
  StaticFor<0, kBits>([&](auto stage) {
    constexpr int half = 1 << decltype(stage)::value;
    StaticFor<0, R / 2>([&](auto butterfly) {  // butterfly b: the pair (start + k, + half)
      constexpr int b = decltype(butterfly)::value;
      constexpr int k = b % half;
      constexpr int lo = (b / half) * 2 * half + k;
      const physics::ComplexF u = a[lo];
      const physics::ComplexF v = Rotate<kInverse>(a[lo + half], k * (32 / half));
      a[lo] = {u.re + v.re, u.im + v.im};
      a[lo + half] = {u.re - v.re, u.im - v.im};
    });
  });
}

// The four steps' factors W_N^(l k1) for N = 32 R, at [k1 32 + l] so that a warp's lanes read
// consecutive values: computed in double, kept in float, as physics::Twiddle. Uploaded once
// per sensor.
inline std::vector<physics::ComplexF> StepTwiddles(uint32_t n) {
  std::vector<physics::ComplexF> t(n);
  for (uint32_t k1 = 0; k1 < n / 32; ++k1) {
    for (uint32_t l = 0; l < 32; ++l) {
      const double a = -2 * physics::kPi * ((uint64_t{l} * k1) % n) / n;
      t[k1 * 32 + l] = {static_cast<float>(std::cos(a)), static_cast<float>(std::sin(a))};
    }
  }
  return t;
}

__device__ __forceinline__ physics::ComplexF Conj(physics::ComplexF v) {
  return {v.re, -v.im};
}

// Shared memory of the transpose for R values a lane: R rows of 32, one spare value a row so
// that a lane reading its column meets no other lane's bank.
__host__ __device__ constexpr uint32_t TransposeValues(uint32_t r) {
  return r * 33;
}

// v_a + i v_b = IDFT{H DFT{x_a + i x_b}} for records of N = 32 R samples (R = 32 or 64): lane l
// passes z[l + 32 m] in a[m] and gets the result there, unscaled (times N). `t`: the warp's
// TransposeValues(R) values of shared memory, free on entry; the caller syncs the warp before
// (its reads of what `t` overlays) and after. `step`: StepTwiddles(N) in device memory.
template <int R>
__device__ __forceinline__ void RegisterCircuitPair(const physics::WaveformChain& w,
                                                    physics::ComplexF (&a)[R], physics::ComplexF* t,
                                                    const physics::ComplexF* step) {
  static_assert(R == 32 || R == 64, "a lane's values: 32 or 64 (N = 1024 or 2048)");
  const uint32_t l = threadIdx.x & 31u;
  RegisterFft<R, false>(a);
#pragma unroll
  for (int k1 = 1; k1 < R; ++k1)
    a[k1] = physics::Mul(a[k1], step[k1 * 32 + l]);
#pragma unroll
  for (int k1 = 0; k1 < R; ++k1)
    t[k1 * 33 + l] = a[k1];
  __syncwarp();
  // Lane l's columns k1 = l + 32 j: the 32-point transforms, H, and back.
#pragma unroll
  for (int j = 0; j < R / 32; ++j) {
    const uint32_t k1 = l + 32 * j;
    physics::ComplexF b[32];
#pragma unroll
    for (int i = 0; i < 32; ++i)
      b[i] = t[k1 * 33 + i];
    RegisterFft<32, false>(b);
#pragma unroll
    for (int k2 = 0; k2 < 32; ++k2)
      b[k2] = physics::Mul(b[k2], w.transfer[k1 + R * k2]);
    RegisterFft<32, true>(b);
#pragma unroll
    for (int i = 0; i < 32; ++i)
      t[k1 * 33 + i] = b[i];
  }
  __syncwarp();
#pragma unroll
  for (int k1 = 0; k1 < R; ++k1)
    a[k1] = t[k1 * 33 + l];
#pragma unroll
  for (int k1 = 1; k1 < R; ++k1)
    a[k1] = physics::Mul(a[k1], Conj(step[k1 * 32 + l]));
  RegisterFft<R, true>(a);
}

}  // namespace lt::cuda
