// Photons at the detector (waveform detector, model tier 5): the sunlight a target sends back
// (seed 002 eq. 4), the mean photon count of a time bin (eq. 6) and its Poisson draw (eq. 7).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/philox.h"
#include "lidartwin/physics/units.h"

namespace lt::physics {

// Energy of one photon at the laser's wavelength, E_ph = h nu = h c / lambda [J]
// (seed 002 eq. 6).
template <typename T>
LT_HD T PhotonEnergy(T wavelength_m) {
  return static_cast<T>(kPlanck_J_s * kSpeedOfLight_m_s) / wavelength_m;
}

// Mean count of photons in one time bin, n = P dt / E_ph (seed 002 eq. 6), of which a share
// eta (the detector's photon detection efficiency) fires a cell, plus the bin's mean dark
// counts r_dark dt. Thinning a Poisson process keeps it Poisson, and dark counts are a Poisson
// process of their own, so the sum is again the mean of a Poisson count (eq. 7).
// power_w: P_tot[i] (eq. 5) [W]; dt_s [s]; photon_energy_j [J]; dark_rate_hz [1/s].
template <typename T>
LT_HD T MeanPhotonCount(T power_w, T dt_s, T photon_energy_j, T efficiency, T dark_rate_hz) {
  return efficiency * power_w * dt_s / photon_energy_j + dark_rate_hz * dt_s;
}

// Sunlight a target returns into the receiver, seed 002 eq. (4):
//   P_sun = rho d_ap^2 T_opt T_atm / (4 R^2) * A_trg * E_band,
// E_band = integral of the solar spectral irradiance over the band-pass [W/m^2]. With the spot
// A_trg = Omega R^2 (Omega the solid angle the spot subtends, pi theta^2 for a half-angle
// theta) the range cancels. A sub-ray carries a share w of the spot, so its target returns
//   P_sun = rho w Omega d_ap^2 T_opt T_atm(R) E_band / 4.
// A Lambertian target of albedo rho lit by E_band sends L = rho E_band / pi back, and pi L
// times the aperture's area pi d^2 / 4 over pi is the same expression: the eq. holds for
// diffuse targets lit from the sensor's side, which is how it is used (sun behind the sensor;
// the sky's own radiance is left out).
template <typename T>
LT_HD T SunPower(T albedo, T spot_share, T spot_solid_angle_sr, T aperture_diameter_m,
                 T optics_transmission, T atmospheric_transmission, T band_irradiance_w_m2) {
  return albedo * spot_share * spot_solid_angle_sr * aperture_diameter_m * aperture_diameter_m *
         optics_transmission * atmospheric_transmission * band_irradiance_w_m2 / T(4);
}

// Solid angle [sr] of a cone of full angle `fov_rad` (the receiver's field of view):
// 2 pi (1 - cos(fov / 2)), pi (fov / 2)^2 for small angles.
template <typename T>
LT_HD T ConeSolidAngle(T fov_rad) {
  using std::cos;
  return T(2) * static_cast<T>(kPi) * (T(1) - cos(fov_rad / T(2)));
}

// Means at or above this are drawn by transformed rejection (PTRS), below by inversion: the
// inversion's search takes about `mean` steps, PTRS about 1.1 rejections at any mean.
inline constexpr double kPoissonRejectionMean = 10;

// 1 / k for k <= 64, for the inversion's steps p_k = p_{k-1} mean / k: a multiplication
// where a double division costs a GPU a dozen instructions and a branch. mean (1 / k) may
// differ from mean / k in the last bit, so a draw within rounding of a step of F can differ
// from earlier versions' (not between the backends, which share this code).
struct InverseIntegers {
  double v[65];
  constexpr InverseIntegers() : v{} {
    for (int k = 1; k <= 64; ++k)
      v[k] = 1.0 / k;
  }
};
LT_HD inline double InverseInteger(uint32_t k) {
  static constexpr InverseIntegers kTable{};
  return kTable.v[k];
}

// Poisson count of mean `mean` (< kPoissonRejectionMean) by inversion of its distribution
// function: the smallest k with u <= F(k). u in (0, 1).
LT_HD inline uint32_t PoissonByInversion(double mean, double u) {
  using std::exp;
  double p = exp(-mean);
  double f = p;
  uint32_t k = 0;
  // F(k) reaches u well before k = 64 for means below 10 unless u is within rounding of 1.
  while (u > f && k < 64) {
    ++k;
    p *= mean * InverseInteger(k);
    f += p;
  }
  return k;
}

// ln x for x > 0 at compile time (the table below): x = m 2^e with m in [1/sqrt 2, sqrt 2),
// ln m = 2 atanh z = 2 (z + z^3 / 3 + z^5 / 5 + ...), z = (m - 1) / (m + 1), |z| < 0.172, summed
// until a term no longer changes the sum; e ln 2 with ln 2 split in two as fdlibm's log does
// (the high part's 32 bits times e exact), so that the result is rounded about once. Within an
// ulp or two of std::log (PhotonCounting.CompileTimeLogIsTheLibrarys).
constexpr double ConstexprLog(double x) {
  // log's own answers where the reduction below would not end: NaN below 0 or for NaN, -inf at
  // 0, +inf at +inf.
  if (!(x >= 0)) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0) return -std::numeric_limits<double>::infinity();
  if (x == std::numeric_limits<double>::infinity()) return x;
  constexpr double kLn2High = 6.93147180369123816490e-01;  // fdlibm's ln2_hi
  constexpr double kLn2Low = 1.90821492927058770002e-10;   // and ln2_lo
  constexpr double kSqrt2 = 1.41421356237309504880;
  int e = 0;
  while (x >= kSqrt2) {
    x /= 2;  // exact
    ++e;
  }
  while (x < kSqrt2 / 2) {
    x *= 2;
    --e;
  }
  const double z = (x - 1) / (x + 1), z2 = z * z;
  double term = z, sum = 0;
  for (int n = 1; sum + term / n != sum; n += 2, term *= z2)
    sum += term / n;
  return e * kLn2High + (2 * sum + e * kLn2Low);
}

