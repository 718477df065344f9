// Emitter and collector fits on synthetic goniometer data rendered here (independently of
// physics/beam_profile.h) with a camera's noise: recovery, coverage of the reported
// uncertainties over 60 images, stitching, and refusals.
#include "lidartwin/calib/beam_kernel_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "calib/coverage.h"
#include "lidartwin/calib/calibration.h"
#include "lidartwin/sim/sensor_profile.h"
#include "test_support.h"

namespace lt::calib {
namespace {

struct TrueBeam {
  double h0, v0, sh, sv, order;  // mrad; order 2 = Gaussian
};

// Images of exp(-q^(p/2) / 2) at 4 exposures: shot noise, 3 counts read noise, 5 % static
// lognormal speckle, 64 dark counts, 12-bit saturation; the peak at 3000 counts in 1 us.
BeamKernelImages Render(const TrueBeam& b, uint64_t seed, const std::string& model) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n(0, 1);
  BeamKernelImages k;
  k.file = "synthetic.h5";
  k.model = model;
  k.dark_counts = 64;
  k.saturation_counts = 4095;
  k.read_noise_counts = 3;
  k.exposure_us = {1, 30, 900, 27000};
  const int side = 41;
  for (int i = 0; i < side; ++i) {
    k.h_mrad.push_back(-8 + 16.0 * i / (side - 1));
    k.v_mrad.push_back(-8 + 16.0 * i / (side - 1));
  }
  std::vector<double> speckle(side * side);
  for (double& s : speckle)
    s = std::exp(0.05 * n(rng));
  for (double t : k.exposure_us) {
    for (int j = 0; j < side; ++j) {
      for (int i = 0; i < side; ++i) {
        const double a = (k.h_mrad[i] - b.h0) / b.sh, c = (k.v_mrad[j] - b.v0) / b.sv;
        const double e = 3000 * t * std::exp(-0.5 * std::pow(a * a + c * c, b.order / 2)) *
                         speckle[j * side + i];
        const double counts = 64 + e + std::sqrt(e) * n(rng) + 3 * n(rng);
        k.counts.push_back(static_cast<float>(std::clamp(std::round(counts), 0.0, 4095.0)));
      }
    }
  }
  return k;
}

TEST(EmitterFit, StitchingTakesTheLongestUnsaturatedExposure) {
  const BeamKernelImages k = Render({0, 0, 2, 2, 2}, 1, "gaussian");
  const StitchedKernel s = StitchExposures(k);
  // The centre pixel saturates in all but the 1 us image: about 3000 counts per us.
  for (const auto& p : s.pixels) {
    if (p.h_mrad == 0 && p.v_mrad == 0) EXPECT_NEAR(p.value, 3000, 3000 * 0.2);
  }
  // Six decades: the faintest pixel used is below 1e-6 of the peak.
  double lo = 1e300;
  for (const auto& p : s.pixels)
    lo = std::min(lo, p.value);
  EXPECT_LT(lo / 3000, 1e-6);
}

// The faint ring just above the noise floor (5 read-noise sigma, 15 counts) in the longest
// exposure. Kept by its neighbours' level, not its own count, its ln(measured) reads low only by
// ln's own second-order bias, -(read^2 + n) / (2 n^2) (no selection on top); after the fit that
// bias is added back from the fitted emitter's counts, so ln(value) averages the truth's. The
// rule it replaced (a pixel kept when its own count clears the floor) reads the ring high by
// about 0.08 in ln over that, which made the Cube 1's blended outer spots wider by 0.6 sigma.
TEST(EmitterFit, StitchingKeepsFaintPixelsWithoutFavouringThoseTheirNoiseLifted) {
  const TrueBeam b{0, 0, 1.2, 1.2, 2};
  double selection = 0, value = 0, own_rule = 0;
  size_t kept = 0, own_rule_kept = 0;
  auto ln_bias = [](double n) { return -0.5 * (9 + n) / (n * n); };  // read noise 3 counts
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const BeamKernelImages k = Render(b, seed, "gaussian");
    const double t = k.exposure_us.back();
    auto true_net = [&](double h, double v) {
      return 3000 * t * std::exp(-0.5 * (h * h + v * v) / (b.sh * b.sh));
    };
    auto fit = FitEmitter(k);
    ASSERT_TRUE(fit.ok()) << fit.message();
    for (const KernelPixel& p : fit->data.pixels) {
      const double n = true_net(p.h_mrad, p.v_mrad);
      if (p.exposure_us != t || n < 15 || n > 30) continue;
      selection += std::log(p.measured * t / n) - ln_bias(n);
      value += std::log(p.value * t / n);
      ++kept;
    }
    const size_t side = k.nh(), offset = (k.exposure_us.size() - 1) * side * side;
    for (size_t j = 0; j < side; ++j)
      for (size_t i = 0; i < side; ++i) {
        const double n = true_net(k.h_mrad[i], k.v_mrad[j]);
        const double own = k.counts[offset + j * side + i] - k.dark_counts;
        if (n < 15 || n > 30 || own < 15) continue;
        own_rule += std::log(own / n) - ln_bias(n);
        ++own_rule_kept;
      }
  }
  ASSERT_GT(kept, 500u);
  selection /= static_cast<double>(kept);
  value /= static_cast<double>(kept);
  own_rule /= static_cast<double>(own_rule_kept);
  std::printf(
      "[stitch] faint ring, %zu pixels: selection bias %+.3f (own-count rule %+.3f); ln(value) "
      "bias %+.3f\n",
      kept, selection, own_rule, value);
  EXPECT_LT(std::abs(selection), 0.02);
  EXPECT_LT(std::abs(value), 0.02);
  EXPECT_GT(own_rule, 0.05);  // what the test would catch
}

