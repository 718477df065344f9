// The analog front end as a small-signal transfer function (seed 002 sec. 5.4, eq. 10):
//   v_c[i] = v_c0 + IDFT{ H(f) DFT{ i_d[i] } },
// here with the SiPM's single-cell pulse (sipm.h) folded in, so one spectrum product applies
// both linear stages. A cell's current pulse rises at once and decays with tau_p; per unit
// charge it is h_SiPM(t) = exp(-t / tau_p) / tau_p, whose transform is 1 / (1 + j 2 pi f tau_p).
// The circuit is a transimpedance R_T [V/A = ohm] with real poles and zeros given as corner
// frequencies f_p, f_z [Hz] (poles at s = -2 pi f_p):
//   H(f) = R_T prod_z (1 + j f / f_z) / prod_p (1 + j f / f_p) / (1 + j 2 pi f tau_p),
// H(0) = R_T. A measured response may replace the pole-zero form as a table (sensor profile).
#pragma once

#include <complex>
#include <cstdint>

#include "lidartwin/physics/fft.h"

namespace lt::physics {

inline constexpr uint32_t kMaxCircuitCorners = 8;  // poles, and zeros, of one circuit

struct PoleZeroCircuit {
  double transimpedance_ohm;  // R_T
  double poles_hz[kMaxCircuitCorners];
  uint32_t pole_count;
  double zeros_hz[kMaxCircuitCorners];
  uint32_t zero_count;
  double pulse_decay_s;  // tau_p of the SiPM cell's pulse (0: an impulse)
};

// H(f) [ohm] at frequency f [Hz] (signed: H(-f) = conj H(f), as for every real system).
inline std::complex<double> CircuitResponse(const PoleZeroCircuit& c, double f_hz) {
  const std::complex<double> j(0, 1);
  std::complex<double> h = c.transimpedance_ohm;
  for (uint32_t k = 0; k < c.zero_count; ++k)
    h *= 1.0 + j * f_hz / c.zeros_hz[k];
  for (uint32_t k = 0; k < c.pole_count; ++k)
    h /= 1.0 + j * f_hz / c.poles_hz[k];
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  h /= 1.0 + j * kTwoPi * f_hz * c.pulse_decay_s;
  return h;
}

// The DFT frequency of bin k of an n-point transform at sample interval dt [s]: k / (n dt) for
// k <= n / 2, (k - n) / (n dt) above (the negative frequencies).
inline double BinFrequency(uint32_t k, uint32_t n, double dt_s) {
  const double kk = k <= n / 2 ? static_cast<double>(k) : static_cast<double>(k) - n;
  return kk / (n * dt_s);
}

// H at the n bins of an n-point transform at sample interval dt [s], in float for the
// spectrum product of eq. (10). The output is the real part of the inverse transform, which
// is what a conjugate-symmetric H at the Nyquist bin would give.
inline void FillTransferBins(const PoleZeroCircuit& c, uint32_t n, double dt_s, ComplexF* out) {
  for (uint32_t k = 0; k < n; ++k) {
    const std::complex<double> h = CircuitResponse(c, BinFrequency(k, n, dt_s));
    out[k] = {static_cast<float>(h.real()), static_cast<float>(h.imag())};
  }
}

// The twiddle table of an n-point transform (fft.h).
inline void FillTwiddles(uint32_t n, ComplexF* out) {
  for (uint32_t k = 0; k < n / 2; ++k)
    out[k] = Twiddle(k, n);
}

}  // namespace lt::physics
