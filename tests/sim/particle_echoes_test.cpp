// Rain and snow along a sub-ray (internal/particle_echoes.h) and in the simulator: the
// particles are a Poisson process in the beam's tube (count, variance and ranges against the
// tube's volume), their expected power is the volume integral of the link budget (which no
// beam geometry changes), the populations mix by density, the draws do not depend on the room
// given, and the threshold detector reports them labelled as weather, darkened walls behind.
#include "internal/particle_echoes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "internal/weather_setup.h"
#include "lidartwin/physics/precipitation.h"
#include "lidartwin/sim/scene.h"
#include "sim_test_scenes.h"

namespace lt {
namespace {

using physics::kPi;

const physics::LinkBudget kLink{20.0, 0.02, 0.9, 1e-3};

ParticlePopulation Population(double density, uint32_t object) {
  return {density, 2.0857, 0.5, 6, 1, physics::DropBackscatterPerDiameter2(1.328), object};
}

ParticleView View(double density) {
  ParticleView v;
  v.populations = 1;
  v.kinds[0] = Population(density, 7);
  v.exit_radius_m = 0.01;
  v.divergence = 3e-3;
  v.reach_m = 1e9;
  return v;
}

struct Draws {
  std::vector<std::vector<physics::SignalContribution>> beams;
};

Draws Sample(const ParticleView& v, uint32_t beams, uint32_t sub_rays, double weight, double near_m,
             double clear_m, uint32_t room, physics::Overlap overlap = {0, 0}) {
  Draws d;
  physics::SignalContribution out[64];
  for (uint32_t b = 0; b < beams; ++b) {
    const uint32_t n = ParticleEchoes(v, kLink, overlap, 11, 3, b, 1, sub_rays, weight, near_m,
                                      clear_m, out, room);
    d.beams.emplace_back(out, out + n);
  }
  return d;
}

// Counts per sub-ray are Poisson with mean density x tube volume, and each particle's range
// falls below x with probability V(x) / V(far).
TEST(ParticleEchoes, AreAPoissonProcessInTheSubRaysTube) {
  const ParticleView v = View(50);
  const double near = 0.3, far = 20;
  const double mean = 50 * physics::TubeVolumeM3(0.01, 3e-3, 1, near, far);  // 5.97
  const Draws d = Sample(v, 20000, 1, 1, near, far, 64);
  double sum = 0, sum2 = 0, below = 0, all = 0;
  const double share_below = physics::TubeVolumeM3(0.01, 3e-3, 1, near, 10) /
                             physics::TubeVolumeM3(0.01, 3e-3, 1, near, far);
  for (const auto& beam : d.beams) {
    sum += beam.size();
    sum2 += double(beam.size()) * beam.size();
    for (size_t j = 0; j < beam.size(); ++j) {
      EXPECT_GT(beam[j].range_m, near);
      EXPECT_LT(beam[j].range_m, far);
      if (j > 0) EXPECT_GT(beam[j].range_m, beam[j - 1].range_m);  // nearest first
      below += beam[j].range_m < 10;
      ++all;
    }
  }
  const double n = d.beams.size(), m = sum / n, var = sum2 / n - m * m;
  EXPECT_NEAR(m, mean, 4 * std::sqrt(mean / n));
  EXPECT_NEAR(var, mean, 5 * std::sqrt((mean + 2 * mean * mean) / n));  // Poisson: var = mean
  EXPECT_NEAR(below / all, share_below, 4 * std::sqrt(share_below * (1 - share_below) / all));
}

// E[sum of a sub-ray's particle powers] = density x E[dsigma/dOmega] x w x integral of the
// link budget's P(beta = 1, R) O(R) dR: the tube's area cancels the irradiance's, so it holds
// whatever the exit radius, divergence and sub-ray count.
TEST(ParticleEchoes, TheirMeanPowerIsTheVolumeIntegralOfTheLinkBudget) {
  const double near = 0.3, far = 8, w = 0.3, density = 2000;
  const physics::Overlap overlap{1.5, 2};
  const ParticlePopulation p = Population(density, 7);
  // E[D^2] of the cut distribution, by quadrature [m^2].
  double z = 0, m2 = 0;
  for (double d = p.min_diameter_mm; d < p.max_diameter_mm; d += 1e-4) {
    const double f = std::exp(-p.slope_per_mm * (d + 5e-5));
    z += f;
    m2 += f * (d + 5e-5) * (d + 5e-5) * 1e-6;
  }
  double integral = 0;
  for (double r = near; r < far; r += 1e-4) {
    const double x = r + 5e-5;
    integral +=
        physics::ReceivedPower(kLink, 1.0, 1.0, x) * physics::OverlapShare(overlap, x) * 1e-4;
  }
  const double expected = density * p.backscatter_per_d2 * (m2 / z) * w * integral;
  for (auto [radius, divergence, sub_rays] :
       {std::tuple{0.01, 3e-3, 4u}, std::tuple{0.002, 0.0, 1u}, std::tuple{0.03, 1e-2, 16u}}) {
    ParticleView v = View(density);
    v.exit_radius_m = radius;
    v.divergence = divergence;
    const Draws d = Sample(v, 40000, sub_rays, w, near, far, 64, overlap);
    double sum = 0, sum2 = 0;
    for (const auto& beam : d.beams) {
      double s = 0;
      for (const auto& c : beam)
        s += c.power_w;
      sum += s;
      sum2 += s * s;
    }
    const double n = d.beams.size(), mean = sum / n;
    const double sd = std::sqrt(sum2 / n - mean * mean);
    EXPECT_NEAR(mean, expected, 4.5 * sd / std::sqrt(n)) << radius << " " << sub_rays;
  }
}

// Two populations: each particle is the second's with probability its share of the density;
// each carries its population's object. A smaller room keeps the same nearest particles, a
// least power the same particles less the weaker, and a surface nearer than the window none.
TEST(ParticleEchoes, PopulationsMixByDensityAndTheRoomOnlyCutsTheList) {
  ParticleView v = View(30);
  v.populations = 2;
  v.kinds[1] = Population(10, 9);
  const Draws d = Sample(v, 20000, 1, 1, 0.3, 15, 64);
  const Draws cut = Sample(v, 20000, 1, 1, 0.3, 15, 2);
  double second = 0, all = 0;
  for (size_t b = 0; b < d.beams.size(); ++b) {
    for (const auto& c : d.beams[b]) {
      ASSERT_TRUE(c.source == 7 || c.source == 9);
      second += c.source == 9;
      ++all;
    }
    ASSERT_EQ(cut.beams[b].size(), std::min<size_t>(2, d.beams[b].size()));
    for (size_t j = 0; j < cut.beams[b].size(); ++j) {
      EXPECT_EQ(cut.beams[b][j].range_m, d.beams[b][j].range_m);
      EXPECT_EQ(cut.beams[b][j].power_w, d.beams[b][j].power_w);
      EXPECT_EQ(cut.beams[b][j].source, d.beams[b][j].source);
    }
  }
  EXPECT_NEAR(second / all, 0.25, 4 * std::sqrt(0.25 * 0.75 / all));
  // A least power keeps the particles at or above it from the same draws, in order.
  ParticleView floor = v;
  floor.least_power_w = 1e-10;
  const Draws kept = Sample(floor, 20000, 1, 1, 0.3, 15, 64);
  size_t left_out = 0;
  for (size_t b = 0; b < d.beams.size(); ++b) {
    std::vector<physics::SignalContribution> expected;
    for (const auto& c : d.beams[b])
      if (c.power_w >= 1e-10) expected.push_back(c);
    left_out += d.beams[b].size() - expected.size();
    ASSERT_EQ(kept.beams[b].size(), expected.size());
    for (size_t j = 0; j < expected.size(); ++j)
      EXPECT_EQ(kept.beams[b][j].range_m, expected[j].range_m);
  }
  EXPECT_GT(left_out, 100u);
  EXPECT_TRUE(Sample(v, 100, 1, 1, 0.3, 0.2, 64).beams[7].empty());
  v.reach_m = 1;
  for (const auto& beam : Sample(v, 2000, 1, 1, 0.3, 15, 64).beams)
    for (const auto& c : beam)
      EXPECT_LT(c.range_m, 1.0f);
}

// A beam's equivalent solid angle: a cone's own, one Gaussian spot's 4 pi sigma_h sigma_v, two
// far apart spots of equal power twice one's.
TEST(ParticleEchoes, TheBeamsSolidAngleIsOneOverTheIntegralOfItsDensitySquared) {
  SensorProfile p = test::SpinningSensor(1, 0, 0, 1, 10);
  p.footprint.kind = physics::FootprintKind::kCone;
  p.footprint.half_angle_rad = 2e-3;
  EXPECT_NEAR(BeamSolidAngleSr(p), kPi * 4e-6, 1e-11);
  p.footprint.kind = physics::FootprintKind::kGaussian;
  p.footprint.spot_count = 1;
  p.footprint.spots[0] = {0, 0, 1e-3, 2e-3, 1.0};
  EXPECT_NEAR(BeamSolidAngleSr(p), 4 * kPi * 2e-6, 1e-15);
  p.footprint.spot_count = 2;
  p.footprint.spots[1] = {0.5, 0, 1e-3, 2e-3, 1.0};
  EXPECT_NEAR(BeamSolidAngleSr(p), 8 * kPi * 2e-6, 1e-14);
}

}  // namespace
}  // namespace lt