// ln Gamma(x) for x = k + 1 >= 11 by Stirling's series (Abramowitz and Stegun 6.1.41) to the
// x^-9 term, whose truncation error, below 691 / (360360 x^11), is under 1e-14 at x = 11;
// log_x = ln x.
LT_HD constexpr double StirlingLogGamma(double x, double log_x) {
  const double r = 1 / x, r2 = r * r;
  constexpr double kHalfLogTwoPi = 0.91893853320467274178;
  return (x - 0.5) * log_x - x + kHalfLogTwoPi +
         r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680 - r2 / 1188))));
}

// ln k! for k < kLogFactorialTable, computed once at compile time: exact below 10 (ln 2, ln 6,
// ... to double precision), above by StirlingLogGamma with ConstexprLog. Counts that large come
// from bins of means up to about 900 photons, a near target's pulse.
inline constexpr uint32_t kLogFactorialTable = 1024;
struct LogFactorials {
  double v[kLogFactorialTable];
  constexpr LogFactorials() : v{} {
    constexpr double kSmall[10] = {0.0,
                                   0.0,
                                   0.69314718055994530942,
                                   1.79175946922805500081,
                                   3.17805383034794561964,
                                   4.78749174278204599425,
                                   6.57925121201010099506,
                                   8.52516136106541430017,
                                   10.60460290274525022842,
                                   12.80182748008146961121};
    for (uint32_t k = 0; k < kLogFactorialTable; ++k)
      v[k] = k < 10 ? kSmall[k] : StirlingLogGamma(k + 1.0, ConstexprLog(k + 1.0));
  }
};

// ln k! for the rejection's acceptance test: the table above, beyond it Stirling's series with
// one logarithm where lgamma costs a GPU about ten times as much (the rejection's test was 7 %
// of a city frame's waveform chain on an H100, and the table saves a double logarithm of the
// rest). Both backends read the same table.
LT_HD inline double LogFactorial(double k) {
  using std::log;
  static constexpr LogFactorials kTable{};
  if (k >= 0 && k < kLogFactorialTable) return kTable.v[static_cast<uint32_t>(k)];
  return StirlingLogGamma(k + 1, log(k + 1));
}

