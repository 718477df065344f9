// The waveform detector on the CUDA backend against the CPU reference (label gpu): the photon
// draws identical, the voltage records within float rounding sample by sample, and the frames
// of the lab scene echo for echo.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "internal/waveform_setup.h"
#include "lidartwin/physics/photon_counting.h"
#include "lidartwin/physics/waveform.h"
#include "lidartwin/physics/waveform_ranging.h"
#include "lidartwin/sim/cuda_backend.h"
#include "sim/echo_pairs.h"
#include "sim/require_gpu.h"
#include "test_support.h"

namespace lt {
namespace {

// The larger of a running maximum and a new difference, a NaN counting as infinitely large
// (std::max would drop it and let a NaN record pass).
double Worse(double worst, double d) {
  return std::isnan(d) ? HUGE_VAL : std::max(worst, d);
}

SensorProfile CubeWaveform() {
  auto p = LoadSensorProfile(test::ConfigDir() / "sensors/blickfeld_cube1.yaml");
  EXPECT_TRUE(p.ok()) << p.message();
  return p.value();
}

TEST(CudaWaveform, PhotonDrawsAreIdenticalToTheCpu) {
  LT_REQUIRE_GPU();
  // Means across inversion (< 10) and rejection (>= 10), each on many samples.
  std::vector<double> means;
  for (uint32_t i = 0; i < 65536; ++i)
    means.push_back(std::pow(10.0, -3 + 7.0 * (i % 997) / 996));
  auto gpu = CudaPhotonCounts(means, 1234);
  ASSERT_TRUE(gpu.ok()) << gpu.message();
  const physics::RandomKey key{1234, 0, 0, 0, 0};
  size_t differ = 0;
  for (uint32_t i = 0; i < means.size(); ++i)
    differ += (*gpu)[i] != physics::PhotonCount(means[i], key, i, physics::PhotonWords(key, i));
  EXPECT_EQ(differ, 0u);
}

// Thermal noise's normals from the same words on both backends: the GPU's approximate
// logarithm, square root, sine and cosine (physics::ThermalNormalPair) within 2.5e-4 of the
// CPU's libm normals, absolutely (2.17e-4 measured on an H100; the logarithm's 2^-22.6 is the
// most of it, where u nears 1 and -2 ln u nears 0), and within 1e-5 relatively where |z| > 1
// (the tails, which set the false-alarm rate of the thresholds). First words across their whole
// range: the extremes, and 2^24 pairs with w1 stepping by 256 through all 2^32 values and w2
// from a generator.
TEST(CudaWaveform, ThermalNormalsMatchTheCpu) {
  LT_REQUIRE_GPU();
  std::vector<uint32_t> words;
  for (uint32_t w1 : {0u, 1u, 2u, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu})
    for (uint32_t w2 : {0u, 1u, 0x3fffffffu, 0x40000000u, 0x7fffffffu, 0x80000000u, 0xbfffffffu,
                        0xc0000000u, 0xffffffffu}) {
      words.push_back(w1);
      words.push_back(w2);
    }
  physics::ThermalSegment angles(5, 6, 7, 8, 1.0f);
  for (uint64_t w1 = 0; w1 < (uint64_t{1} << 32); w1 += 256) {
    words.push_back(static_cast<uint32_t>(w1));
    words.push_back(angles.Next());
  }
  auto gpu = CudaThermalNormals(words);
  ASSERT_TRUE(gpu.ok()) << gpu.message();
  double worst = 0, worst_tail = 0;
  for (size_t k = 0; k < words.size(); k += 2) {
    float z1, z2;
    physics::StandardNormalPair<float>(words[k], words[k + 1], z1, z2);
    for (auto [cpu, g] : {std::pair{z1, (*gpu)[k]}, std::pair{z2, (*gpu)[k + 1]}}) {
      const double d = std::abs(double(cpu) - g);
      worst = Worse(worst, d);
      if (std::abs(cpu) > 1) worst_tail = Worse(worst_tail, d / std::abs(cpu));
    }
  }
  std::printf(
      "[parity] thermal normals: %zu pairs, max |z_cpu - z_gpu| %.3g, %.3g relative "
      "beyond 1 sigma\n",
      words.size() / 2, worst, worst_tail);
  EXPECT_LE(worst, 2.5e-4);
  EXPECT_LE(worst_tail, 1e-5);
}

// The same beams' records on both: the power, photon means and counts are the same draws; the
// FFTs round differently (the GPU fuses multiply-adds), by a few float ulps of the record's
// largest value per stage: 2 log2(N) stages x 4 ulps (4.8e-7) of the peak, 1e-5 of it in all.
// A count that differs (a mean within an ulp of a draw's boundary, about 1e-7 a sample) would
// move a sample by a photon's response, far outside that; none is expected in 0.5 M draws.
// Both GPU paths are held to it: the circuit as sections (one beam a warp), and as transforms
// (two beams a warp), which the simulator takes for circuits without sections.
// photon_passes: how many beams the sections' path should run with its SiPM and section passes
// over the bins with photons alone (SparsePasses), or -1 unchecked.
// min_warp_walks, min_long_walks: how many of those at least should have had a crowded block
// walked by the whole warp (WarpWalkBlock), and one of more than 32 bins with photons (two
// rounds of the lanes), or -1 unchecked.
void ExpectSameRecordsOnOnePath(const SensorProfile& p,
                                const std::vector<physics::SignalContribution>& c, double sun_w,
                                const std::string& what, uint32_t beams, bool transforms,
                                int64_t photon_passes, int64_t min_warp_walks,
                                int64_t min_long_walks = -1) {
  auto gpu = CudaWaveforms(p, c, sun_w, beams, 77, 0, true, transforms);
  ASSERT_TRUE(gpu.ok()) << gpu.message();
  if (!transforms) {
    if (photon_passes >= 0) {
      EXPECT_EQ(gpu->photon_pass_beams, uint64_t(photon_passes)) << what;
    }
    if (min_warp_walks >= 0) {
      EXPECT_GE(gpu->warp_walk_beams, uint64_t(min_warp_walks)) << what;
    }
    if (min_long_walks >= 0) {
      EXPECT_GE(gpu->long_walk_beams, uint64_t(min_long_walks)) << what;
    }
  }
  const WaveformTables t = MakeWaveformTables(p);
  const physics::WaveformChain w = MakeWaveformChain(p, t);
  const uint32_t n = w.samples;
  std::vector<physics::ComplexF> x(n);
  double worst = 0;
  size_t beams_off = 0;
  for (uint32_t b = 0; b < beams; ++b) {
    physics::SimulateWaveform(w, c.data(), static_cast<uint32_t>(c.size()), sun_w,
                              physics::RandomKey{77, 0, b, 0, 0}, x.data());
    double peak = 0, diff = 0;
    for (uint32_t i = 0; i < n; ++i) {
      peak = std::max(peak, std::abs(double(x[i].re) - w.baseline_v));
      diff = Worse(diff, std::abs(double(x[i].re) - gpu->volts[size_t{b} * n + i]));
    }
    worst = Worse(worst, diff / peak);
    beams_off += !(diff <= 1e-5 * peak);
  }
  std::printf(
      "[parity] %s: %u beams of %u samples, max |v_cpu - v_gpu| %.3g of the peak (passes over "
      "the photons %u, crowded blocks walked by the warp %u, of more than 32 bins %u)\n",
      what.c_str(), beams, n, worst, gpu->photon_pass_beams, gpu->warp_walk_beams,
      gpu->long_walk_beams);
  EXPECT_EQ(beams_off, 0u) << what;
}
void ExpectSameRecords(const SensorProfile& p, const std::vector<physics::SignalContribution>& c,
                       double sun_w, const std::string& what, uint32_t beams = 256,
                       int64_t photon_passes = -1, int64_t min_warp_walks = -1) {
  ASSERT_GT(MakeWaveformChain(p, nullptr, nullptr).sections.count, 0u) << what;
  ExpectSameRecordsOnOnePath(p, c, sun_w, what + ", sections", beams, false, photon_passes,
                             min_warp_walks);
  ExpectSameRecordsOnOnePath(p, c, sun_w, what + ", transforms", beams, true, -1, -1);
}

// The GPU's ranging of given records against the CPU's (physics::MeasureBackground and
// WaveformEchoes on the same voltages), both ways of building the mask words (ballots of the
// hot blocks, every lane its own), at 1024, 2048 and 4096 samples. The records are built for
// the edge cases of the runs' walk a run a lane (WarpRunEchoes): 40 runs from the target
// window's first sample on (more than 32, two rounds of lanes; more than the 16 echoes kept, the
// nearest dropped), runs across the lanes' blocks, one block-long, one to the record's end,
// single samples and runs one sample apart, none, and every sample after the window above the
// threshold (more hot blocks than the ballots take); each with the reporting window open and
// narrowed to drop the first and the last runs. Samples stay millivolts from the threshold, so
// the GPU's float pretrigger sums (1e-9 V on the threshold) decide every sample alike: the
// echoes must agree in number, order and index, ranges within 1e-5 m, heights within 1e-6.
TEST(CudaWaveform, RangingOfGivenRecordsMatchesTheCpu) {
  LT_REQUIRE_GPU();
  size_t compared = 0;
  for (uint32_t n : {1024u, 2048u, 4096u}) {
    SensorProfile p = CubeWaveform();
    p.detector.waveform.samples = n;
    const physics::WaveformChain w = MakeWaveformChain(p, nullptr, nullptr);
    const uint32_t begin = physics::TargetWindowStart(w), L = n / 32;
    const uint32_t internal = static_cast<uint32_t>(
        (physics::EmissionTime(w) + w.internal_delay_s) / w.dt_s + 0.3);  // its peak's bin
    ASSERT_LT(internal + 5, begin);
    std::vector<float> volts;
    uint32_t records = 0;
    // A record: the baseline with a ripple of +-0.3 mV (the pretrigger's rms, 5 sigma below the
    // 5 mV threshold), the internal reflection's 50 mV pulse, and `runs` above it [V].
    auto add = [&](auto runs) {
      for (uint32_t i = 0; i < n; ++i) {
        const double d = double(i) - internal - 0.3;
        const double v = w.baseline_v + 1e-4 * (int(i % 7) - 3) + 0.05 * std::exp(-d * d / 6) +
                         (i >= begin ? runs(i) : 0.0);
        volts.push_back(static_cast<float>(v));
      }
      ++records;
    };
    // A run's samples: 12 mV at its edges, rising to 30 mV at its middle.
    auto run = [](uint32_t i, uint32_t first, uint32_t last) {
      if (i < first || i > last) return 0.0;
      const double mid = 0.5 * (first + last), half = 0.5 * (last - first) + 1;
      return 0.012 + 0.018 * (1 - std::abs(i - mid) / half);
    };
    add([&](uint32_t i) {  // 40 runs of 3 samples, 5 apart, the first at the window's start
      const uint32_t k = (i - begin) / 8;
      return k < 40 ? run(i, begin + 8 * k, begin + 8 * k + 2) : 0.0;
    });
    add([&](uint32_t i) {  // across blocks, one block-long, one to the end
      double v = 0;
      for (uint32_t b = begin / L + 2; b < begin / L + 8; b += 2)
        v += run(i, b * L - 2, b * L + 2);
      v += run(i, (begin / L + 9) * L + 3, (begin / L + 10) * L + 3);
      return v + run(i, n - 7, n - 1);
    });
    add([&](uint32_t i) {  // single samples, and runs one sample apart
      const uint32_t o = i - begin;
      if (o % 50 == 10 && o < 600) return 0.02;
      if (o >= 700 && o < 740 && o % 4 != 3) return 0.015 + 0.0001 * o;
      return 0.0;
    });
    add([](uint32_t) { return 0.0; });                       // nothing after the window
    add([](uint32_t i) { return 0.02 + 1e-5 * (i % 11); });  // all of it above
    ASSERT_EQ(volts.size(), size_t{n} * records);
    std::vector<physics::ComplexF> x(n);
    // Windows: open, and from just past the first echo's range to just before the last's.
    std::vector<std::pair<double, double>> windows = {{0.0, 1e9}};
    {
      for (uint32_t i = 0; i < n; ++i)
        x[i] = {volts[i], 0.0f};
      const physics::WaveformBackground g = physics::MeasureBackground(w, x.data());
      const double first = physics::WaveformRange(w, g, (begin + 1) * w.dt_s);
      const double last = physics::WaveformRange(w, g, (begin + 8 * 37 + 1) * w.dt_s);
      windows.push_back({first + 0.1, last - 0.1});
    }
    for (const auto& [lo, hi] : windows) {
      for (bool hot : {true, false}) {
        auto gpu = CudaRangeRecords(p, volts, records, lo, hi, hot);
        ASSERT_TRUE(gpu.ok()) << gpu.message();
        for (uint32_t r = 0; r < records; ++r) {
          for (uint32_t i = 0; i < n; ++i)
            x[i] = {volts[size_t{r} * n + i], 0.0f};
          const physics::WaveformBackground g = physics::MeasureBackground(w, x.data());
          physics::Echo cpu[physics::kMaxEchoesDetected];
          uint32_t detected = 0;
          const uint32_t count = physics::WaveformEchoes(w, g, x.data(), lo, hi, cpu, &detected);
          const std::vector<physics::Echo>& got = (*gpu)[r];
          const std::string what = std::to_string(n) + " samples, record " + std::to_string(r) +
                                   (hot ? ", hot blocks" : ", every lane") + ", window " +
                                   std::to_string(lo) + ".." + std::to_string(hi);
          ASSERT_EQ(got.size(), count) << what;
          for (uint32_t e = 0; e < count; ++e) {
            EXPECT_EQ(got[e].index, cpu[e].index) << what << " echo " << e;
            EXPECT_NEAR(got[e].range_m, cpu[e].range_m, 1e-5) << what << " echo " << e;
            EXPECT_NEAR(got[e].start_m, cpu[e].start_m, 1e-5) << what << " echo " << e;
            EXPECT_NEAR(got[e].end_m, cpu[e].end_m, 1e-5) << what << " echo " << e;
            EXPECT_NEAR(got[e].peak_power_w, cpu[e].peak_power_w, 1e-6 * cpu[e].peak_power_w)
                << what << " echo " << e;
            ++compared;
          }
          if (r == 0 && lo == 0.0) {
            EXPECT_EQ(detected, 40u) << what;  // the nearest 24 dropped
            EXPECT_EQ(count, physics::kMaxEchoesDetected) << what;
          }
          if (r == 3) {
            EXPECT_EQ(count, 0u) << what;
          }
        }
      }
    }
  }
  std::printf("[parity] ranging of given records: %zu echoes compared\n", compared);
  EXPECT_GT(compared, 200u);
}

TEST(CudaWaveform, RecordsMatchTheCpuSampleBySample) {
  LT_REQUIRE_GPU();
  SensorProfile p = CubeWaveform();
  // A 10 % plate at 20 m and a wall at 35 m behind part of the footprint, in sunlight.
  const std::vector<physics::SignalContribution> c = {
      {20.0f, 2.2e-9f, 0, 1e-10f}, {20.01f, 2.1e-9f, 0, 1e-10f}, {35.0f, 3e-10f, 1, 5e-11f}};
  ExpectSameRecords(p, c, 2.5e-10, "cube1 waveform, shot noise", 256, -1, 200);
  p.detector.waveform.shot_noise = false;
  p.detector.waveform.thermal_noise_mv = 0;
  ExpectSameRecords(p, c, 2.5e-10, "cube1 waveform, noise-free");
  // The SiPM and section passes over the bins with photons alone (SparsePasses, gap_powers.h),
  // every beam: a dim background, 0.034 photons a bin, at 2048 and 1024 samples; and the dense
  // passes, every beam, in full sun (2.3 photons a bin, every bin drawn on its own) and for
  // records under 1024 samples.
  p = CubeWaveform();
  ExpectSameRecords(p, c, 3e-11, "cube1 waveform, dim sunlight (passes over the photons)", 256,
                    256);
  // A slanted wall at 8 m: 24 sub-rays' pulses 7.5 cm apart fill some 30 bins with photons, in
  // one or two lanes' blocks of 64: every beam's passes stay over the photons, and where more
  // than kWarpWalkBins of them fall in one block (123 of these 256 beams on an H100) the block
  // is walked by the whole warp (WarpWalkBlock). (The plate above at 20 m crowds a block too.)
  {
    std::vector<physics::SignalContribution> wall;
    for (int k = 0; k < 24; ++k)
      wall.push_back({8.0f + 0.075f * k, 3e-10f, 0, 1e-11f});
    ExpectSameRecords(p, wall, 3e-11, "cube1 waveform, a slanted wall (crowded blocks)", 256, 256,
                      64);
    // At 4096 samples (blocks of 128 bins) a steeper wall, 48 pulses a bin apart, crowds a
    // block with more than 32 bins with photons: two rounds of the lanes' walk.
    SensorProfile q = CubeWaveform();
    q.detector.waveform.samples = 4096;
    wall.clear();
    for (int k = 0; k < 48; ++k)
      wall.push_back({12.0f + 0.15f * k, 3e-10f, 0, 1e-11f});
    ExpectSameRecordsOnOnePath(q, wall, 3e-11, "4096 samples, a steep wall (long crowded blocks)",
                               256, false, 256, 64, 64);
  }
  // More beams than the GPU's warps hold at once (8192: three rounds of 3,564 warps on an H100),
  // so that the persistent warps' later beams, in the shared memory of their earlier ones, are
  // compared sample by sample too.
  ExpectSameRecordsOnOnePath(p, c, 3e-11, "cube1 waveform, 8192 beams (the warps' later rounds)",
                             8192, false, 8192, -1);
  p.detector.waveform.samples = 1024;
  ExpectSameRecords(p, c, 3e-11, "1024 samples, dim sunlight (passes over the photons)", 256, 256);
  p.detector.waveform.samples = 512;
  ExpectSameRecords(p, c, 3e-11, "512 samples, dim sunlight (dense passes)", 256, 0);
  p = CubeWaveform();
  ExpectSameRecords(p, c, 2e-9, "cube1 waveform, full sun (every bin drawn)", 256, 0);
  p.detector.waveform.samples = 4096;
  p.detector.waveform.sipm_cells = 0;
  ExpectSameRecords(p, c, 0, "4096 samples, no saturation, no sun");
  // Each transform path: registers at 1024 samples with an odd count of beams (the last warp's
  // second beam missing), shared memory at 256 and 8192.
  p = CubeWaveform();
  p.detector.waveform.samples = 1024;
  ExpectSameRecords(p, c, 2.5e-10, "1024 samples, 255 beams", 255);
  p.detector.waveform.samples = 8192;
  ExpectSameRecords(p, c, 2.5e-10, "8192 samples");
  p.detector.waveform.samples = 256;
  ExpectSameRecords(p, {{10.0f, 2.2e-9f, 0, 1e-10f}}, 2.5e-10, "256 samples, a plate at 10 m");
  // Each count of sections (1: no SiPM pulse; 3: two poles, a zero and the pulse; 4: three poles
  // and the pulse), and a slow section (3.3 MHz, a = 0.98) whose response wraps round the record
  // from a target in its last samples (beyond the reported range: 1024 samples reach 130 m).
  struct Circuit {
    std::vector<double> poles, zeros;
    double pulse_ns;
    uint32_t samples;
    std::vector<physics::SignalContribution> c;
  };
  for (const Circuit& k :
       {Circuit{{150}, {}, 0, 2048, c}, Circuit{{150, 400}, {900}, 3, 2048, c},
        Circuit{{80, 250, 600}, {}, 3, 2048, c},
        Circuit{{3.3}, {}, 1, 1024, {{20.0f, 2.2e-9f, 0, 1e-10f}, {140.8f, 2.2e-9f, 0, 1e-10f}}}}) {
    p = CubeWaveform();
    p.detector.waveform.circuit_poles_mhz = k.poles;
    p.detector.waveform.circuit_zeros_mhz = k.zeros;
    p.detector.waveform.sipm_pulse_ns = k.pulse_ns;
    p.detector.waveform.samples = k.samples;
    if (k.samples < 2048) p.max_range_m = 130;
    ASSERT_TRUE(p.Validate().ok()) << p.Validate().message();
    const uint32_t sections = MakeWaveformChain(p, nullptr, nullptr).sections.count;
    ExpectSameRecords(p, k.c, 2.5e-10,
                      std::to_string(sections) + " sections, first pole " +
                          std::to_string(k.poles[0]) + " MHz, " + std::to_string(k.samples) +
                          " samples");
  }
  // The shortest records: four samples a lane (the noise drawn in the circuit's second pass)
  // and two (in a pass of its own).
  p = CubeWaveform();
  p.detector.waveform.pretrigger_samples = 16;
  for (uint32_t samples : {128u, 64u}) {
    p.detector.waveform.samples = samples;
    ExpectSameRecords(p, {{3.0f, 2.2e-9f, 0, 1e-10f}}, 2.5e-10,
                      std::to_string(samples) + " samples, a plate at 3 m");
  }
}

// Frames of the lab scene, echo for echo: ranges and intensities as the records allow (a peak
// fit moved by 1e-5 of the peak moves less than 1e-4 m; intensities are whole counts, one count
// apart where a height rounds differently), and a beam whose echo sits at the threshold may
// have it on one side only (1 in 1,000 beams). Where two samples at an echo's top are equal to
// the records' rounding, the two backends may fit the peak about different samples: the range
// then moves by up to a few mm (the fit's own error, waveform_test.cpp); 1 in 1,000 echoes.
// Likewise a beam with two echoes as high as each other to that rounding, beyond the K the
// return mode keeps, may keep one on each side (the Cube 1 reports its 2 strongest): those
// pairs lie apart in range with the same intensity, 1 in 1,000 echoes.
void ExpectWaveformParity(const Scene& scene, const SensorProfile& profile, uint64_t seed) {
  const Trajectory traj = Trajectory::Static();
  // The records of a few beams come back too (`simulate --waveforms`), and match sample for
  // sample as the records above do.
  SimulationOptions options{seed, 0};
  const uint32_t beams = profile.BeamCount();
  options.waveform_beams = {0, 1, beams / 3, beams / 2, beams - 1};
  auto cpu = CreateSimulator(Backend::kCpu, scene, profile, traj, options);
  auto gpu = CreateSimulator(Backend::kCuda, scene, profile, traj, options);
  ASSERT_TRUE(cpu.ok() && gpu.ok()) << gpu.message();
  const Frame a = (*cpu)->Simulate(0).value();
  auto b = (*gpu)->Simulate(0);
  ASSERT_TRUE(b.ok()) << b.message();
  const test::EchoPairs echo_pairs = test::PairEchoes(a, *b);
  const size_t matched = echo_pairs.pairs.size(), missing = echo_pairs.only_a;
  size_t labels = 0, refit = 0, order = 0, swapped = 0;
  double max_range = 0, max_intensity = 0;
  // Whether echo e of frame f is its beam's weakest (the last the strongest K kept).
  auto weakest = [](const Frame& f, size_t e) {
    for (size_t o = 0; o < f.size(); ++o)
      if (f.beam_id[o] == f.beam_id[e] && f.intensity[o] < f.intensity[e]) return false;
    return true;
  };
  for (const auto& [k, g] : echo_pairs.pairs) {
    const double dr = std::abs(a.range_m[k] - b->range_m[g]);
    if (dr > 5e-3) {  // which echoes the beam has on each side
      std::printf("[mismatch] beam %u:", a.beam_id[k]);
      for (size_t e = 0; e < a.size(); ++e)
        if (a.beam_id[e] == a.beam_id[k])
          std::printf(" cpu %.4f m %.0f", a.range_m[e], double(a.intensity[e]));
      for (size_t e = 0; e < b->size(); ++e)
        if (b->beam_id[e] == a.beam_id[k])
          std::printf(" gpu %.4f m %.0f", b->range_m[e], double(b->intensity[e]));
      std::printf("\n");
      // Two echoes of a beam as high as each other to the records' rounding, beyond the K the
      // return mode keeps: each side keeps one as its weakest, and they pair across the beam
      // (their labels may differ: two objects).
      if (std::abs(a.intensity[k] - b->intensity[g]) <= 1 && weakest(a, k) && weakest(*b, g)) {
        ++swapped;
        continue;
      }
    }
    labels += a.instance_id[k] != b->instance_id[g];
    // A return's kind follows its place and strength: it differs where the order does.
    order += a.return_index[k] != b->return_index[g] || a.return_type[k] != b->return_type[g];
    refit += dr > 1e-4;
    max_range = std::max(max_range, dr);
    max_intensity = std::max(max_intensity, double(std::abs(a.intensity[k] - b->intensity[g])));
  }
  const size_t extra = echo_pairs.only_b;
  ASSERT_EQ(a.waveform_beams, b->waveform_beams);
  ASSERT_EQ(a.waveform_volts.size(), b->waveform_volts.size());
  double worst = 0;
  for (size_t r = 0; r < a.waveform_beams.size(); ++r) {
    double peak = 0, diff = 0;
    for (uint32_t i = 0; i < a.waveform_samples; ++i) {
      const size_t k = r * a.waveform_samples + i;
      peak = std::max(
          peak, std::abs(double(a.waveform_volts[k]) - a.waveform_volts[r * a.waveform_samples]));
      diff = Worse(diff, std::abs(double(a.waveform_volts[k]) - b->waveform_volts[k]));
    }
    worst = Worse(worst, diff / std::max(peak, 1e-3));
  }
  std::printf("[parity] %s: %zu beams' records, max |v_cpu - v_gpu| %.3g of the peak\n",
              profile.name.c_str(), a.waveform_beams.size(), worst);
  EXPECT_LE(worst, 1e-5);
  std::printf(
      "[parity] %s waveform: %zu echoes on the CPU, %zu on CUDA, %zu matched, %zu only CPU, "
      "%zu only CUDA, %zu labels differ; max |range diff| %.3g m (%zu beyond 1e-4 m), intensity "
      "%.3g counts\n",
      profile.name.c_str(), a.size(), b->size(), matched, missing, extra, labels, max_range, refit,
      max_intensity);
  ASSERT_GT(matched, 100u);
  EXPECT_LE(missing + extra, std::max<size_t>(1, profile.BeamCount() / 1000));
  // A return's index differs only in a beam where an echo shows on one side alone, or where
  // two echoes' heights are equal to the records' rounding (the strongest-first order swaps).
  EXPECT_LE(order, missing + extra + std::max<size_t>(1, matched / 1000));
  EXPECT_EQ(labels, 0u);
  EXPECT_LE(refit, std::max<size_t>(1, matched / 1000));
  EXPECT_LE(swapped, std::max<size_t>(1, matched / 1000));
  EXPECT_LE(max_range, 5e-3);
  EXPECT_LE(max_intensity, 1.0);
  auto again = (*gpu)->Simulate(0);
  EXPECT_EQ(again->range_m, b->range_m);
  EXPECT_EQ(again->intensity, b->intensity);
}

TEST(CudaWaveform, DetectorMatchesCpuOnTheLabScene) {
  LT_REQUIRE_GPU();
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  ASSERT_TRUE(scene.ok()) << scene.message();
  ExpectWaveformParity(*scene, CubeWaveform(), 3);
  Scene sunny = scene.value();
  sunny.description.sunlight = 1.0;
  SensorProfile cube = CubeWaveform();
  cube.name += " (sunlight)";
  ExpectWaveformParity(sunny, cube, 4);
  // Rain, snow and fog: their particles in the records (the slot stride the warps gather by)
  // and the fog's slabs in the room the sub-rays leave.
  Scene wet = scene.value();
  wet.description.weather.rain = RainDescription{.rate_mm_h = 25};
  wet.description.weather.snow = SnowDescription{.rate_mm_h = 1};
  wet.description.weather.fog = FogDescription{.visibility_m = 50};
  SensorProfile rainy = CubeWaveform();
  rainy.name += " (rain 25 mm/h, snow 1 mm/h, fog 50 m)";
  ExpectWaveformParity(wet, rainy, 8);
  // A dirty window that scatters: its echo adds to the internal reflection at its delay.
  Scene dirty = scene.value();
  dirty.description.weather.cover =
      CoverDescription{{{{-30, 30}, {-90, 90}, 0.7, 5e-7}, {{30, 60}, {-90, 90}, 0.9, 0}}};
  SensorProfile covered = CubeWaveform();
  covered.name += " (a dirty cover)";
  ExpectWaveformParity(dirty, covered, 9);
  // A measured front end (a table, no poles: two poles at 150 MHz tabulated every 50 MHz): the
  // simulator keeps the transforms, two beams a warp.
  SensorProfile table = CubeWaveform();
  table.detector.waveform.circuit_poles_mhz.clear();
  table.detector.waveform.circuit_response = {
      {0, 50, 100, 150, 200, 250, 300, 350, 400, 450, 500, 550, 600},
      {50.0, 45.0, 34.6154, 25.0, 18.0, 13.2353, 10.0, 7.7586, 6.1644, 5.0, 4.1284, 3.4615, 2.9412},
      {0.0, -36.87, -67.38, -90.0, -106.26, -118.072, -126.87, -133.603, -138.888, -143.13,
       -146.602, -149.49, -151.928}};
  table.name += " (a measured circuit table: transforms)";
  ASSERT_TRUE(table.Validate().ok()) << table.Validate().message();
  ASSERT_EQ(MakeWaveformChain(table, nullptr, nullptr).sections.count, 0u);
  ExpectWaveformParity(*scene, table, 6);
  // Records of 4096 samples: 13 warps a block on an H100, two mask words a lane.
  SensorProfile long_records = CubeWaveform();
  long_records.detector.waveform.samples = 4096;
  long_records.name += " (4096 samples)";
  ASSERT_TRUE(long_records.Validate().ok()) << long_records.Validate().message();
  ExpectWaveformParity(*scene, long_records, 7);
  // The OS0-128's scan with the waveform chain: 131,072 beams round the full circle.
  auto os0 = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128_threshold.yaml");
  ASSERT_TRUE(os0.ok()) << os0.message();
  SensorProfile o = os0.value();
  o.detector = cube.detector;
  o.detector.waveform.samples = 1024;
  o.min_range_m = 3.5;  // beyond the internal reflection's window (3.3 m)
  o.name += " (waveform, 1024 samples)";
  ASSERT_TRUE(o.Validate().ok()) << o.Validate().message();
  ExpectWaveformParity(*scene, o, 5);
}

}  // namespace
}  // namespace lt
