// The circuit of eq. (10) (seed 002 sec. 5.4) as first-order recursions instead of a transform:
// the same voltages, for a pole-zero circuit, at a few operations a sample.
//
// circuit.h discretizes H step-invariantly: its impulse response is
//   g[k] = sum_p c_p a_p^k, k >= 0,   a_p = exp(-w_p dt),   c_p = (r_p / w_p) (1 - a_p),
// with r_p, w_p H's partial fractions. Eq. (10) multiplies the record's DFT by G at the DFT's
// bins, which is the circular convolution with g periodized over the N samples (G's samples at
// theta_k = 2 pi k / N are the DFT of sum_m g[k + m N]): the record's periodic steady state.
// Per section p, with u_p = y_p / c_p,
//   u_p[i] = a_p u_p[i - 1] + x[i],   v[i] = sum_p c_p u_p[i],
// started at the periodic solution u_p[-1] = U_p / (1 - a_p^N), U_p the section's value at N - 1
// started from 0 (u_p[N - 1] = a_p^N u_p[-1] + U_p must equal u_p[-1]). In exact arithmetic
// this is the transform's result sample for sample. In float the states' rounding (a few ulps
// of u_p) is multiplied by the gains c_p, which for poles close together are large and of
// opposite sign and cancel in the sum: the error grows with the conditioning
// sum_p |c_p| / (1 - a_p) over |H(0)| (RecursionConditioning; 34 for the Cube 1, whose SiPM pulse
// and circuit pole are 6 % apart, for 3e-6 of the peak). Circuits above
// kMaxRecursionConditioning keep the transform, as do those with a section slower than
// kMaxRecursionDecay a sample (a margin for the states' growth, 1 / (1 - a), and the periodic
// start's 1 / (1 - a^N)), those of more than kMaxRecursionSections sections, and circuits given
// as a table (no poles).
//
// Each section's recursion is affine in its state, so blocks of samples compose: a block of L
// samples maps u_in to a_p^L u_in + (the block's value started from 0). The GPU's chain
// (sim/cuda/waveform_beam.cuh) scans these maps across a warp's lanes; the CPU keeps the
// transform, so the backends' comparison tests one against the other.
#pragma once

#include <cstdint>

#include "lidartwin/physics/hd.h"

namespace lt::physics {

inline constexpr uint32_t kMaxRecursionSections = 4;
inline constexpr double kMaxRecursionDecay = 0.99;       // a_p: a pole slower than 1.6 MHz at 1 ns
inline constexpr double kMaxRecursionConditioning = 50;  // errors to about 5e-6 of the peak

// The circuit's sections; count 0 where the circuit must keep the transform (above).
struct CircuitRecursion {
  uint32_t count;
  float decay[kMaxRecursionSections];  // a_p
  float gain[kMaxRecursionSections];   // c_p [ohm]
};

// The voltage response v[0 .. n) [V] of the sections to the current x[0 .. n) [A], the periodic
// steady state (above), sequentially in double: the reference for the GPU's scan.
LT_HD inline void RecursiveCircuitVoltage(const CircuitRecursion& r, const float* x, uint32_t n,
                                          float* v) {
  double start[kMaxRecursionSections];
  for (uint32_t p = 0; p < r.count; ++p) {
    double u = 0, a_n = 1;
    for (uint32_t i = 0; i < n; ++i) {
      u = r.decay[p] * u + x[i];
      a_n *= r.decay[p];
    }
    start[p] = u / (1 - a_n);
  }
  for (uint32_t i = 0; i < n; ++i) {
    double sum = 0;
    for (uint32_t p = 0; p < r.count; ++p) {
      start[p] = r.decay[p] * start[p] + x[i];
      sum += r.gain[p] * start[p];
    }
    v[i] = static_cast<float>(sum);
  }
}

}  // namespace lt::physics
