// The analog front end as a small-signal transfer function (seed 002 sec. 5.4, eq. 10):
//   v_c[i] = v_c0 + IDFT{ H(f) DFT{ i_d[i] } },
// here with the SiPM's single-cell pulse (sipm.h) folded in, so one spectrum product applies
// both linear stages. A cell's current pulse rises at once and decays with tau_p; per unit
// charge it is h_SiPM(t) = exp(-t / tau_p) / tau_p, whose transform is 1 / (1 + j 2 pi f tau_p).
// The circuit is a transimpedance R_T [V/A = ohm] with real poles and zeros given as corner
// frequencies f_p, f_z [Hz] (poles at s = -2 pi f_p):
//   H(f) = R_T prod_z (1 + j f / f_z) / prod_p (1 + j f / f_p) / (1 + j 2 pi f tau_p),
// H(0) = R_T.
//
// In discrete time. Sampling this H(f) at the DFT's bins would cut it at Nyquist: for a
// response that jumps at t = 0 (a cell's pulse rises at once) the result rings before every
// pulse (about 5 % of the peak one sample ahead for the Cube 1's circuit), and a strong return
// would throw false echoes ahead of itself. The bins hold instead the transform of the
// circuit's step-invariant discretization: the charge of sample i arrives evenly over the bin
// ending at i dt, so with H's partial fractions H(s) = sum_p r_p / (s + w_p),
//   g[k] = integral of h over [k dt, (k + 1) dt] = sum_p (r_p / w_p) (1 - a_p) a_p^k, k >= 0,
//   a_p = exp(-w_p dt), and G(theta) = sum_p (r_p / w_p) (1 - a_p) / (1 - a_p e^{-j theta}):
// causal, exact at every sample for charge spread over its bin, and exact at DC (sum g = H(0)).
// It needs distinct real poles and fewer zeros than poles (the profile's check).
//
// A measured front end may be given instead as a table of H_c(f): gain [ohm] and phase at
// frequencies from 0 up to at least Nyquist, as a network analyser gives it. Its bins are the
// table, interpolated linearly in gain and phase, times the SiPM pulse's
// 1 / (1 + j 2 pi f tau_p): the frequency-sampling design, with no poles to discretize. It is
// exact at the bins, but the response between them is whatever the table's implied impulse
// response is, wrapped round the record: a table whose impulse response rings ahead of itself
// or outlasts the record is refused by the profile's check (ResponseEnergyShare).
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "lidartwin/physics/circuit_recursion.h"
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

// H's poles w_p [rad/s] (the circuit's and the SiPM pulse's 1 / tau_p) and their residues r_p
// [ohm/s] in H(s) = sum_p r_p / (s + w_p); false when two poles coincide or the zeros are not
// fewer than the poles.
struct PartialFractions {
  double w[kMaxCircuitCorners + 1];
  double r[kMaxCircuitCorners + 1];
  uint32_t count;
};
inline bool CircuitPartialFractions(const PoleZeroCircuit& c, PartialFractions& out) {
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  out.count = 0;
  for (uint32_t k = 0; k < c.pole_count; ++k)
    out.w[out.count++] = kTwoPi * c.poles_hz[k];
  if (c.pulse_decay_s > 0) out.w[out.count++] = 1 / c.pulse_decay_s;
  if (c.zero_count >= out.count) return false;
  for (uint32_t p = 0; p < out.count; ++p) {
    // r_p = lim (s + w_p) H(s), with each factor written 1 / (1 + s / w) = w / (s + w).
    double r = c.transimpedance_ohm * out.w[p];
    for (uint32_t q = 0; q < out.count; ++q) {
      if (q == p) continue;
      const double gap = out.w[q] - out.w[p];
      if (std::abs(gap) <= 1e-9 * out.w[q]) return false;
      r *= out.w[q] / gap;
    }
    for (uint32_t z = 0; z < c.zero_count; ++z)
      r *= 1 - out.w[p] / (kTwoPi * c.zeros_hz[z]);
    out.r[p] = r;
  }
  return true;
}

// Partial fraction p discretized step-invariantly at sample interval dt [s]: its decay a_p =
// exp(-w_p dt) a sample and the gain c_p = (r_p / w_p) (1 - a_p) [ohm] of its response
// g_p[k] = c_p a_p^k (above).
struct DiscreteSection {
  double decay, gain;
};
inline DiscreteSection StepInvariantSection(const PartialFractions& pf, uint32_t p, double dt_s) {
  const double a = std::exp(-pf.w[p] * dt_s);
  return {a, pf.r[p] / pf.w[p] * (1 - a)};
}

// The step-invariant discrete response at the n bins of an n-point transform at sample
// interval dt [s], in float for the spectrum product of eq. (10); false as
// CircuitPartialFractions. Bins above n / 2 are the conjugates of those below and the DC and
// Nyquist bins real, exactly: a real circuit, so that a real current gives a real voltage to
// the last bit (the GPU transforms two beams at once as one complex record).
inline bool FillTransferBins(const PoleZeroCircuit& c, uint32_t n, double dt_s, ComplexF* out) {
  PartialFractions pf;
  if (!CircuitPartialFractions(c, pf)) return false;
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  for (uint32_t k = 0; k <= n / 2; ++k) {
    const std::complex<double> e = std::polar(1.0, -kTwoPi * k / n);  // e^{-j theta_k}
    std::complex<double> h = 0;
    for (uint32_t p = 0; p < pf.count; ++p) {
      const DiscreteSection d = StepInvariantSection(pf, p, dt_s);
      h += d.gain / (1.0 - d.decay * e);
    }
    if (k == 0 || k == n / 2) h = h.real();
    out[k] = {static_cast<float>(h.real()), static_cast<float>(h.imag())};
    if (k > 0 && k < n / 2) out[n - k] = {out[k].re, -out[k].im};
  }
  return true;
}

