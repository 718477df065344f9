// The internal reflection's bins, computed once a sensor (waveform detector, seed 002 sec. 5.1:
// P_int, "a configured pulse at a fixed delay").
//
// Every beam's record holds the same internal reflection at the same bins, so its power there
// and the distribution of each bin's photon count (eq. 6-7) are the same in every beam: the
// power is computed once (PulseSample, as any pulse) and each bin's Poisson distribution
// function is tabulated as the 32-bit words where it steps (PoissonThresholds). A beam then
// draws such a bin by a binary search over a few dozen integers instead of an inversion loop
// of double divisions or a rejection sampler's logarithms (on an H100 these draws were a
// quarter of the chain's instructions at 1024 samples: the Cube 1's 57-photon peak).
//
// The table applies to a bin only while it holds the internal reflection alone: its power is
// exactly the tabulated one and no background is drawn in the bin (BinBackgroundMean 0; a
// bright background is drawn with each bin's own photons, its mean differs per beam).
// Otherwise the bin is drawn as any other (PhotonCount). A chain without the table computes
// the internal reflection's power per beam.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/philox.h"
#include "lidartwin/physics/photon_counting.h"

namespace lt::physics {

// First threshold of a bin that is not tabulated (a mean above kTabledPoissonMaxMean, or past
// the table's room): drawn as any bin.
inline constexpr uint32_t kUntabulated = 0xffffffffu;

// One bin of the internal reflection's span.
struct InternalBin {
  float power_w;   // its power [W] (PulseSample of the internal pulse)
  uint32_t first;  // its photon count's thresholds: thresholds[first .. first + count), or
                   // kUntabulated
  uint32_t count;  // 0 for a tabulated bin: every word draws 0 (a mean below 2^-33)
};

// The table (host or device memory); bins == 0: none.
struct InternalReflectionTable {
  uint32_t first_bin;  // the span's first bin
  uint32_t bins;       // its length
  const InternalBin* bin;
  const uint32_t* thresholds;
};

// The table's entry for bin i, or null outside the span (or without a table).
LT_HD inline const InternalBin* InternalBinAt(const InternalReflectionTable& t, uint32_t i) {
  const uint32_t b = i - t.first_bin;  // wraps round below the span
  return b < t.bins ? t.bin + b : nullptr;
}

// Means above this are not tabulated: a table holds about mean + 7 sqrt(mean) words (to where
// the distribution function passes the largest uniform word), and so bright a bin saturates
// the SiPM whatever its count.
inline constexpr double kTabledPoissonMaxMean = 4096;

// A Poisson count by inversion of a tabulated distribution function: t[0 .. count) are the
// thresholds of PoissonThresholds, the count the number of them <= `word` (t is
// non-decreasing).
LT_HD inline uint32_t PoissonByTable(const uint32_t* t, uint32_t count, uint32_t word) {
  uint32_t lo = 0, hi = count;
  while (lo < hi) {
    const uint32_t mid = (lo + hi) / 2;
    if (t[mid] <= word) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// The thresholds of Poisson(mean) for a draw from one 32-bit word w, u = UniformOpen01(w) =
// (w + 1/2) 2^-32, by inversion: the count is the smallest k with u <= F(k) (as
// PoissonByInversion), i.e. the number of k with F(k) < u. F(k) < u exactly when
// w > F(k) 2^32 - 1/2 (both sides exact in double), so t_k = floor(F(k) 2^32 - 1/2) + 1 is
// the smallest word with F(k) < u; the table ends at the first k where no word is, F(k)
// >= u of the largest word. The word w then draws k with probability (t_k - t_{k-1}) 2^-32,
// the Poisson probability to within 2^-32 and F's rounding. Below kPoissonRejectionMean F is
// summed as PoissonByInversion sums it, the same doubles in the same order (and its cap at 64),
// so the table's count is inversion's for every word; above, from the probabilities
// exp(k ln(mean) - mean - ln k!) (no underflow of exp(-mean) alone for large means). Host only;
// mean in (0, kTabledPoissonMaxMean].
inline std::vector<uint32_t> PoissonThresholds(double mean) {
  std::vector<uint32_t> t;
  if (!(mean > 0 && mean <= kTabledPoissonMaxMean)) return t;
  const bool as_inversion = mean < kPoissonRejectionMean;
  const double log_mean = std::log(mean);
  double p = std::exp(-mean), f = p;
  // F passes 1 - 2^-33 about 7 sqrt(mean) above the mean; the bound only stops a runaway.
  for (uint32_t k = 0; k < 2 * kTabledPoissonMaxMean + 1000; ++k) {
    if (k > 0) {
      if (as_inversion) {
        if (k == 64) break;  // inversion's count stops at 64: thresholds for k < 64
        p *= mean * InverseInteger(k);
        f += p;
      } else {
        f += std::exp(k * log_mean - mean - std::lgamma(k + 1.0));
      }
    }
    const double w = std::floor(f * 4294967296.0 - 0.5) + 1;
    if (w > 4294967295.0) break;  // F(k) >= every u: the count never exceeds k
    t.push_back(static_cast<uint32_t>(w < 0 ? 0 : w));
  }
  return t;
}

}  // namespace lt::physics
