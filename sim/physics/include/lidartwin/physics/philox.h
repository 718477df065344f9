// Counter-based random numbers: Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random
// numbers: as easy as 1, 2, 3", SC'11). A draw is a pure function of (key, counter), so any
// beam's noise can be recomputed on any backend in any order: same seed, same output.
#pragma once

#include <cmath>
#include <cstdint>

#include "lidartwin/physics/hd.h"

namespace lt::physics {

struct Philox4x32 {
  uint32_t v[4];
};

namespace detail {
// Multipliers and Weyl key increments of Philox4x32 (SC'11, Table 2 and sec. 3.3).
inline constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
inline constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
inline constexpr uint32_t kPhiloxW0 = 0x9E3779B9u;  // golden ratio
inline constexpr uint32_t kPhiloxW1 = 0xBB67AE85u;  // sqrt(3) - 1

LT_HD inline void MulHiLo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  const uint64_t product = static_cast<uint64_t>(a) * static_cast<uint64_t>(b);
  hi = static_cast<uint32_t>(product >> 32);
  lo = static_cast<uint32_t>(product);
}
}  // namespace detail

// Philox4x32 with 10 rounds. counter: 4 words; key: 2 words. Checked against the Random123
// known-answer vectors in tests/physics/philox_test.cpp.
LT_HD inline Philox4x32 Philox4x32_10(Philox4x32 counter, uint32_t key0, uint32_t key1) {
  uint32_t k0 = key0;
  uint32_t k1 = key1;
  uint32_t c0 = counter.v[0], c1 = counter.v[1], c2 = counter.v[2], c3 = counter.v[3];
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += detail::kPhiloxW0;
      k1 += detail::kPhiloxW1;
    }
    uint32_t hi0, lo0, hi1, lo1;
    detail::MulHiLo(detail::kPhiloxM0, c0, hi0, lo0);
    detail::MulHiLo(detail::kPhiloxM1, c2, hi1, lo1);
    const uint32_t n0 = hi1 ^ c1 ^ k0;
    const uint32_t n1 = lo1;
    const uint32_t n2 = hi0 ^ c3 ^ k1;
    const uint32_t n3 = lo0;
    c0 = n0;
    c1 = n1;
    c2 = n2;
    c3 = n3;
  }
  return Philox4x32{{c0, c1, c2, c3}};
}

// What a random draw in the simulator is keyed by. Every stochastic effect has its own
// stream id so that adding one effect never shifts the draws of another.
struct RandomKey {
  uint64_t seed;
  uint32_t frame;
  uint32_t beam;
  uint32_t sub_ray;
  uint32_t stream;
};

// Stream ids (RandomKey::stream). Append only: renumbering changes every existing output.
inline constexpr uint32_t kStreamRangeNoise = 1;
inline constexpr uint32_t kStreamSubRayDirection = 2;       // direction inside the divergence cone
inline constexpr uint32_t kStreamSubRaySelect = 3;          // random selection among sub-rays
inline constexpr uint32_t kStreamFootprintShift = 4;        // per-beam rotation of the strata
inline constexpr uint32_t kStreamEchoRangeNoise = 5;        // threshold detector, per echo
inline constexpr uint32_t kStreamOutlier = 6;               // outliers along the beam, per echo
inline constexpr uint32_t kStreamSignalNoise = 7;           // threshold detector, per pulse
inline constexpr uint32_t kStreamPulseEnergy = 8;           // threshold detector, per pulse
inline constexpr uint32_t kStreamPhotons = 9;               // waveform detector, 4 time bins a key
inline constexpr uint32_t kStreamPhotonsLarge = 10;         // waveform detector, Poisson rejection
inline constexpr uint32_t kStreamThermalNoise = 11;         // retired (thermal noise 4 bins a key)
inline constexpr uint32_t kStreamBackgroundPhotons = 12;    // waveform detector, a segment a key
inline constexpr uint32_t kStreamBackgroundLarge = 13;      // their totals by rejection
inline constexpr uint32_t kStreamBackgroundPositions = 14;  // their bins, past the first call
inline constexpr uint32_t kStreamThermalSegment = 15;       // waveform detector, a segment a key
inline constexpr uint32_t kStreamRayDrop = 16;              // learned ray drop, per return
inline constexpr uint32_t kStreamParticles = 17;            // rain and snow, per sub-ray
inline constexpr uint32_t kStreamSpray = 18;                // road spray, per cluster

// Four independent 32-bit words for one key: the 64-bit seed is the Philox key and the ids
// (frame, beam, sub-ray, stream) are the four counter words, so no two draws share a counter.
LT_HD inline Philox4x32 RandomWords(const RandomKey& k) {
  const Philox4x32 counter{{k.frame, k.beam, k.sub_ray, k.stream}};
  return Philox4x32_10(counter, static_cast<uint32_t>(k.seed), static_cast<uint32_t>(k.seed >> 32));
}

// A 32-bit word to a double in the open interval (0, 1): (u + 0.5) / 2^32. Never 0 or 1,
// so log() in Box-Muller is finite.
template <typename T>
LT_HD T UniformOpen01(uint32_t u) {
  return (static_cast<T>(u) + static_cast<T>(0.5)) * static_cast<T>(2.3283064365386963e-10);
}

// One standard normal draw from two uniform words, Box-Muller (Box & Muller 1958):
// z = sqrt(-2 ln u1) cos(2 pi u2).
template <typename T>
LT_HD T StandardNormal(uint32_t w1, uint32_t w2) {
  using std::cos;
  using std::log;
  using std::sqrt;
  const T u1 = UniformOpen01<T>(w1);
  const T u2 = UniformOpen01<T>(w2);
  constexpr T kTwoPi = static_cast<T>(6.283185307179586476925286766559);
  return sqrt(static_cast<T>(-2) * log(u1)) * cos(kTwoPi * u2);
}

// Both standard normals of one Box-Muller pair, r cos(2 pi u2) and r sin(2 pi u2): two
// independent draws from two words.
template <typename T>
LT_HD void StandardNormalPair(uint32_t w1, uint32_t w2, T& z1, T& z2) {
  using std::cos;
  using std::log;
  using std::sin;
  using std::sqrt;
  const T r = sqrt(static_cast<T>(-2) * log(UniformOpen01<T>(w1)));
  constexpr T kTwoPi = static_cast<T>(6.283185307179586476925286766559);
  const T a = kTwoPi * UniformOpen01<T>(w2);
  z1 = r * cos(a);
  z2 = r * sin(a);
}

}  // namespace lt::physics
