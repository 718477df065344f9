// Silicon photomultiplier (waveform detector, model tier 5), seed 002 sec. 5.3 eq. (8)-(9):
//   i_d[i] = S_i (h_SiPM * n)[i],   S_i = 1 - exp(-t / tau_delay),
// the sensitivity of a microcell a time t after it last fired, tau_delay its recovery time.
//
// With N microcells, n photons falling at random on them fire each cell with probability
// 1 - exp(-n / N); a cell of sensitivity s gives a pulse of charge s (in units of a fully
// charged cell) and is reset to 0. With S the mean sensitivity of the cells, a bin therefore
// gives the charge
//   q[i] = S[i] N (1 - exp(-n[i] / N))   (-> S[i] n[i] for n << N),
// leaves S[i] exp(-n[i] / N), and every cell's deficit 1 - s decays as exp(-dt / tau) until the
// next bin: the recovery of eq. (9) for each cell, averaged over the cells. The pulse shape
// h_SiPM is linear and applied to q by the circuit's transfer function (circuit.h); eq. (8)
// writes S_i outside the convolution, here it scales the charge of the cells that fire at i:
// a cell fired at reduced overvoltage gives a proportionally smaller pulse, and the two
// readings agree where S varies slowly over a pulse.
#pragma once

#include <cmath>

#include "lidartwin/physics/hd.h"

namespace lt::physics {

struct Sipm {
  double cells;       // N, microcells (0: no saturation, S stays 1)
  double recovery_s;  // tau_delay [s]
};

// The state carried from bin to bin: S, the cells' mean sensitivity (1 at rest).
struct SipmState {
  float sensitivity;
};

// One bin as an affine map of the mean sensitivity: q = c S, and S' = a S + b for the next
// bin, with h = 1 - exp(-n / N) the share of the cells hit, c = N h, a = r (1 - h),
// b = 1 - r (r = exp(-dt / tau_delay)): 1 - S' = r (1 - S (1 - h)), each cell's deficit
// decaying by r. Affine maps compose, so a GPU warp can scan a record's bins in parallel.
struct SipmBinMap {
  float a, c;
};

// h = 1 - exp(-n / N), the share of the cells that n photons fire: by its series where
// x = n / N < 1/32 (four terms, x (1 - x (1/2 - x (1/6 - x / 24))); the first left out,
// x^5 / 120, is below 1e-8 of h, under float rounding), else by expm1. Either is exact to float
// rounding even for one photon on thousands of cells (1 - exp(-x) itself would cancel); the
// series is a few multiply-adds where expm1 is tens of instructions, and nearly every bin with
// photons takes it (one photon in 4,000 cells is x = 2.5e-4).
LT_HD inline float SipmHitShare(const Sipm& s, float photons) {
  using std::expm1;
  // Times the reciprocal, which a loop over bins computes once, rather than a division a bin.
  const float x = photons * (1.0f / static_cast<float>(s.cells));
  if (x < 0.03125f) return x * (1.0f - x * (0.5f - x * (1.0f / 6.0f - x * (1.0f / 24.0f))));
  return -expm1(-x);
}

// Consecutive bins composed into one map of the sensitivity, S_out = A S_in + B: what a GPU lane
// makes of its block of the record before the lanes' maps are scanned (sim/cuda).
struct SipmRunMap {
  float A, B;
};
// The run `run` followed by a bin of map m: S' = a S + (1 - r), as SipmChargeOfMap steps it.
LT_HD inline SipmRunMap SipmThenBin(SipmRunMap run, SipmBinMap m, float recovery) {
  return {m.a * run.A, m.a * run.B + (1.0f - recovery)};
}

// The bin's map from the share of its cells hit, h (SipmHitShare; 0 without photons).
LT_HD inline SipmBinMap SipmMapOfShare(const Sipm& s, float recovery, float hit) {
  return {recovery * (1.0f - hit), static_cast<float>(s.cells) * hit};
}

LT_HD inline SipmBinMap SipmMap(const Sipm& s, float recovery, float photons) {
  // No photon, no cell fired: most bins of a record (and exactly what the share gives for 0).
  if (photons == 0) return {recovery, 0.0f};
  return SipmMapOfShare(s, recovery, SipmHitShare(s, photons));
}

// The cells' mean sensitivity at rest under a steady background of `photons` a bin (sunlight,
// dark counts): the fixed point of S' = a S + (1 - r), S = (1 - r) / (1 - a); 1 without
// saturation. A record starts there, so the pretrigger sees no start-up transient.
LT_HD inline float SipmRestingSensitivity(const Sipm& s, float recovery, float photons) {
  if (!(s.cells > 0) || !(photons > 0)) return 1.0f;
  const SipmBinMap m = SipmMap(s, recovery, photons);
  return (1.0f - recovery) / (1.0f - m.a);
}

// Charge of time bin i in fired-cell units, q[i] = S N (1 - exp(-n / N)), and the state for
// bin i + 1; `recovery` = exp(-dt / tau_delay), computed once per waveform.
LT_HD inline float SipmChargeOfMap(SipmBinMap m, float recovery, SipmState& state) {
  const float q = m.c * state.sensitivity;
  state.sensitivity = m.a * state.sensitivity + (1.0f - recovery);
  return q;
}
LT_HD inline float SipmCharge(const Sipm& s, float recovery, float photons, SipmState& state) {
  if (!(s.cells > 0)) return photons;
  return SipmChargeOfMap(SipmMap(s, recovery, photons), recovery, state);
}

// exp(-dt / tau_delay), the share of a cell's deficit left after one bin.
LT_HD inline float SipmRecovery(const Sipm& s, double dt_s) {
  using std::exp;
  return s.recovery_s > 0 ? static_cast<float>(exp(-dt_s / s.recovery_s)) : 0.0f;
}

}  // namespace lt::physics
