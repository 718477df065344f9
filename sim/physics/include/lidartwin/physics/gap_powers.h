// Powers of the waveform chain's per-bin decays, for stepping over the bins without photons.
//
// Most bins of a record have no photon (a plate at 30 m in the Cube 1's stand-in sunlight: about
// 120 of 2,048). Across such a bin the SiPM's deficit decays by r = exp(-dt / tau_delay) and
// its charge is 0 (sipm.h: S' = r S + (1 - r)), and each circuit section's state decays by
// a_p with no input (circuit_recursion.h: u' = a_p u). Across g of them in a row:
//   S -> r^g S + (1 - r^g),   u_p -> a_p^g u_p,
// so the GPU's SiPM and section passes (sim/cuda/waveform_beam.cuh) visit only the bins with
// photons, taking these powers from a table instead of g steps. The table is computed once a
// sensor, in double from the float decays the dense recursions use (so that it is the same
// map as g float steps up to their rounding), and kept in float: row 0 r^g, row 1 1 - r^g (by
// expm1, without the cancellation of 1 minus a power near 1), rows 2 + p a_p^g, each for
// g = 0 .. L, L = N / 32 the bins a GPU lane walks.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "lidartwin/physics/circuit_recursion.h"
#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/sipm.h"

namespace lt::physics {

// Entries a row: gaps 0 .. L for a lane's block of L = samples / 32 bins.
LT_HD inline uint32_t GapPowerRow(uint32_t samples) {
  return samples / 32 + 1;
}

// The table (rows as above) read, and the gap's maps: across g bins without photons the SiPM's
// sensitivity goes to r^g S + (1 - r^g) and section p's state to a_p^g u_p.
struct GapPowerTable {
  const float* t;  // rows of GapPowerRow(samples) entries
  uint32_t row;
  LT_HD float Recovery(uint32_t g) const { return t[g]; }                             // r^g
  LT_HD float Recovered(uint32_t g) const { return t[row + g]; }                      // 1 - r^g
  LT_HD float Section(uint32_t p, uint32_t g) const { return t[(2 + p) * row + g]; }  // a_p^g
  LT_HD float Sensitivity(float s, uint32_t g) const { return Recovery(g) * s + Recovered(g); }
  // The run `run` followed by the gap (SipmThenBin for g bins without photons).
  LT_HD SipmRunMap ThenGap(SipmRunMap run, uint32_t g) const {
    return {Recovery(g) * run.A, Sensitivity(run.B, g)};
  }
};

// The table for SiPM recovery `recovery` (r, the float of SipmRecovery) and the circuit's
// sections.
inline std::vector<float> GapPowers(float recovery, const CircuitRecursion& sections,
                                    uint32_t samples) {
  const uint32_t row = GapPowerRow(samples);
  std::vector<float> t(size_t{row} * (2 + sections.count));
  const double log_r = std::log(static_cast<double>(recovery));
  for (uint32_t g = 0; g < row; ++g) {
    // recovery 0 (no recovery time: a fired cell is at once whole again): 0^0 = 1, else 0.
    const double r_g = recovery > 0 ? std::exp(g * log_r) : (g == 0 ? 1.0 : 0.0);
    t[g] = static_cast<float>(r_g);
    t[row + g] = static_cast<float>(recovery > 0 ? -std::expm1(g * log_r) : 1.0 - r_g);
    for (uint32_t p = 0; p < sections.count; ++p)
      t[size_t{2 + p} * row + g] =
          static_cast<float>(std::pow(static_cast<double>(sections.decay[p]), g));
  }
  return t;
}

}  // namespace lt::physics
