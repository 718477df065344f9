// The waveform detector's equations against analytic cases (physics/photon_counting.h,
// sipm.h, fft.h, circuit.h, waveform.h, waveform_ranging.h; seed 002 sec. 5).
#include "lidartwin/physics/waveform.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <functional>
#include <vector>

#include "lidartwin/physics/circuit.h"
#include "lidartwin/physics/gap_powers.h"
#include "lidartwin/physics/link_budget.h"
#include "lidartwin/physics/waveform_ranging.h"

namespace lt::physics {
namespace {

constexpr double kWavelength = 905e-9;

TEST(PhotonCounting, PhotonEnergyIsPlanckTimesFrequency) {
  // h c / 905 nm = 2.1950e-19 J (1.370 eV).
  EXPECT_NEAR(PhotonEnergy(kWavelength), 2.19497e-19, 1e-23);
  EXPECT_NEAR(PhotonEnergy(kWavelength) / kElementaryCharge_C, 1.3700, 1e-4);
}

TEST(PhotonCounting, MeanCountIsPowerTimesBinOverPhotonEnergyPlusDarkCounts) {
  const double e = PhotonEnergy(kWavelength);
  // 1 nW for 1 ns is 1e-18 J, 4.556 photons; a third detected; 1 MHz dark counts add 0.001.
  EXPECT_NEAR(MeanPhotonCount(1e-9, 1e-9, e, 1.0, 0.0), 1e-18 / e, 1e-12);
  EXPECT_NEAR(MeanPhotonCount(1e-9, 1e-9, e, 1.0 / 3, 1e6), 1e-18 / e / 3 + 1e-3, 1e-12);
}

TEST(PhotonCounting, SunPowerIsEquationFourWithTheSpotSolidAngle) {
  // eq. 4 with A_trg = pi (R theta)^2: rho d^2 T_opt T_atm / (4 R^2) * A_trg * E.
  const double rho = 0.1, d = 0.02, t_opt = 0.9, t_atm = 0.95, e = 20, theta = 1.5e-3, r = 30;
  const double expected =
      rho * d * d * t_opt * t_atm / (4 * r * r) * kPi * r * r * theta * theta * e;
  const double omega = ConeSolidAngle(2 * theta);
  EXPECT_NEAR(omega, kPi * theta * theta, 1e-6 * omega);
  EXPECT_NEAR(SunPower(rho, 1.0, omega, d, t_opt, t_atm, e), expected, 1e-6 * expected);
  // Sub-rays share the spot: their shares add up to the whole.
  EXPECT_NEAR(SunPower(rho, 0.25, omega, d, t_opt, t_atm, e) * 4,
              SunPower(rho, 1.0, omega, d, t_opt, t_atm, e), 1e-20);
}

// Mean and variance of many draws at each mean, inversion and rejection alike.
TEST(PhotonCounting, CountsHaveThePoissonMeanAndVariance) {
  const RandomKey key{42, 3, 17, 0, 0};
  for (double mean : {0.02, 0.7, 4.0, 9.99, 10.0, 37.5, 2000.0}) {
    const uint32_t n = 200000;
    double sum = 0, sum2 = 0;
    Philox4x32 words{};
    for (uint32_t i = 0; i < n; ++i) {
      // Beams as well as samples vary, as in a frame.
      RandomKey k = key;
      k.beam = i / 4096;
      const uint32_t sample = i % 4096;
      if ((sample & 3u) == 0) words = PhotonWords(k, sample);
      const double c = PhotonCount(mean, k, sample, words);
      sum += c;
      sum2 += c * c;
    }
    const double m = sum / n;
    const double var = sum2 / n - m * m;
    // 5 standard errors: the mean's is sqrt(mean / n), the variance's about mean sqrt(2 / n).
    EXPECT_NEAR(m, mean, 5 * std::sqrt(mean / n)) << mean;
    EXPECT_NEAR(var, mean, 5 * std::sqrt((2 * mean * mean + mean) / n)) << mean;
  }
}

// The rejection's counts have Poisson's probabilities, not only its moments: a chi-square over
// the counts expected 20 times or more, at means below, across (1000: counts either side of
// 1024) and above the ln k! table's end (kLogFactorialTable) as well as small ones. The bound,
// dof + 6 sqrt(2 dof), is passed by chance about once in 10^6.
TEST(PhotonCounting, RejectionCountsHavePoissonsProbabilities) {
  for (double mean : {10.0, 37.5, 300.0, 1000.0, 1500.0}) {
    const uint32_t n = 400000;
    std::vector<uint32_t> histogram;
    RandomKey key{7, 1, 0, 0, kStreamPhotonsLarge};
    for (uint32_t i = 0; i < n; ++i) {
      key.beam = i / 4096;
      const uint32_t c = PoissonByRejection(mean, key, i % 4096);
      if (c >= histogram.size()) histogram.resize(c + 1);
      ++histogram[c];
    }
    double chi2 = 0;
    int dof = -1;
    for (uint32_t k = 0; k < histogram.size(); ++k) {
      const double expected = n * std::exp(k * std::log(mean) - mean - std::lgamma(k + 1.0));
      if (expected < 20) continue;
      chi2 += (histogram[k] - expected) * (histogram[k] - expected) / expected;
      ++dof;
    }
    ASSERT_GT(dof, 10) << mean;
    EXPECT_LT(chi2, dof + 6 * std::sqrt(2.0 * dof)) << mean << " over " << dof << " counts";
  }
}

// The background drawn a segment at a time (a Poisson total spread uniformly over B bins)
// must give each bin a Poisson(m) count independent of its neighbours': mean, variance, the
// share of empty bins exp(-m), and no correlation between adjacent bins. Means cover the
// total's inversion (B m < 10), its rejection (B m >= 10) and totals past the first call's
// positions; segments of 32 bins (six positions a word), 64 (five), 128 (four) and 512 (three).
TEST(PhotonCounting, SegmentBackgroundGivesIndependentPoissonBins) {
  for (uint32_t B : {32u, 64u, 128u, 512u}) {
    EXPECT_EQ(BackgroundSegmentBins(32 * B), B);
    for (double m : {0.01, 0.2, 0.4, 1.5}) {
      const uint32_t segments = 20000 * 32 / B;
      double sum = 0, sum2 = 0, zeros = 0, cross = 0;
      uint32_t bins = 0, pairs = 0;
      std::vector<uint32_t> counts(B);
      for (uint32_t g = 0; g < segments; ++g) {
        std::fill(counts.begin(), counts.end(), 0u);
        RandomKey k{42, 1, g / 64, 0, 0};  // beams as well as segments vary, as in a frame
        SegmentBackgroundPhotons(m, B, k, g % 64, [&](uint32_t b) {
          ASSERT_LT(b, B);
          ++counts[b];
        });
        for (uint32_t b = 0; b < B; ++b) {
          sum += counts[b];
          sum2 += static_cast<double>(counts[b]) * counts[b];
          zeros += counts[b] == 0;
          ++bins;
          if (b > 0) {
            cross += (counts[b] - m) * (counts[b - 1] - m);
            ++pairs;
          }
        }
      }
      const double mean = sum / bins;
      const double var = sum2 / bins - mean * mean;
      EXPECT_NEAR(mean, m, 5 * std::sqrt(m / bins)) << m << " " << B;
      EXPECT_NEAR(var, m, 5 * std::sqrt((2 * m * m + m) / bins)) << m << " " << B;
      const double p0 = std::exp(-m);
      EXPECT_NEAR(zeros / bins, p0, 5 * std::sqrt(p0 * (1 - p0) / bins)) << m << " " << B;
      // Independent bins: the covariance of neighbours is 0 with a standard error of
      // m / sqrt(n).
      EXPECT_NEAR(cross / pairs, 0.0, 5 * m / std::sqrt(double(pairs))) << m << " " << B;
    }
  }
  EXPECT_EQ(BackgroundSegmentBins(64), 32u);
  EXPECT_EQ(BackgroundSegmentBins(1024), 32u);
}

TEST(PhotonCounting, SegmentBackgroundIsKeyedAndEmptyWithoutLight) {
  auto draw = [](double m, RandomKey k, uint32_t g) {
    std::vector<uint32_t> bins;
    SegmentBackgroundPhotons(m, kMinBackgroundSegment, k, g,
                             [&](uint32_t b) { bins.push_back(b); });
    return bins;
  };
  const RandomKey k{9, 2, 5, 0, 0};
  EXPECT_TRUE(draw(0.0, k, 3).empty());
  EXPECT_EQ(draw(0.7, k, 3), draw(0.7, k, 3));
  EXPECT_NE(draw(0.7, k, 3), draw(0.7, k, 4));
  RandomKey other = k;
  other.beam = 6;
  EXPECT_NE(draw(0.7, k, 3), draw(0.7, other, 3));
}

// Thermal noise's segments tile a record, each a GPU lane's block of N / 32 bins, of an even
// number of bins (Box-Muller pairs), at every record length.
TEST(ThermalNoise, SegmentsTileTheRecordAndEachLanesBlock) {
  for (uint32_t n = kMinWaveformSamples; n <= kMaxWaveformSamples; n *= 2) {
    const uint32_t s = ThermalSegmentBins(n);
    EXPECT_EQ(s % 2, 0u) << n;
    EXPECT_EQ(s, n / 32) << n;
    EXPECT_EQ(ThermalSegments(n), 32u) << n;
  }
}

// xoshiro128+'s words from the state (1, 2, 3, 4), as an independent implementation of
// Blackman and Vigna's algorithm (Python, 32-bit arithmetic) gives them.
TEST(ThermalNoise, GeneratorGivesTheReferenceWords) {
  ThermalSegment g(1, 2, 3, 4, 1.0f);
  const uint32_t expected[8] = {0x5,       0x3007,     0x1803007,  0x1a05c0e,
                                0x260840a, 0x43f87e19, 0xc3488e21, 0xf4fd2895};
  for (uint32_t w : expected)
    EXPECT_EQ(g.Next(), w);
}

// The noise is normal with the configured rms, and independent from bin to bin within a
// segment, across segments' boundaries and between beams: moments, the share beyond 3 sigma,
// and lag-one covariances over 4,000 records of 1,024 bins.
TEST(ThermalNoise, NormalWithTheRmsAndIndependent) {
  WaveformChain w{};
  w.thermal_noise_v = 2e-3;
  const uint32_t n = 1024, beams = 4000, S = ThermalSegmentBins(n);
  std::vector<float> prev(n), x(n);
  double sum = 0, sum2 = 0, sum4 = 0, beyond = 0, within = 0, across = 0, beam_pairs = 0;
  uint64_t count = 0, n_within = 0, n_across = 0, n_beams = 0;
  for (uint32_t b = 0; b < beams; ++b) {
    const RandomKey key{11, 3, b, 0, 0};
    for (uint32_t g = 0; g < ThermalSegments(n); ++g) {
      ThermalSegment noise(w, key, g);
      for (uint32_t i = g * S; i < (g + 1) * S; i += 2)
        noise.NextPair(x[i], x[i + 1]);
    }
    for (uint32_t i = 0; i < n; ++i) {
      const double z = x[i] / w.thermal_noise_v;
      sum += z;
      sum2 += z * z;
      sum4 += z * z * z * z;
      beyond += std::abs(z) > 3;
      ++count;
      if (i > 0) {
        const double c = z * x[i - 1] / w.thermal_noise_v;
        if (i % S == 0) {
          across += c;
          ++n_across;
        } else {
          within += c;
          ++n_within;
        }
      }
      if (b > 0) {
        beam_pairs += z * prev[i] / w.thermal_noise_v;
        ++n_beams;
      }
    }
    prev = x;
  }
  const double m = sum / count, var = sum2 / count - m * m;
  EXPECT_NEAR(m, 0.0, 5 / std::sqrt(double(count)));
  EXPECT_NEAR(var, 1.0, 5 * std::sqrt(2.0 / count));
  EXPECT_NEAR(sum4 / count, 3.0, 5 * std::sqrt(96.0 / count));  // var(z^4) = 105 - 9
  const double p3 = 0.0026997960632601866;                      // P(|z| > 3)
  EXPECT_NEAR(beyond / count, p3, 5 * std::sqrt(p3 / count));
  EXPECT_NEAR(within / n_within, 0.0, 5 / std::sqrt(double(n_within)));
  EXPECT_NEAR(across / n_across, 0.0, 5 / std::sqrt(double(n_across)));
  EXPECT_NEAR(beam_pairs / n_beams, 0.0, 5 / std::sqrt(double(n_beams)));
}

// ln k! of the rejection's test against the library's lgamma: exact below 10, Stirling's
// series above within its truncation error (1e-14 at k = 10) and rounding.
TEST(PhotonCounting, LogFactorialIsLgamma) {
  for (uint32_t k = 0; k <= 100000; k += k < 200 ? 1 : 97) {
    const double expected = std::lgamma(k + 1.0);
    EXPECT_NEAR(LogFactorial(k), expected, 2e-14 + 4e-16 * expected) << k;
  }
}

// The compile-time logarithm behind the ln k! table, against the library's, relatively (2.7
// ulps), across the reduction's octaves (below and above sqrt 2 and its half, powers of two, near
// and far from 1), some of it evaluated by the compiler as the table is; log's own answers at 0,
// below it, at infinity and for NaN.
TEST(PhotonCounting, CompileTimeLogIsTheLibrarys) {
  static_assert(ConstexprLog(1.0) == 0.0);
  constexpr double kCompiled[][2] = {{2.0, ConstexprLog(2.0)},
                                     {10.0, ConstexprLog(10.0)},
                                     {1e-300, ConstexprLog(1e-300)},
                                     {1025.0, ConstexprLog(1025.0)},
                                     {0.7071067811865, ConstexprLog(0.7071067811865)}};
  for (const auto& [x, log_x] : kCompiled)
    EXPECT_NEAR(log_x, std::log(x), 6e-16 * std::abs(std::log(x))) << x;
  for (double x :
       {1e-300, 1e-9, 0.3, 0.7071067811865, 0.7071067811866, 1.0 - 1e-12, 1.0 + 1e-12, 1.5, 2.0,
        1.4142135623730, 1.4142135623731, 11.0, 1024.0, 1025.0, 6.02e23, 1e300}) {
    EXPECT_NEAR(ConstexprLog(x), std::log(x), 6e-16 * std::abs(std::log(x))) << x;
  }
  for (uint32_t k = 2; k < 5000; ++k)
    ASSERT_NEAR(ConstexprLog(k), std::log(double(k)), 6e-16 * std::log(double(k))) << k;
  EXPECT_EQ(ConstexprLog(0.0), -HUGE_VAL);
  EXPECT_EQ(ConstexprLog(HUGE_VAL), HUGE_VAL);
  EXPECT_TRUE(std::isnan(ConstexprLog(-1.0)));
  EXPECT_TRUE(std::isnan(ConstexprLog(std::nan(""))));
}

// The table and the series meet: ln k! just below and above the table's end agree with lgamma
// and step by ln(k + 1) (within 4e-12: the two values near 6,000 each within about an ulp,
// 9.1e-13 there).
TEST(PhotonCounting, LogFactorialTableMeetsTheSeries) {
  for (uint32_t k = kLogFactorialTable - 3; k < kLogFactorialTable + 3; ++k) {
    EXPECT_NEAR(LogFactorial(k + 1.0) - LogFactorial(k), std::log(k + 1.0), 4e-12) << k;
    EXPECT_NEAR(LogFactorial(k), std::lgamma(k + 1.0), 4e-16 * std::lgamma(k + 1.0)) << k;
  }
}

TEST(PhotonCounting, InversionGivesTheDistributionsProbabilities) {
  // P(0) = exp(-m), P(1) = m exp(-m): u below e^-m gives 0, between the two sums 1.
  const double m = 0.8;
  EXPECT_EQ(PoissonByInversion(m, std::exp(-m) * 0.999), 0u);
  EXPECT_EQ(PoissonByInversion(m, std::exp(-m) * 1.001), 1u);
  EXPECT_EQ(PoissonByInversion(m, std::exp(-m) * (1 + m) * 0.999), 1u);
  EXPECT_EQ(PoissonByInversion(m, std::exp(-m) * (1 + m) * 1.001), 2u);
}

TEST(Sipm, WithoutSaturationTheChargeIsThePhotonCount) {
  SipmState s{1.0f};
  for (float n : {0.0f, 1.0f, 7.0f, 1e4f})
    EXPECT_EQ(SipmCharge(Sipm{0, 10e-9}, 0.9f, n, s), n);
}

TEST(Sipm, SaturatesAsCellsFillAndRecoversAsEquationNine) {
  const Sipm sipm{1000, 20e-9};
  const double dt = 1e-9;
  const float recovery = SipmRecovery(sipm, dt);
  EXPECT_NEAR(recovery, std::exp(-dt / 20e-9), 1e-7);
  // One bin of n photons on rested cells: N (1 - exp(-n / N)).
  for (float n : {1.0f, 100.0f, 1000.0f, 1e5f}) {
    SipmState s{1.0f};
    EXPECT_NEAR(SipmCharge(sipm, recovery, n, s), 1000 * (1 - std::exp(-n / 1000.0)), 1e-3 * n)
        << n;
  }
  // Every cell fired (1e5 photons on 1000 cells): the mean sensitivity t after is
  // S = 1 - exp(-t / tau) (eq. 9); a photon then gives S.
  SipmState s{1.0f};
  SipmCharge(sipm, recovery, 1e5f, s);
  for (int bins = 1; bins <= 60; ++bins) {
    EXPECT_NEAR(s.sensitivity, 1 - std::exp(-bins * dt / 20e-9), 1e-5) << bins;
    const float q = SipmCharge(sipm, recovery, 0.0f, s);
    EXPECT_EQ(q, 0.0f);
  }
  SipmState t{0.25f};
  EXPECT_NEAR(SipmCharge(sipm, recovery, 1.0f, t), 0.25 * 1000 * (1 - std::exp(-1e-3)), 1e-6);
}

// The share of cells hit, 1 - exp(-n / N), to float rounding on both sides of the series'
// edge (n / N = 1/32) and from one photon on 100,000 cells to saturation: within 2 float ulps of
// the double value everywhere (1 - exp(-x) in float would be off by far more for small x).
TEST(Sipm, HitShareIsOneMinusExpToFloatRounding) {
  double worst_ulps = 0;
  for (double cells : {1e5, 4000.0, 1000.0, 64.0}) {
    for (float n = 1; n < 4 * cells; n = std::max(n + 1, n * 1.01f)) {
      const double exact = -std::expm1(-double(n) / double(float(cells)));
      const float h = SipmHitShare(Sipm{cells, 20e-9}, n);
      const double ulp = std::nextafter(float(exact), 2.0f) - float(exact);
      worst_ulps = std::max(worst_ulps, std::abs(h - exact) / ulp);
    }
  }
  EXPECT_LT(worst_ulps, 2.0);
  EXPECT_EQ(SipmMap(Sipm{4000, 20e-9}, 0.95f, 0.0f).a, 0.95f);
  EXPECT_EQ(SipmMapOfShare(Sipm{4000, 20e-9}, 0.95f, 0.0f).a, 0.95f);
}

std::vector<ComplexF> Twiddles(uint32_t n) {
  std::vector<ComplexF> t(n / 2);
  FillTwiddles(n, t.data());
  return t;
}

TEST(Fft, MatchesTheDirectSumAndInvertsItself) {
  for (uint32_t n : {2u, 8u, 64u, 1024u}) {
    std::vector<ComplexF> x(n);
    for (uint32_t i = 0; i < n; ++i)
      x[i] = {static_cast<float>(std::sin(0.37 * i) + 0.1 * i), static_cast<float>(std::cos(i))};
    std::vector<ComplexF> f = x;
    const auto tw = Twiddles(n);
    Fft(f.data(), n, tw.data(), false);
    double scale = 0;
    for (const auto& v : x)
      scale += std::abs(v.re) + std::abs(v.im);
    for (uint32_t k = 0; k < n; k += (n > 64 ? 37 : 1)) {
      std::complex<double> s = 0;
      for (uint32_t i = 0; i < n; ++i)
        s += std::complex<double>(x[i].re, x[i].im) * std::polar(1.0, -2 * kPi * i * k / n);
      // Float butterflies: rounding grows as log2 n ulps of the sum of magnitudes.
      EXPECT_NEAR(f[k].re, s.real(), 2e-6 * scale) << n << " " << k;
      EXPECT_NEAR(f[k].im, s.imag(), 2e-6 * scale) << n << " " << k;
    }
    Fft(f.data(), n, tw.data(), true);
    // Back again: a few ulps of the largest value per stage, 2 log2 n stages.
    double largest = 0;
    for (const auto& v : x)
      largest = std::max<double>(largest, std::hypot(v.re, v.im));
    const double tol = 2 * std::log2(n) * 1.2e-7 * largest;
    for (uint32_t i = 0; i < n; ++i) {
      EXPECT_NEAR(f[i].re, x[i].re, tol) << n << " " << i;
      EXPECT_NEAR(f[i].im, x[i].im, tol) << n << " " << i;
    }
  }
}

// The response of eq. (10) to a sequence, as the chain computes it.
std::vector<double> Filter(const PoleZeroCircuit& c, const std::vector<double>& in, double dt) {
  const auto n = static_cast<uint32_t>(in.size());
  std::vector<ComplexF> h(n), x(n);
  FillTransferBins(c, n, dt, h.data());
  const auto tw = Twiddles(n);
  for (uint32_t i = 0; i < n; ++i)
    x[i] = {static_cast<float>(in[i]), 0};
  Fft(x.data(), n, tw.data(), false);
  for (uint32_t k = 0; k < n; ++k)
    x[k] = Mul(x[k], h[k]);
  Fft(x.data(), n, tw.data(), true);
  std::vector<double> out(n);
  for (uint32_t i = 0; i < n; ++i)
    out[i] = x[i].re;
  return out;
}

TEST(Circuit, SinglePoleReproducesTheAnalyticStepAndImpulseResponses) {
  // R / (1 + j f / f_p) with the charge of each sample spread over its bin (circuit.h): a
  // current I switched on for the bin ending at sample `on` gives, at sample n >= on,
  // R I (1 - exp(-w (n - on + 1) dt)), the analog step response at t = (n - on + 1) dt, and
  // nothing before it (no ringing ahead of a pulse); a charge Q in bin `on` gives
  // R (Q / dt) (1 - a) a^(n - on), a = exp(-w dt), which sums to R Q. Exact but for float
  // rounding (the tail that wraps round the 4096 samples is below 1e-30): w dt = 0.94, the
  // Cube 1's circuit, and 0.0126.
  for (const auto& [dt, fp] : {std::pair{1e-9, 150e6}, std::pair{0.1e-9, 20e6}}) {
    const double r = 50, w = 2 * kPi * fp, a = std::exp(-w * dt);
    const PoleZeroCircuit c{r, {fp}, 1, {}, 0, 0};
    const uint32_t n = 4096, on = 512, off = 2560;
    std::vector<double> step(n, 0.0);
    for (uint32_t i = on; i < off; ++i)
      step[i] = 1e-3;
    const auto v = Filter(c, step, dt);
    const double tol = 2e-6 * r * 1e-3;
    for (uint32_t i = 0; i < on; ++i)
      ASSERT_NEAR(v[i], 0.0, tol) << i;
    for (uint32_t i = on; i < off; ++i)
      ASSERT_NEAR(v[i], r * 1e-3 * (1 - std::pow(a, i - on + 1.0)), tol) << i;
    const double q = 1e-12;
    std::vector<double> impulse(n, 0.0);
    impulse[on] = q / dt;
    const auto u = Filter(c, impulse, dt);
    double area = 0;
    for (double x : u)
      area += x * dt;
    EXPECT_NEAR(area, r * q, 1e-5 * r * q);
    const double peak = r * q / dt * (1 - a);
    for (uint32_t i = 0; i < n; ++i) {
      const double expected = i < on ? 0.0 : peak * std::pow(a, i - on);
      ASSERT_NEAR(u[i], expected, 2e-6 * peak) << i;
    }
  }
}

// A measured front end's table (rows of f, gain, phase) sampled at the bins: a single pole
// at 50 MHz tabulated every 0.5 MHz gives its analog response at every bin to the linear
// interpolation's error (1e-4 of the DC gain here), the bins above Nyquist the conjugates,
// the Nyquist bin real; the SiPM pulse multiplies it as in CircuitResponse.
struct Tabulated {
  std::vector<double> f_hz, gain, phase;
  ResponseTable Table(double pulse_decay_s) const {
    return {f_hz.data(), gain.data(), phase.data(), static_cast<uint32_t>(f_hz.size()),
            pulse_decay_s};
  }
};
Tabulated Tabulate(const std::function<std::complex<double>(double)>& h, double step_hz,
                   double last_hz) {
  Tabulated t;
  for (double f = 0; f <= last_hz + 1; f += step_hz) {
    t.f_hz.push_back(f);
    t.gain.push_back(std::abs(h(f)));
    t.phase.push_back(std::arg(h(f)));
  }
  return t;
}

TEST(Circuit, TableBinsAreTheTabulatedResponse) {
  PoleZeroCircuit pole{};
  pole.transimpedance_ohm = 50;
  pole.poles_hz[0] = 50e6;
  pole.pole_count = 1;
  const Tabulated t = Tabulate([&](double f) { return CircuitResponse(pole, f); }, 0.5e6, 600e6);
  const uint32_t n = 1024;
  const double dt = 1e-9;
  for (double tau : {0.0, 1e-9}) {
    std::vector<ComplexF> bins(n);
    FillTransferBinsFromTable(t.Table(tau), n, dt, bins.data());
    pole.pulse_decay_s = tau;
    for (uint32_t k = 0; k < n / 2; ++k) {
      const std::complex<double> h = CircuitResponse(pole, k / (n * dt));
      EXPECT_NEAR(bins[k].re, h.real(), 5e-3) << k;  // 1e-4 of the 50 ohm DC gain
      EXPECT_NEAR(bins[k].im, h.imag(), 5e-3) << k;
      if (k > 0) {
        EXPECT_EQ(bins[n - k].re, bins[k].re);
        EXPECT_EQ(bins[n - k].im, -bins[k].im);
      }
    }
    EXPECT_EQ(bins[n / 2].im, 0.0f);
    EXPECT_NEAR(bins[n / 2].re, CircuitResponse(pole, 0.5 / dt).real(), 5e-3);
  }
}

// A flat table is a pure gain; a phase falling linearly with f (interpolated exactly) is a
// delay: the record comes back scaled and shifted by the delay's whole samples.
TEST(Circuit, FlatTableIsAGainAndAPhaseRampADelay) {
  const uint32_t n = 256;
  const double dt = 1e-9;
  const auto twiddles = Twiddles(n);
  std::vector<ComplexF> x(n);
  for (uint32_t i = 0; i < n; ++i)
    x[i] = {static_cast<float>(std::sin(0.3 * i) + (i == 40 ? 5.0 : 0.0)), 0.0f};
  for (int delay : {0, 7}) {
    const Tabulated t =
        Tabulate([&](double f) { return std::polar(50.0, -2 * kPi * f * delay * dt); }, 1e6, 600e6);
    // polar() wraps the phase into (-pi, pi]: unwrap it, as a measured phase is given.
    Tabulated u = t;
    for (size_t k = 0; k < u.f_hz.size(); ++k)
      u.phase[k] = -2 * kPi * u.f_hz[k] * delay * dt;
    std::vector<ComplexF> bins(n);
    FillTransferBinsFromTable(u.Table(0), n, dt, bins.data());
    std::vector<ComplexF> y = x;
    Fft(y.data(), n, twiddles.data(), false);
    for (uint32_t k = 0; k < n; ++k)
      y[k] = Mul(y[k], bins[k]);
    Fft(y.data(), n, twiddles.data(), true);
    for (uint32_t i = 0; i < n; ++i) {
      EXPECT_NEAR(y[(i + delay) % n].re, 50 * x[i].re, 2e-4 * 50 * 6) << delay << " " << i;
      EXPECT_NEAR(y[i].im, 0.0, 1e-3) << i;
    }
  }
}

// The check that a table's impulse response is causal and short: the step-invariant pole-zero
// response and a delay show nothing in the record's last quarter; a zero-phase low-pass
// (symmetric about t = 0, half of it wrapped to the record's end) shows most of its peak.
TEST(Circuit, TailRatioFlagsAcausalResponses) {
  const uint32_t n = 1024;
  const auto twiddles = Twiddles(n);
  std::vector<ComplexF> bins(n);
  PoleZeroCircuit c{};
  c.transimpedance_ohm = 50;
  c.poles_hz[0] = 150e6;
  c.pole_count = 1;
  c.pulse_decay_s = 1e-9;
  ASSERT_TRUE(FillTransferBins(c, n, 1e-9, bins.data()));
  EXPECT_LT(ResponseTailRatio(bins.data(), n, twiddles.data()), 1e-6);
  Tabulated low;
  for (double f : {0.0, 100e6, 101e6, 600e6}) {
    low.f_hz.push_back(f);
    low.gain.push_back(f <= 100e6 ? 50 : 0);
    low.phase.push_back(0);
  }
  FillTransferBinsFromTable(low.Table(0), n, 1e-9, bins.data());
  EXPECT_GT(ResponseTailRatio(bins.data(), n, twiddles.data()), 0.1);
}

TEST(Circuit, PolesAndZerosSplitIntoPartialFractionsThatKeepTheGain) {
  // Two poles and a zero and the SiPM pulse: residues sum, over w_p, to H(0) = R_T; the
  // discrete response's DC bin is R_T; coinciding poles and too many zeros are refused.
  const PoleZeroCircuit c{50, {150e6, 400e6}, 2, {900e6}, 1, 1e-9};
  PartialFractions pf{};
  ASSERT_TRUE(CircuitPartialFractions(c, pf));
  ASSERT_EQ(pf.count, 3u);
  double gain = 0;
  for (uint32_t p = 0; p < pf.count; ++p)
    gain += pf.r[p] / pf.w[p];
  EXPECT_NEAR(gain, 50, 1e-9);
  // And H(s) at s = j w from the fractions equals the product form.
  const double f = 80e6;
  std::complex<double> sum = 0;
  for (uint32_t p = 0; p < pf.count; ++p)
    sum += pf.r[p] / (std::complex<double>(0, 2 * kPi * f) + pf.w[p]);
  EXPECT_NEAR(std::abs(sum - CircuitResponse(c, f)), 0.0, 1e-9 * std::abs(sum));
  std::vector<ComplexF> bins(1024);
  ASSERT_TRUE(FillTransferBins(c, 1024, 1e-9, bins.data()));
  EXPECT_NEAR(bins[0].re, 50, 1e-4);
  EXPECT_NEAR(bins[0].im, 0, 1e-4);
  EXPECT_FALSE(CircuitPartialFractions(PoleZeroCircuit{50, {150e6, 150e6}, 2, {}, 0, 0}, pf));
  EXPECT_FALSE(CircuitPartialFractions(PoleZeroCircuit{50, {150e6}, 1, {9e8}, 1, 0}, pf));
}

// The circuit as sections (circuit_recursion.h) gives eq. (10)'s transform sample for sample:
// the Cube 1's pole and SiPM pulse, two poles and a zero (a negative residue), and a slow
// section (a = 0.98) whose response wraps round the record, with pulses at its end: the
// transform's circular convolution is the recursion's periodic steady state. Bound: the
// transform's rounding, 2 log2(N) stages of a few float ulps of the record's largest value
// (1e-6 of it), and the recursion's, which grows as 1 / (1 - a).
TEST(Circuit, SectionsGiveTheTransformsVoltages) {
  const double dt = 1e-9;
  // 64 samples with the slow section: a^N = 0.27, so the periodic start's 1 / (1 - a^N) counts.
  for (const auto& [c, n] :
       {std::pair{PoleZeroCircuit{50, {150e6}, 1, {}, 0, 1e-9}, 1024u},
        std::pair{PoleZeroCircuit{50, {150e6, 400e6}, 2, {900e6}, 1, 1e-9}, 1024u},
        std::pair{PoleZeroCircuit{50, {3.3e6}, 1, {}, 0, 2e-9}, 1024u},
        std::pair{PoleZeroCircuit{50, {3.3e6}, 1, {}, 0, 2e-9}, 64u}}) {
    const CircuitRecursion r = CircuitRecursionOf(c, dt);
    PartialFractions pf{};
    ASSERT_TRUE(CircuitPartialFractions(c, pf));
    ASSERT_EQ(r.count, pf.count);
    std::vector<double> in(n, 0.0);
    std::vector<float> x(n);
    for (uint32_t i = 0; i < n; ++i) {
      // Pulses across the record, the last 3 samples from its end, and a small ripple.
      in[i] = 1e-3 * (std::exp(-0.5 * std::pow((i - 0.29 * n) / 2, 2)) +
                      0.5 * std::exp(-0.5 * std::pow((i - (n - 4.0)) / 1.5, 2))) +
              2e-5 * std::sin(0.37 * i);
      x[i] = static_cast<float>(in[i]);
    }
    const std::vector<double> fft = Filter(c, in, dt);
    std::vector<float> v(n);
    RecursiveCircuitVoltage(r, x.data(), n, v.data());
    double largest = 0, worst = 0;
    for (uint32_t i = 0; i < n; ++i)
      largest = std::max(largest, std::abs(fft[i]));
    for (uint32_t i = 0; i < n; ++i)
      worst = std::max(worst, std::abs(v[i] - fft[i]));
    EXPECT_LT(worst, 2e-6 * largest) << c.poles_hz[0] << " " << n;
    // The wrap is there to get right: at the record's start the slow section still carries the
    // end's pulse (a^4 of it at sample 0).
    if (c.poles_hz[0] < 1e7) {
      EXPECT_GT(std::abs(fft[0]), 0.05 * largest);
    }
  }
}

// The sections in float, as the GPU runs them (a state a section, fmaf, the sum in float), stay
// within 1.5e-7 of the peak per unit of their conditioning (RecursionConditioning): the
// rounding of the states is what the cancelling gains of close poles amplify. The Cube 1
// (conditioning 34) is within 5e-6; poles 1 % apart (conditioning in the hundreds) are refused,
// and would be off by more.
TEST(Circuit, FloatSectionsStayWithinTheirConditioning) {
  const double dt = 1e-9;
  const uint32_t n = 2048;
  std::vector<double> in(n);
  for (uint32_t i = 0; i < n; ++i)
    in[i] = 1e-3 * std::exp(-0.5 * std::pow((i - 700.0) / 1.7, 2)) +
            1e-6 * ((i * 2654435761u) % 1000) / 1000.0;  // a pulse on a small uneven floor
  auto float_error = [&](const PoleZeroCircuit& c, const CircuitRecursion& r) {
    const std::vector<double> fft = Filter(c, in, dt);
    std::vector<float> u(r.count, 0.0f);
    for (uint32_t i = 0; i < n; ++i)  // from 0: U_p, then the periodic start
      for (uint32_t p = 0; p < r.count; ++p)
        u[p] = std::fmaf(r.decay[p], u[p], static_cast<float>(in[i]));
    for (uint32_t p = 0; p < r.count; ++p)
      u[p] = static_cast<float>(u[p] / (1 - std::pow(double(r.decay[p]), n)));
    double worst = 0, peak = 0;
    for (uint32_t i = 0; i < n; ++i) {
      float v = 0;
      for (uint32_t p = 0; p < r.count; ++p) {
        u[p] = std::fmaf(r.decay[p], u[p], static_cast<float>(in[i]));
        v = std::fmaf(r.gain[p], u[p], v);
      }
      peak = std::max(peak, std::abs(fft[i]));
      worst = std::max(worst, std::abs(v - fft[i]));
    }
    return worst / peak;
  };
  const PoleZeroCircuit cube{50, {150e6}, 1, {}, 0, 1e-9};
  const CircuitRecursion r = CircuitRecursionOf(cube, dt);
  ASSERT_EQ(r.count, 2u);
  const double k = RecursionConditioning(r);
  EXPECT_GT(k, 20);
  EXPECT_LT(k, kMaxRecursionConditioning);
  const double e = float_error(cube, r);
  std::printf("[sections] Cube 1 circuit: conditioning %.1f, float error %.2g of the peak\n", k, e);
  EXPECT_LT(e, 1.5e-7 * k);
  EXPECT_LT(e, 5e-6);
  // The SiPM pulse's pole 1 % from the circuit's: refused; its float sections are off by more.
  const PoleZeroCircuit close{50, {150e6}, 1, {}, 0, 1 / (2 * kPi * 150e6 * 1.01)};
  EXPECT_EQ(CircuitRecursionOf(close, dt).count, 0u);
  PartialFractions pf{};
  ASSERT_TRUE(CircuitPartialFractions(close, pf));
  const CircuitRecursion forced = SectionsOf(pf, dt);
  const double kc = RecursionConditioning(forced), ec = float_error(close, forced);
  std::printf("[sections] poles 1 %% apart: conditioning %.1f, float error %.2g of the peak\n", kc,
              ec);
  EXPECT_GT(kc, kMaxRecursionConditioning);
  EXPECT_GT(ec, 5e-6);
}

TEST(Circuit, SectionsAreRefusedWhereTheTransformMustStay) {
  const double dt = 1e-9;
  // A pole slower than kMaxRecursionDecay a sample (1 MHz: a = 0.9937), more than four
  // sections, coinciding poles.
  EXPECT_EQ(CircuitRecursionOf(PoleZeroCircuit{50, {1e6}, 1, {}, 0, 1e-9}, dt).count, 0u);
  EXPECT_EQ(
      CircuitRecursionOf(PoleZeroCircuit{50, {100e6, 200e6, 300e6, 400e6}, 4, {}, 0, 1e-9}, dt)
          .count,
      0u);
  EXPECT_EQ(CircuitRecursionOf(PoleZeroCircuit{50, {150e6, 150e6}, 2, {}, 0, 0}, dt).count, 0u);
  EXPECT_EQ(
      CircuitRecursionOf(PoleZeroCircuit{50, {100e6, 200e6, 300e6}, 3, {}, 0, 1e-9}, dt).count, 4u);
}

// A gap of g bins without photons in the gap table (gap_powers.h) is g float steps of the SiPM's
// recovery and of each section's decay, to their rounding (a few ulps a step; the table itself
// is exact to one float rounding): the GPU's sparse passes step over gaps by it.
TEST(GapPowers, AGapIsThatManyStepsWithoutPhotons) {
  const double dt = 1e-9;
  const uint32_t n = 2048, row = GapPowerRow(n);
  ASSERT_EQ(row, 65u);
  const float r = SipmRecovery(Sipm{4000, 20e-9}, dt);
  const CircuitRecursion sections =
      CircuitRecursionOf(PoleZeroCircuit{50, {150e6, 400e6}, 2, {900e6}, 1, 1e-9}, dt);
  ASSERT_EQ(sections.count, 3u);
  const std::vector<float> t = GapPowers(r, sections, n);
  ASSERT_EQ(t.size(), size_t{row} * 5);
  float s = 0.3f;  // a sensitivity after a burst of photons
  float u[3] = {1, 1, 1};
  for (uint32_t g = 0; g < row; ++g) {
    const double tol = 1e-7 * (g + 1);
    EXPECT_NEAR(t[g] * 0.3 + t[row + g], s, tol) << g;
    EXPECT_NEAR(t[g], std::pow(double(r), g), 1e-7 * std::pow(double(r), g)) << g;
    for (uint32_t p = 0; p < 3; ++p) {
      EXPECT_NEAR(t[(2 + p) * row + g], u[p], tol * u[p]) << g << " " << p;
      u[p] = sections.decay[p] * u[p];
    }
    s = r * s + (1.0f - r);
  }
  // One bin is the dense step's own map, exactly; none is the identity.
  EXPECT_EQ(t[1], r);
  EXPECT_EQ(t[row + 1], 1.0f - r);
  EXPECT_EQ(t[0], 1.0f);
  EXPECT_EQ(t[row], 0.0f);
  // Without recovery (a fired cell whole again at once) a gap leaves the cells at rest.
  const std::vector<float> none = GapPowers(0.0f, CircuitRecursion{}, n);
  EXPECT_EQ(none[0], 1.0f);
  EXPECT_EQ(none[1], 0.0f);
  EXPECT_EQ(none[row + 1], 1.0f);
}

// The peak fit through three samples: exact for a Gaussian pulse (a parabola in its
// logarithm) at any offset within half a sample and any width, above any baseline, to the
// float precision of the samples (the Gaussian's logarithms are fitted in float: a relative
// error e of the samples moves the offset by about e sigma^2 / 2, 1e-6 of a sample at 4
// samples' sigma); a parabola through the samples where one is at or below the baseline, and no
// offset for a flat top.
TEST(WaveformRanging, PeakFitIsExactForAGaussianAndParabolicOtherwise) {
  for (double sigma : {0.7, 1.7, 4.0}) {
    for (double offset : {-0.49, -0.2, 0.0, 0.13, 0.45}) {
      const double height = 0.37, base = 0.1;
      auto at = [&](double k) {
        return base + height * std::exp(-0.5 * std::pow((k - offset) / sigma, 2));
      };
      const PeakFit p = FitPeak(at(-1), at(0), at(1), base);
      EXPECT_NEAR(p.offset, offset, 2e-6 * sigma * sigma) << sigma;
      EXPECT_NEAR(p.height, height, 1e-6 * height) << sigma;
    }
  }
  // y = 1 - (k - 0.25)^2 through samples at -1, 0, 1, one of them at the baseline 0 -> 0.4375.
  const PeakFit q = FitPeak(1 - 1.5625, 1 - 0.0625, 1 - 0.5625, 0.0);
  EXPECT_NEAR(q.offset, 0.25, 1e-12);
  EXPECT_NEAR(q.height, 1.0, 1e-12);
  const PeakFit flat = FitPeak(0.5, 0.5, 0.5, 0.0);
  EXPECT_EQ(flat.offset, 0.0);
  EXPECT_EQ(flat.height, 0.5);
}

// A waveform chain with its tables, for a sensor like the Cube 1 (stand-in values).
struct Chain {
  WaveformChain w{};
  std::vector<ComplexF> transfer, twiddles;
  Chain(uint32_t n = 1024, double dt = 1e-9) : transfer(n), twiddles(n / 2) {
    const PoleZeroCircuit c{50, {150e6}, 1, {}, 0, 1e-9};
    FillTransferBins(c, n, dt, transfer.data());
    FillTwiddles(n, twiddles.data());
    w.dt_s = dt;
    w.samples = n;
    w.pretrigger_samples = 64;
    w.pulse_sigma_s = 4e-9 / kFwhmPerSigma;
    w.internal_delay_s = 2e-9;
    w.internal_power_w = 2e-6;
    w.photon_energy_j = PhotonEnergy(kWavelength);
    w.efficiency = 0.25;
    w.dark_rate_hz = 1e5;
    w.sipm = {0, 20e-9};
    w.cell_charge_c = 1e6 * kElementaryCharge_C;
    w.baseline_v = 0.1;
    w.thermal_noise_v = 0;
    w.shot_noise = false;
    w.threshold_v = 5e-3;
    w.noise_factor = 5;
    w.internal_window_s = 20e-9;
    w.full_scale_v = 2.0;
    w.intensity_max = 4096;
    w.transfer = transfer.data();
    w.twiddles = twiddles.data();
  }
  std::vector<ComplexF> Run(std::vector<SignalContribution> c, double sun_w = 0,
                            uint32_t beam = 0) const {
    std::vector<ComplexF> x(w.samples);
    SimulateWaveform(w, c.data(), static_cast<uint32_t>(c.size()), sun_w,
                     RandomKey{7, 0, beam, 0, 0}, x.data());
    return x;
  }
  std::vector<Echo> Echoes(const std::vector<ComplexF>& x, WaveformBackground* bg = nullptr) const {
    const WaveformBackground g = MeasureBackground(w, x.data());
    if (bg) *bg = g;
    Echo out[kMaxEchoesDetected];
    uint32_t detected = 0;
    const uint32_t k = WaveformEchoes(w, g, x.data(), 0.0, 1e9, out, &detected);
    return {out, out + k};
  }
};

// Received power of a Lambertian plate of reflectance rho at range r (seed 002 eq. 2).
double Plate(double rho, double r) {
  const LinkBudget l{0.2, 0.02, 0.9, 0};  // a weak link: a 10 % plate fades out within 150 m
  return ReceivedPower(l, rho / kPi, 1.0, r);
}

TEST(WaveformChain, NoiseFreePeakRecoversTheRangeOfAPlate) {
  const Chain chain;
  auto range = [&](double r) {
    const auto e =
        chain.Echoes(chain.Run({{static_cast<float>(r), static_cast<float>(Plate(0.1, r)), 3, 0}}));
    EXPECT_EQ(e.size(), 1u) << r;
    return e.empty() ? 0.0 : e[0].range_m;
  };
  // The internal reflection and the target share the chain's shape, so its delays cancel.
  // A target whose round trip is a whole number of samples after the internal reflection's
  // sits at the same phase between samples: its range is exact to float rounding.
  const double sample_m = 0.5 * kSpeedOfLight_m_s * chain.w.dt_s;
  for (int k = 40; k <= 260; k += 11) {
    const double r = 0.5 * kSpeedOfLight_m_s * chain.w.internal_delay_s + k * sample_m;
    EXPECT_NEAR(range(r), r, 1e-4) << r;
  }
  // Elsewhere what is left is the sub-sample fit's error, which depends on where the peak
  // falls between samples: at most 2.5 mm (1.7 % of the 15 cm sample) with this chain.
  for (double r = 5.0; r <= 40.0; r += 0.037)
    EXPECT_NEAR(range(r), r, 2.5e-3) << r;
}

TEST(WaveformChain, NoiseFreeAmplitudeFollowsInverseSquareAndReflectance) {
  const Chain chain;
  auto height = [&](double rho, double r) {
    const auto e =
        chain.Echoes(chain.Run({{static_cast<float>(r), static_cast<float>(Plate(rho, r)), 0, 0}}));
    return e.empty() ? 0.0 : e[0].peak_power_w;
  };
  const double h10 = height(0.1, 10);
  ASSERT_GT(h10, 0);
  // Linear chain (no saturation): the peak height scales with the received power. The fit of
  // the peak between samples leaves 0.3 % (measured across phases).
  for (double r : {7.0, 13.0, 20.0, 31.0})
    EXPECT_NEAR(height(0.1, r) / h10, 100 / (r * r), 3e-3 * 100 / (r * r)) << r;
  for (double rho : {0.05, 0.3, 0.8})
    EXPECT_NEAR(height(rho, 10) / h10, rho / 0.1, 3e-3 * rho / 0.1) << rho;
}

// A bright target in sunlight, 2 nW (2.3 photons a bin: drawn bin by bin), and a dimmer one,
// 0.5 nW (0.57 a bin: drawn a segment at a time).
class SunlightNoise : public ::testing::TestWithParam<double> {};
INSTANTIATE_TEST_SUITE_P(WaveformChain, SunlightNoise, ::testing::Values(2e-9, 0.5e-9));

TEST_P(SunlightNoise, RaisesTheBaselineAndNoiseByTheAnalyticAmount) {
  Chain chain(1024, 1e-9);
  chain.w.shot_noise = true;
  chain.w.dark_rate_hz = 0;
  const double sun = GetParam();  // W
  const double mean =
      MeanPhotonCount(sun, chain.w.dt_s, chain.w.photon_energy_j, chain.w.efficiency, 0.0);
  EXPECT_EQ(BinBackgroundMean(chain.w, mean) == 0, mean < kSparseBackgroundMean);
  // Photons per bin are Poisson(m): a current a n (a = G e / dt) has mean a m and variance a^2 m;
  // through H, a constant rises by H(0) a m and white noise's variance is a^2 m (1 / N)
  // sum_k |H_k|^2 (Parseval, circular convolution).
  const double a = chain.w.cell_charge_c / chain.w.dt_s;
  double power_gain = 0;
  for (const auto& h : chain.transfer)
    power_gain += h.re * h.re + h.im * h.im;
  power_gain /= chain.w.samples;
  const double expected_rise = chain.transfer[0].re * a * mean;
  const double expected_rms = std::sqrt(a * a * mean * power_gain);
  double rise = 0, var = 0;
  const int beams = 400;
  for (int b = 0; b < beams; ++b) {
    WaveformBackground g{};
    chain.Echoes(chain.Run({}, sun, b), &g);
    rise += g.baseline_v - chain.w.baseline_v;
    var += g.noise_v * g.noise_v;
  }
  rise /= beams;
  const double rms = std::sqrt(var / beams);
  EXPECT_NEAR(rise, expected_rise, 0.02 * expected_rise);
  // The pretrigger's 64 samples are correlated over the circuit's time constant; averaged over
  // 400 beams the variance estimate is good to a few percent.
  EXPECT_NEAR(rms, expected_rms, 0.05 * expected_rms);
}

// The farthest range [m] at which a plate is detected in at least half of `beams` pulses.
double DetectionRange(const Chain& chain, double rho, double sun_w_per_rho) {
  double last = 0;
  for (double r = 5; r <= 150; r += 5) {
    int hits = 0;
    const int beams = 40;
    for (int b = 0; b < beams; ++b) {
      const auto e =
          chain.Echoes(chain.Run({{static_cast<float>(r), static_cast<float>(Plate(rho, r)), 0, 0}},
                                 sun_w_per_rho * rho, b));
      for (const Echo& x : e)
        if (std::abs(x.range_m - r) < 0.5) {
          ++hits;
          break;
        }
    }
    if (2 * hits >= beams) last = r;
  }
  return last;
}

TEST(WaveformChain, SunlightShortensTheDetectionRangeOfATenPercentPlate) {
  Chain chain;
  chain.w.shot_noise = true;
  chain.w.thermal_noise_v = 1e-3;
  // Sunlight on the plate: eq. 4 for an albedo of 1 in the Cube 1's field of view (about
  // 50 nW for 20 W/m^2 in the band over a 3 mrad field and a 2 cm aperture, times rho).
  const double sun_per_rho = SunPower(1.0, 1.0, ConeSolidAngle(3e-3), 0.02, 0.9, 1.0, 20.0);
  const double dark = DetectionRange(chain, 0.1, 0.0);
  const double sunny = DetectionRange(chain, 0.1, sun_per_rho);
  EXPECT_GT(dark, 0);
  EXPECT_LT(sunny, dark) << "sun " << sun_per_rho * 0.1 << " W";
}

}  // namespace
}  // namespace lt::physics