// The constants of Hormann's transformed rejection with squeeze (PTRS) for a mean >= 10
// (W. Hormann, "The transformed rejection method for generating Poisson random variables",
// Insurance: Mathematics and Economics 12 (1993) 39-45), once a draw rather than once a trial.
struct PtrsConstants {
  double mean, b, a, inv_alpha, v_r;
};
LT_HD inline PtrsConstants MakePtrsConstants(double mean) {
  using std::sqrt;
  PtrsConstants c;
  c.mean = mean;
  c.b = 0.931 + 2.53 * sqrt(mean);
  c.a = -0.059 + 0.02483 * c.b;
  c.inv_alpha = 1.1239 + 1.1328 / (c.b - 3.4);
  c.v_r = 0.9277 - 3.6224 / (c.b - 2);
  return c;
}

// One trial of PTRS. u, v in (0, 1). Returns the count, or -1 when the trial is rejected.
LT_HD inline int64_t PoissonRejectionTrial(const PtrsConstants& c, double u_word, double v) {
  using std::floor;
  using std::log;
  const double u = u_word - 0.5;
  const double us = 0.5 - (u < 0 ? -u : u);
  const double k = floor((2 * c.a / us + c.b) * u + c.mean + 0.43);
  if (us >= 0.07 && v <= c.v_r) return static_cast<int64_t>(k);
  if (k < 0 || (us < 0.013 && v > us)) return -1;
  // ln(v inv_alpha / (a / us^2 + b)) <= k ln(mean) - mean - ln k!: Hormann's test with its
  // three logarithms on the left taken as one, and its two divisions as one:
  // v inv_alpha / (a / us^2 + b) = v inv_alpha us^2 / (a + b us^2).
  const double us2 = us * us;
  if (log(v * c.inv_alpha * us2 / (c.a + c.b * us2)) <=
      k * log(c.mean) - c.mean - LogFactorial(k)) {
    return static_cast<int64_t>(k);
  }
  return -1;
}

// A Poisson count of mean >= kPoissonRejectionMean by PTRS, its trials keyed by `key` with
// key.sub_ray = first + (round << 16), two trials a call (first < 2^16).
LT_HD inline uint32_t PoissonByRejection(double mean, RandomKey key, uint32_t first) {
  const PtrsConstants c = MakePtrsConstants(mean);
  for (uint32_t round = 0; round < 64; ++round) {
    key.sub_ray = first + (round << 16);
    const Philox4x32 w = RandomWords(key);
    for (int trial = 0; trial < 2; ++trial) {
      const int64_t n = PoissonRejectionTrial(c, UniformOpen01<double>(w.v[2 * trial]),
                                              UniformOpen01<double>(w.v[2 * trial + 1]));
      // Counts saturate at 2^32 - 1 (4e9 photons in one bin: the SiPM saturated long before).
      if (n >= 0) return n < 4294967295 ? static_cast<uint32_t>(n) : 4294967295u;
    }
  }
  // 128 rejections in a row have probability below 1e-120: the mean, rounded.
  return mean < 4294967294.5 ? static_cast<uint32_t>(mean + 0.5) : 4294967295u;
}

// The photon count of time bin `sample` of a beam, n[i] = Poisson(mean) (seed 002 eq. 7),
// keyed so that it is the same on every backend: inversion uses word (sample mod 4) of the
// draw (seed, frame, beam, sample / 4, kStreamPhotons), so four bins share one Philox call;
// rejection draws its trials from (seed, frame, beam, sample + 2^16 round, kStreamPhotonsLarge),
// two trials a call. Samples are < 2^16.
LT_HD inline uint32_t PhotonCount(double mean, const RandomKey& beam_key, uint32_t sample,
                                  const Philox4x32& words_of_four) {
  if (!(mean > 0)) return 0;
  if (mean < kPoissonRejectionMean) {
    return PoissonByInversion(mean, UniformOpen01<double>(words_of_four.v[sample & 3u]));
  }
  RandomKey k = beam_key;
  k.stream = kStreamPhotonsLarge;
  return PoissonByRejection(mean, k, sample);
}

