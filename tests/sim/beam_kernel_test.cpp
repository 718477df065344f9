// Kernel files and the threshold detector's profile keys: loading, sampling tables, and every
// bad input the issue names giving an error that names the file, the key and the problem.
#include "lidartwin/sim/beam_kernel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "lidartwin/physics/beam_footprint.h"

#include "lidartwin/sim/material_library.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt {
namespace {

std::filesystem::path Write(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() / ("lt_kernel_test_" + name);
  std::ofstream(p) << text;
  return p;
}

TEST(BeamKernel, GridLoadsAndSamplingTablesCarryThePower) {
  const auto f = Write("grid.csv", "# v\\h\nv_mrad,-1,0,1\n-1,0,1,0\n0,1,4,1\n1,0,1,0\n");
  auto k = LoadKernelGrid(f);
  ASSERT_TRUE(k.ok()) << k.message();
  EXPECT_EQ(k->h_mrad.size(), 3u);
  EXPECT_EQ(k->v_mrad.size(), 3u);
  for (double gamma : {0.0, 0.5, 1.0}) {
    const KernelSampling s = PrepareKernelSampling(*k, gamma);
    // sum over cells of q_c * weight_c = sum of p_c = 1: the estimator is unbiased.
    double expectation = 0, previous = 0;
    for (size_t c = 0; c < s.cdf.size(); ++c) {
      expectation += (s.cdf[c] - previous) * s.weight[c];
      previous = s.cdf[c];
    }
    EXPECT_NEAR(expectation, 1.0, 1e-6) << gamma;
    EXPECT_FLOAT_EQ(s.cdf.back(), 1.0f);
    EXPECT_NEAR(s.dh_rad, 1e-3, 1e-15);
    EXPECT_NEAR(s.h0_rad, -1.5e-3, 1e-15);
  }
  // gamma = 1: every cell's weight is 1 (sampling the kernel as it is).
  const KernelSampling one = PrepareKernelSampling(*k, 1.0);
  for (size_t c = 0; c < one.weight.size(); ++c) {
    if (k->value[c] > 0) {
      EXPECT_NEAR(one.weight[c], 1.0, 1e-6);
    }
  }
}

// The exact spread and kurtosis of a beam's sampled power (SampledPowerStatistics, from the
// tables) against an independent Monte Carlo of the simulator's own sampler
// (physics::SampleFootprint, std::mt19937 words): 20,000 beams, each the sum of its sub-rays'
// weights, for a kernel with a dim tail sampled at gamma 0.5 and 0 (unequal weights) and at 1
// (equal weights: no spread). The Monte Carlo's relative standard deviation has a standard
// error of about sqrt((2 + kurtosis) / (4 x 20,000)) of itself: held within 3 %; its excess
// kurtosis within 5 standard errors, sqrt(24 / 20,000) plus the share the exact value's own size
// adds.
TEST(BeamKernel, SampledPowerStatisticsMatchTheSamplersMonteCarlo) {
  KernelTable t;
  for (int i = -6; i <= 6; ++i) {
    t.h_mrad.push_back(0.5 * i);
    t.v_mrad.push_back(0.5 * i);
  }
  for (double v : t.v_mrad)
    for (double h : t.h_mrad)
      t.value.push_back(std::exp(-(h * h + 2 * v * v) / 2) + 1e-3 * std::exp(-std::abs(h)));
  for (double gamma : {0.0, 0.5, 1.0}) {
    const KernelSampling s = PrepareKernelSampling(t, gamma);
    physics::BeamFootprint f{};
    f.kind = physics::FootprintKind::kTable;
    f.table = {s.cdf.data(), s.weight.data(), s.nh, s.nv, s.h0_rad, s.v0_rad, s.dh_rad, s.dv_rad};
    for (uint32_t n : {8u, 64u, 128u}) {
      f.sub_rays = n;
      std::mt19937 rng(n);
      const int beams = 20000;
      std::vector<double> powers;
      for (int b = 0; b < beams; ++b) {
        const uint32_t shift = rng();
        double power = 0;
        for (uint32_t k = 0; k < n; ++k)
          power += physics::SampleFootprint(f, k, n, rng(), shift, rng()).weight;
        powers.push_back(power);
      }
      double mean = 0, m2 = 0, m4 = 0;
      for (double x : powers)
        mean += x / beams;
      for (double x : powers) {
        m2 += (x - mean) * (x - mean) / beams;
        m4 += std::pow(x - mean, 4) / beams;
      }
      const double mc = std::sqrt(m2) / mean;
      const SampledPowerNoise noise = SampledPowerStatistics(s, n);
      const double exact = noise.relative_spread;
      // Unbiased: the mean within 4 of its standard errors.
      EXPECT_NEAR(mean, 1.0, 4 * exact / std::sqrt(beams) + 1e-6) << gamma << " " << n;
      if (gamma == 1.0) {
        EXPECT_LT(exact, 1e-6) << n;
        EXPECT_LT(mc, 1e-5) << n;
      } else {
        EXPECT_GT(exact, 1e-3) << gamma << " " << n;
        EXPECT_NEAR(mc / exact, 1.0, 0.03) << gamma << " " << n << ": " << mc << " " << exact;
        const double kurtosis = m4 / (m2 * m2) - 3;
        EXPECT_NEAR(kurtosis, noise.excess_kurtosis,
                    5 * std::sqrt((24 + 4 * std::abs(noise.excess_kurtosis)) / beams) +
                        0.1 * std::abs(noise.excess_kurtosis))
            << gamma << " " << n;
        std::printf(
            "[sampling] gamma %.1f, %u sub-rays: spread %.4f (MC %.4f), excess kurtosis "
            "%.3f (MC %.3f)\n",
            gamma, n, exact, mc, noise.excess_kurtosis, kurtosis);
      }
    }
  }
}

TEST(BeamKernel, SeparableSlicesMultiply) {
  const auto h = Write("h.csv", "-1,1\n0,2\n1,1\n");
  const auto v = Write("v.csv", "-2,0.5\n0,1\n2,0.5\n");
  auto k = LoadSeparableKernel(h, v);
  ASSERT_TRUE(k.ok()) << k.message();
  // Relative to the peak (the scale of a kernel is arbitrary): H / 2 times V / 1.
  EXPECT_DOUBLE_EQ(k->value[1 * 3 + 1], 1.0);
  EXPECT_DOUBLE_EQ(k->value[0 * 3 + 0], 0.25);
  // Slices near the limits of double neither underflow nor overflow in the product.
  for (const char* scale : {"e-200", "e200"}) {
    const auto tiny =
        Write("tiny.csv", std::string("-1,1") + scale + "\n0,2" + scale + "\n1,1" + scale + "\n");
    auto p = LoadSeparableKernel(tiny, tiny);
    ASSERT_TRUE(p.ok()) << p.message();
    EXPECT_DOUBLE_EQ(p->value[4], 1.0);
    const KernelSampling s = PrepareKernelSampling(*p, 0.5);
    EXPECT_FLOAT_EQ(s.cdf.back(), 1.0f);
    for (float w : s.weight)
      EXPECT_TRUE(std::isfinite(w));
  }
  // A grid of 1e308s (their sum overflows) still gives finite sampling tables.
  auto huge = LoadKernelGrid(Write("huge.csv",
                                   "x,-1,0,1\n-1,1e308,1e308,1e308\n0,1e308,1e308,"
                                   "1e308\n1,1e308,1e308,1e308\n"));
  ASSERT_TRUE(huge.ok()) << huge.message();
  for (float w : PrepareKernelSampling(*huge, 0.5).weight)
    EXPECT_NEAR(w, 1.0f, 1e-5f);
}

TEST(BeamKernel, BadFilesAreClearErrors) {
  struct Case {
    const char* name;
    const char* text;
    const char* expect;
  };
  const Case cases[] = {
      {"nan.csv", "x,-1,0\n0,nan,1\n1,1,1\n", "not finite"},
      {"neg.csv", "x,-1,0\n0,-1,1\n1,1,1\n", "negative"},
      {"zero.csv", "x,-1,0\n0,0,0\n1,0,0\n", "all values are zero"},
      {"dims.csv", "x,-1,0\n0,1,1\n1,1\n", "expected 3 columns"},
      {"uneven.csv", "x,-1,0,5\n0,1,1,1\n1,1,1,1\n", "evenly spaced"},
      {"word.csv", "x,-1,0\n0,1,abc\n1,1,1\n", "'abc' is not a number"},
      {"one.csv", "x,-1,0\n0,1,1\n", "at least 2"},
      {"empty.csv", "# nothing\n", "no data rows"},
      {"wide.csv", "x,-600,0\n0,1,1\n1,1,1\n", "beyond +-500 mrad"},
      {"binary.csv", "x,-1,0\n0,1,\x01\x02\xff\n1,1,1\n", "'???' is not a number"},
  };
  for (const Case& c : cases) {
    auto k = LoadKernelGrid(Write(c.name, c.text));
    ASSERT_FALSE(k.ok()) << c.name;
    EXPECT_NE(k.message().find(c.expect), std::string::npos) << c.name << ": " << k.message();
    EXPECT_NE(k.message().find(c.name), std::string::npos) << k.message();
  }
  auto dir = LoadKernelGrid(std::filesystem::temp_directory_path());
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.message().find("is a directory"), std::string::npos) << dir.message();
  // A UTF-8 byte-order mark is skipped.
  EXPECT_TRUE(LoadSeparableKernel(Write("bom.csv", "\xEF\xBB\xBF-1,1\n0,2\n1,1\n"),
                                  Write("plain.csv", "-1,1\n0,2\n1,1\n"))
                  .ok());
  EXPECT_FALSE(LoadKernelGrid("/nonexistent/kernel.csv").ok());
}