// How much the sections' float rounding is amplified in their sum: sum_p |c_p| / (1 - a_p)
// over |sum_p c_p / (1 - a_p)| = |H(0)|, each section's DC gain over the circuit's. Poles close
// together have large partial fractions of opposite sign that cancel (the Cube 1's SiPM pulse,
// 1 / 1 ns, and its 150 MHz pole, 6 % apart: +530 and -518 ohm, 34); 1 for a single section.
inline double RecursionConditioning(const CircuitRecursion& r) {
  double sum = 0, sum_abs = 0;
  for (uint32_t p = 0; p < r.count; ++p) {
    const double dc = static_cast<double>(r.gain[p]) / (1.0 - static_cast<double>(r.decay[p]));
    sum += dc;
    sum_abs += std::abs(dc);
  }
  return sum != 0 ? sum_abs / std::abs(sum) : 0.0;
}

// The first-order sections (circuit_recursion.h) of partial fractions `pf` at sample interval
// dt [s], in float, unchecked (at most kMaxRecursionSections of them).
inline CircuitRecursion SectionsOf(const PartialFractions& pf, double dt_s) {
  CircuitRecursion out{};
  out.count = pf.count < kMaxRecursionSections ? pf.count : kMaxRecursionSections;
  for (uint32_t p = 0; p < out.count; ++p) {
    const DiscreteSection d = StepInvariantSection(pf, p, dt_s);
    out.decay[p] = static_cast<float>(d.decay);
    out.gain[p] = static_cast<float>(d.gain);
  }
  return out;
}

// The circuit's sections at sample interval dt [s]: count 0 where the transform must stay
// (partial fractions fail, more than kMaxRecursionSections sections, one decays slower than
// kMaxRecursionDecay a sample, or their conditioning passes kMaxRecursionConditioning).
inline CircuitRecursion CircuitRecursionOf(const PoleZeroCircuit& c, double dt_s) {
  PartialFractions pf;
  if (!CircuitPartialFractions(c, pf) || pf.count > kMaxRecursionSections) return {};
  const CircuitRecursion out = SectionsOf(pf, dt_s);
  for (uint32_t p = 0; p < out.count; ++p)
    if (!(StepInvariantSection(pf, p, dt_s).decay <= kMaxRecursionDecay)) return {};
  if (!(RecursionConditioning(out) <= kMaxRecursionConditioning)) return {};
  return out;
}

// A tabulated H_c(f): count rows at frequencies f_hz[0] = 0 < f_hz[1] < ... [Hz], gain [ohm]
// and phase [rad] (0 at f = 0: a real DC gain); the SiPM pulse's decay as in PoleZeroCircuit.
struct ResponseTable {
  const double* f_hz;
  const double* gain_ohm;
  const double* phase_rad;
  uint32_t count;
  double pulse_decay_s;
};

// H(f) [ohm] for f >= 0 from the table: gain and phase interpolated linearly, held at the last
// row beyond it (the profile's check asks for rows up to Nyquist), times the SiPM pulse.
inline std::complex<double> TableResponse(const ResponseTable& t, double f_hz) {
  uint32_t hi = 1;
  while (hi + 1 < t.count && t.f_hz[hi] < f_hz)
    ++hi;
  const uint32_t lo = hi - 1;
  double u = (f_hz - t.f_hz[lo]) / (t.f_hz[hi] - t.f_hz[lo]);
  u = u < 0 ? 0 : (u > 1 ? 1 : u);
  const double gain = t.gain_ohm[lo] + u * (t.gain_ohm[hi] - t.gain_ohm[lo]);
  const double phase = t.phase_rad[lo] + u * (t.phase_rad[hi] - t.phase_rad[lo]);
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  return std::polar(gain, phase) / (1.0 + std::complex<double>(0, kTwoPi * f_hz * t.pulse_decay_s));
}

// The table's response at the n bins of an n-point transform at sample interval dt [s]:
// bins k <= n / 2 at f = k / (n dt), the others their conjugates (a real circuit), the
// Nyquist bin real (a real sequence's is).
inline void FillTransferBinsFromTable(const ResponseTable& t, uint32_t n, double dt_s,
                                      ComplexF* out) {
  for (uint32_t k = 0; k <= n / 2; ++k) {
    std::complex<double> h = TableResponse(t, k / (n * dt_s));
    if (k == n / 2) h = h.real();
    out[k] = {static_cast<float>(h.real()), static_cast<float>(h.imag())};
    if (k > 0 && k < n / 2) out[n - k] = {out[k].re, -out[k].im};
  }
}

// The twiddle table of an n-point transform (fft.h).
inline void FillTwiddles(uint32_t n, ComplexF* out) {
  for (uint32_t k = 0; k < n / 2; ++k)
    out[k] = Twiddle(k, n);
}

// The largest |h| in the last quarter of the record relative to the largest anywhere, for the
// discrete impulse response h = IDFT(bins) of n transfer bins: what rings ahead of a pulse
// (wrapped round to the record's end) or outlasts three quarters of the record. A causal
// response that has died out gives 0. twiddles: FillTwiddles(n).
inline double ResponseTailRatio(const ComplexF* bins, uint32_t n, const ComplexF* twiddles) {
  std::vector<ComplexF> h(bins, bins + n);
  Fft(h.data(), n, twiddles, true);
  double peak = 0, tail = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const double a = std::abs(static_cast<double>(h[i].re));
    peak = a > peak ? a : peak;
    if (i >= n - n / 4) tail = a > tail ? a : tail;
  }
  return peak > 0 ? tail / peak : 0.0;
}

}  // namespace lt::physics