TEST(EmitterFit, GaussianAndSuperGaussianAreRecoveredWithCoverage) {
  test::Coverage gauss, super;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const TrueBeam g{0.3, -0.2, 1.5, 1.0, 2};
    auto fg = FitEmitter(Render(g, seed, "gaussian"));
    ASSERT_TRUE(fg.ok()) << fg.message();
    gauss.Add(fg->result, "spot1.h_offset_mrad", g.h0);
    gauss.Add(fg->result, "spot1.v_offset_mrad", g.v0);
    gauss.Add(fg->result, "spot1.fwhm_h_mrad", 2.3548200450309493 * g.sh);
    gauss.Add(fg->result, "spot1.fwhm_v_mrad", 2.3548200450309493 * g.sv);
    const TrueBeam s{-0.1, 0.2, 2.0, 1.4, 5};
    auto fs = FitEmitter(Render(s, seed + 1000, "super_gaussian"));
    ASSERT_TRUE(fs.ok()) << fs.message();
    super.Add(fs->result, "h_offset_mrad", s.h0);
    super.Add(fs->result, "v_offset_mrad", s.v0);
    super.Add(fs->result, "sigma_h_mrad", s.sh);
    super.Add(fs->result, "sigma_v_mrad", s.sv);
    super.Add(fs->result, "order", s.order);
    EXPECT_GT(fs->speckle_sigma_ln, 0.03);  // the 5 % speckle is found
    EXPECT_LT(fs->speckle_sigma_ln, 0.07);
  }
  gauss.Print();
  gauss.Expect("gaussian emitter");
  super.Print();
  super.Expect("super-Gaussian emitter");
}

// The separable layout exp(-|a|^p / 2) exp(-|b|^p / 2), rendered here, is recovered by the
// separable fit; a super-Gaussian of two spots is refused.
TEST(EmitterFit, SeparableSuperGaussianIsRecovered) {
  BeamKernelImages k = Render({0, 0, 2, 1.5, 4}, 21, "super_gaussian");
  // Re-render the counts in the separable form.
  std::mt19937_64 rng(22);
  std::normal_distribution<double> n(0, 1);
  const size_t side = k.nh();
  k.counts.clear();
  for (double t : k.exposure_us)
    for (size_t j = 0; j < side; ++j)
      for (size_t i = 0; i < side; ++i) {
        const double a = k.h_mrad[i] / 2, b = k.v_mrad[j] / 1.5;
        const double e =
            3000 * t * std::exp(-0.5 * std::pow(a * a, 2)) * std::exp(-0.5 * std::pow(b * b, 2));
        k.counts.push_back(static_cast<float>(
            std::clamp(std::round(64 + e + std::sqrt(e) * n(rng) + 3 * n(rng)), 0.0, 4095.0)));
      }
  k.separable = true;
  auto f = FitEmitter(k);
  ASSERT_TRUE(f.ok()) << f.message();
  const auto* order = f->result.Find("order");
  ASSERT_NE(order, nullptr);
  EXPECT_NEAR(order->value, 4, 4 * order->stddev + 0.02);
  EXPECT_NEAR(f->result.Find("sigma_h_mrad")->value, 2, 0.01);
  k.spots = 2;
  auto two = FitEmitter(k);
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.message().find("one spot"), std::string::npos) << two.message();
}