const char* kThresholdProfile = R"(name: t
wavelength_nm: 905
max_range_m: 100
scan: {type: spinning, channels: 1, elevation_top_deg: 0, elevation_bottom_deg: 0,
       columns_per_revolution: 4, rotation_rate_hz: 10}
beam: {footprint: gaussian, divergence_h_fwhm_mrad: 2, divergence_v_fwhm_mrad: 1, sub_rays: 8}
detector: {type: threshold, peak_power_w: 20, aperture_diameter_mm: 20, pulse_width_ns: 5,
           threshold_nw: 100, max_echoes: 3, return_mode: dual}
)";

TEST(ThresholdProfile, LoadsAndRejectsBadValuesNamingTheKey) {
  // A valid h slice beside the profile, so that a missing v slice is the error.
  const auto h_slice = Write("h.csv", "-1,1\n0,2\n1,1\n");
  auto ok = ParseSensorProfile(kThresholdProfile, "t.yaml");
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(ok->EchoesPerBeam(), 3u);
  EXPECT_NEAR(ok->Threshold().pulse_sigma_m, 0.5 * 299792458.0 * 5e-9 / 2.3548200450309493, 1e-9);
  struct Case {
    const char* from;
    const char* to;
    const char* key;
  };
  const Case cases[] = {
      {"threshold_nw: 100", "threshold_nw: 0", "threshold_nw"},
      {"threshold_nw: 100", "threshold_nw: -3", "threshold_nw"},
      {"pulse_width_ns: 5", "pulse_width_ns: 0", "pulse_width_ns"},
      {"max_echoes: 3", "max_echoes: 0", "max_echoes"},
      {"max_echoes: 3", "max_echoes: 9", "max_echoes"},
      {"max_echoes: 3", "max_echoes: 1", "max_echoes"},  // dual needs 2
      {"return_mode: dual", "return_mode: loudest", "return_mode"},
      {"divergence_h_fwhm_mrad: 2", "divergence_h_fwhm_mrad: 0", "divergence_h_fwhm_mrad"},
      {"footprint: gaussian", "footprint: square", "footprint"},
      {"sub_rays: 8", "sub_rays: 129", "sub_rays"},
      {"sub_rays: 8", "sub_rays: 64, kernel_file: x.csv", "kernel_file"},
      {"pulse_width_ns: 5", "pulse_width_ns: 1e-300", "pulse_width_ns"},
      {"threshold_nw: 100", "threshold_nw: 1e-12", "threshold_nw"},
      {"threshold_nw: 100", "threshold_nw: 100, walk_reference_power_nw: 1e300",
       "walk_reference_power_nw"},
      {"threshold_nw: 100", "threshold_nw: 100, range_resolution_mm: 1e-9", "range_resolution_mm"},
      {"columns_per_revolution: 4", "columns_per_revolution: 70000000", "beams per frame"},
      {"divergence_h_fwhm_mrad: 2, divergence_v_fwhm_mrad: 1",
       "spots: [{h_offset_mrad: 3000, divergence_h_fwhm_mrad: 2, divergence_v_fwhm_mrad: 1}]",
       "h_offset_mrad"},
      {"footprint: gaussian, divergence_h_fwhm_mrad: 2, divergence_v_fwhm_mrad: 1",
       "footprint: table, kernel_h_file: lt_kernel_test_h.csv, kernel_v_file: missing_v.csv",
       "kernel_v_file"},
  };
  for (const Case& c : cases) {
    std::string text = kThresholdProfile;
    text.replace(text.find(c.from), std::string(c.from).size(), c.to);
    auto p = ParseSensorProfile(text, h_slice.parent_path() / "t.yaml");
    ASSERT_FALSE(p.ok()) << c.to;
    EXPECT_NE(p.message().find(c.key), std::string::npos) << c.to << ": " << p.message();
    EXPECT_NE(p.message().find("t.yaml"), std::string::npos) << p.message();
  }
  // 64 sub-rays x 4 surfaces exceeds a beam's 128 contributions.
  std::string many = kThresholdProfile;
  many.replace(many.find("sub_rays: 8"), 11, "sub_rays: 64");
  auto p = ParseSensorProfile(many, "t.yaml");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.message().find("128 contributions"), std::string::npos) << p.message();
}

TEST(MaterialResponse, OutOfRangeValuesAreErrorsNamingTheKey) {
  struct Case {
    const char* line;
    const char* key;
  };
  const Case cases[] = {{"transmittance: 1.5", "transmittance"},
                        {"coverage: 0", "coverage"},
                        {"specular_albedo: -0.1", "specular_albedo"},
                        {"retroreflective_peak_sr: -5", "retroreflective_peak_sr"},
                        {"retroreflective_peak_sr: 100\n    retroreflective_max_entrance_deg: 120",
                         "retroreflective_max_entrance_deg"}};
  for (const Case& c : cases) {
    const auto f = Write("lib.yaml", std::string("materials:\n  - name: m\n    reflectance: 0.5\n"
                                                 "    source: test\n    ") +
                                         c.line + "\n");
    auto lib = LoadMaterialLibrary(f);
    ASSERT_FALSE(lib.ok()) << c.line;
    EXPECT_NE(lib.message().find(c.key), std::string::npos) << c.line << ": " << lib.message();
  }
}

}  // namespace
}  // namespace lt