// Background photons: sunlight and dark counts give every bin of a record the same mean m.
// Where m is small (below kSparseBackgroundMean) they are drawn a segment of B bins at a time:
// the bins' independent Poisson(m) counts have the same joint distribution as a Poisson(B m)
// total whose photons fall on the segment's bins independently and uniformly (a Poisson
// process's points, given their number, are i.i.d. uniform). So a record costs one Philox call
// a segment, not one per four bins, plus a few bits per photon. Denser backgrounds are drawn
// bin by bin with the pulse (waveform.h, BinBackgroundMean, BinPhotons). B =
// BackgroundSegmentBins(N): 32, or a GPU lane's block of N / 32 bins where that is longer, so
// that a lane draws one segment a record: one Philox call and one exponential a lane where
// 32-bin segments took two at 2048 samples and four at 4096.
inline constexpr uint32_t kMinBackgroundSegment = 32;
inline constexpr uint32_t kMaxBackgroundSegment = 512;  // records of at most 16,384 bins
inline constexpr double kSparseBackgroundMean = 2;
LT_HD constexpr uint32_t BackgroundSegmentBins(uint32_t samples) {
  return samples / 32 > kMinBackgroundSegment ? samples / 32 : kMinBackgroundSegment;
}

// The background photons of segment g (bins B g .. B g + B - 1, B = `bins`, a power of two from
// kMinBackgroundSegment to kMaxBackgroundSegment) of a record whose bins have mean `mean` each:
// add(b) is called once for each photon, b its bin in the segment. Keys: the total from word 0
// of (seed, frame, beam, g, kStreamBackgroundPhotons) by inversion, or by rejection in
// (g + 2^16 round, kStreamBackgroundLarge); the bins log2 B bits each, as many to a word as fit
// (six of 5 bits for B = 32, five of 6, four of 7 or 8, three of 9), from words 1-3 of the first
// call and then four words of (g + 2^16 round, kStreamBackgroundPositions) a round. g < 2^16.
// Meant for sparse means (below kSparseBackgroundMean, as DetectorCurrent calls it): the work
// grows with the photons, and past 65,536 rounds (means above about 1,500 a bin for B = 512,
// 49,000 for B = 32) the positions' keys would repeat.
template <typename AddPhoton>
LT_HD void SegmentBackgroundPhotons(double mean, uint32_t bins, const RandomKey& beam_key,
                                    uint32_t g, AddPhoton add) {
  if (!(mean > 0)) return;
  RandomKey k = beam_key;
  k.sub_ray = g;
  k.stream = kStreamBackgroundPhotons;
  Philox4x32 words = RandomWords(k);
  const double total_mean = mean * bins;
  uint32_t total;
  if (total_mean < kPoissonRejectionMean) {
    total = PoissonByInversion(total_mean, UniformOpen01<double>(words.v[0]));
  } else {
    k.stream = kStreamBackgroundLarge;
    total = PoissonByRejection(total_mean, k, g);
  }
  uint32_t bits = 5;
  while ((1u << bits) < bins)
    ++bits;
  const uint32_t per_word = 32 / bits, last = bins - 1;
  uint32_t word = 1, field = 0, round = 0;
  for (uint32_t p = 0; p < total; ++p) {
    if (field == per_word) {
      field = 0;
      if (++word == 4) {
        k.sub_ray = g + (round++ << 16);
        k.stream = kStreamBackgroundPositions;
        words = RandomWords(k);
        word = 0;
      }
    }
    add((words.v[word] >> (bits * field++)) & last);
  }
}

// The words inversion draws from for samples 4 j .. 4 j + 3 of a beam.
LT_HD inline Philox4x32 PhotonWords(const RandomKey& beam_key, uint32_t sample) {
  RandomKey k = beam_key;
  k.sub_ray = sample >> 2;
  k.stream = kStreamPhotons;
  return RandomWords(k);
}

}  // namespace lt::physics