TEST(EmitterFit, RefusesTooFewPixelsAndReportsRejectedOnes) {
  BeamKernelImages k = Render({0, 0, 2, 2, 2}, 3, "gaussian");
  auto ok = FitEmitter(k);
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_GT(ok->result.points_used, 1000u);
  // A beam narrower than a pixel: almost every pixel below the floor in all exposures.
  BeamKernelImages narrow = Render({0, 0, 0.02, 0.02, 2}, 3, "gaussian");
  auto bad = FitEmitter(narrow);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("usable pixels"), std::string::npos) << bad.message();
}

TEST(CollectorFit, RecoversAGaussianSliceWithCoverage) {
  test::Coverage cov;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> n(0, 1);
  for (int draw = 0; draw < 100; ++draw) {
    CollectorSlice s;
    s.file = "slice.csv";
    for (int i = 0; i < 81; ++i) {
      const double a = -12 + 24.0 * i / 80;
      s.angle_mrad.push_back(a);
      s.sensitivity.push_back(std::exp(-0.5 * (a - 0.4) * (a - 0.4) / 9) + 0.01 * n(rng));
    }
    auto f = FitCollector(s);
    ASSERT_TRUE(f.ok()) << f.message();
    cov.Add(f->result, "offset_mrad", 0.4);
    cov.Add(f->result, "fwhm_mrad", 2.3548200450309493 * 3);
  }
  cov.Expect("collector slice");
}

// A flat-topped (order 5) emitter: the effective kernel has no Gaussian form, so calibrate
// tabulates eta x kappa, the profile's footprint becomes that table, and the table written
// as a kernel grid loads back into a profile that samples it.
TEST(EffectiveKernel, SuperGaussianEmitterIsTabulatedIntoAProfileThatLoads) {
  const TrueBeam b{0.2, -0.1, 2.0, 1.5, 5};
  LabFolder lab;
  lab.dir = "synthetic_lab";
  lab.checksum = std::string(64, '0');
  lab.wavelength_nm = 850;
  lab.beam_kernels.push_back(Render(b, 9, "super_gaussian"));
  std::mt19937_64 rng(2);
  std::normal_distribution<double> n(0, 1);
  const double sc = 4.0;  // collector sigma [mrad]
  for (bool horizontal : {true, false}) {
    CollectorSlice s;
    s.file = horizontal ? "h.csv" : "v.csv";
    s.horizontal = horizontal;
    for (int i = 0; i < 81; ++i) {
      const double a = -16 + 32.0 * i / 80;
      s.angle_mrad.push_back(a);
      s.sensitivity.push_back(std::exp(-0.5 * a * a / (sc * sc)) + 0.003 * n(rng));
    }
    lab.collector_slices.push_back(s);
  }
  auto base = LoadSensorProfile(lt::test::ConfigDir() / "sensors/ouster_os0_128_threshold.yaml");
  ASSERT_TRUE(base.ok()) << base.message();
  auto c = Calibrate(lab, *base, "synthetic", "2026-11-22T00:00:00Z");
  ASSERT_TRUE(c.ok()) << c.message();
  ASSERT_TRUE(c->kernel_table.has_value());
  EXPECT_EQ(c->profile.footprint.kind, physics::FootprintKind::kTable);
  // The table against the true product, computed here, both normalised to their peaks.
  const KernelTable& t = *c->kernel_table;
  auto truth = [&](double h, double v) {
    const double a = (h - b.h0) / b.sh, d = (v - b.v0) / b.sv;
    return std::exp(-0.5 * std::pow(a * a + d * d, b.order / 2)) *
           std::exp(-0.5 * (h * h + v * v) / (sc * sc));
  };
  double truth_peak = 0;
  for (double v : t.v_mrad)
    for (double h : t.h_mrad)
      truth_peak = std::max(truth_peak, truth(h, v));
  double worst = 0;
  for (size_t j = 0; j < t.v_mrad.size(); ++j)
    for (size_t i = 0; i < t.h_mrad.size(); ++i)
      worst = std::max(worst, std::abs(t.value[j * t.h_mrad.size() + i] -
                                       truth(t.h_mrad[i], t.v_mrad[j]) / truth_peak));
  EXPECT_LT(worst, 0.01);  // of the peak
  lt::test::TempDir tmp;
  c->profile.kernel_file = (tmp / "new.kernel.csv").string();
  tmp.Write("new.kernel.csv", KernelGridText(t));
  auto back = ParseSensorProfile(SaveSensorProfile(c->profile), tmp / "new.yaml");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->footprint.kind, physics::FootprintKind::kTable);
  EXPECT_EQ(back->kernel.nh, 65u);
}

}  // namespace
}  // namespace lt::calib
