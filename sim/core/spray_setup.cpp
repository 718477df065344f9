#include "internal/spray_setup.h"

#include <algorithm>
#include <cmath>

#include "lidartwin/physics/philox.h"
#include "lidartwin/physics/spray.h"

namespace lt {

namespace {

constexpr double kKmhPerMS = 3.6;

double HorizontalSpeedMS(const physics::Vec3<double>& v) {
  return std::hypot(v.x, v.y);
}

// The draws of cluster k of a source: uniforms for its place in the spawn box and its kick,
// normals for its radius, drag and time constant. Keyed by the spawn index, so a cluster is
// the same in every frame it lives through.
struct ClusterDraws {
  double along, across, up, kick;  // (0, 1)
  double radius_z, drag_z, tau_z;  // standard normal
};
ClusterDraws DrawCluster(uint64_t seed, uint32_t source_object, int64_t k) {
  const auto index = static_cast<uint32_t>(static_cast<uint64_t>(k));
  auto words = [&](uint32_t part) {
    return physics::RandomWords(
        physics::RandomKey{seed, index, source_object, part, physics::kStreamSpray});
  };
  const physics::Philox4x32 a = words(0), b = words(1);
  ClusterDraws d;
  d.along = physics::UniformOpen01<double>(a.v[0]);
  d.across = physics::UniformOpen01<double>(a.v[1]);
  d.up = physics::UniformOpen01<double>(a.v[2]);
  d.kick = physics::UniformOpen01<double>(a.v[3]);
  d.radius_z = physics::StandardNormal<double>(b.v[0], b.v[1]);
  d.drag_z = physics::StandardNormal<double>(b.v[2], b.v[3]);
  const physics::Philox4x32 c = words(2);
  d.tau_z = physics::StandardNormal<double>(c.v[0], c.v[1]);
  return d;
}

// The largest standard normal a draw can give (Box-Muller of a word at least 2^-33).
constexpr double kMostNormal = 6.8;
// A cluster's time constant is at least this [s] (the fitted spread reaches below zero).
constexpr double kLeastTauS = 0.05;

void Grow(SprayPlume& p, const physics::Vec3<double>& c, double r) {
  const double at[3] = {c.x, c.y, c.z};
  for (int i = 0; i < 3; ++i) {
    p.lo[i] = std::min(p.lo[i], static_cast<float>(at[i] - r));
    p.hi[i] = std::max(p.hi[i], static_cast<float>(at[i] + r));
  }
}

}  // namespace

std::vector<SpraySource> SpraySources(const Scene& scene, uint32_t first_label) {
  std::vector<SpraySource> out;
  if (!scene.description.weather.spray) return out;
  for (uint32_t i = 0; i < scene.objects.size(); ++i) {
    const SceneObject& o = scene.objects[i];
    const physics::Vec3<double> v{o.motion.velocity_m_s[0], o.motion.velocity_m_s[1],
                                  o.motion.velocity_m_s[2]};
    if (!(HorizontalSpeedMS(v) * kKmhPerMS > physics::kSprayOnsetKmh)) continue;
    SpraySource s{i,
                  first_label + static_cast<uint32_t>(out.size()),
                  {1e300, 1e300, 1e300},
                  {-1e300, -1e300, -1e300},
                  v};
    for (const auto& p : VerticesAt(o, 0)) {
      s.lo = {std::min(s.lo.x, p[0]), std::min(s.lo.y, p[1]), std::min(s.lo.z, p[2])};
      s.hi = {std::max(s.hi.x, p[0]), std::max(s.hi.y, p[1]), std::max(s.hi.z, p[2])};
    }
    if (!(s.lo.x <= s.hi.x)) s.lo = s.hi = o.pose.translation;  // no vertices: a point
    out.push_back(s);
  }
  return out;
}

SprayView FrameSpray(const std::vector<SpraySource>& sources, const SprayDescription& spray,
                     uint64_t seed, double start_s, double period_s,
                     std::vector<SprayCluster>& clusters, std::vector<SprayPlume>& plumes) {
  clusters.clear();
  plumes.clear();
  const double end_s = start_s + period_s;
  // A fresh cluster is a fog of MOR V: its drops are much larger than the wavelength, so
  // alpha = ln 20 / V at every wavelength (physics/fog.h below 500 m).
  const double alpha0 = physics::MorExtinctionPerM(spray.visibility_m);
  for (const SpraySource& s : sources) {
    const double speed = HorizontalSpeedMS(s.velocity_m_s);
    const double rate = physics::SprayClustersPerS(spray.water_film_mm, speed * kKmhPerMS);
    if (!(rate > 0)) continue;
    const double tau_mean = physics::SprayTimeConstantS(spray.water_film_mm, speed * kKmhPerMS);
    const double longest = physics::kSprayLifeInTimeConstants *
                           (tau_mean + kMostNormal * physics::kSprayTimeConstantSigmaS);
    const physics::Vec3<double> ahead{s.velocity_m_s.x / speed, s.velocity_m_s.y / speed, 0};
    const physics::Vec3<double> left{-ahead.y, ahead.x, 0};
    const physics::Vec3<double> centre0{0.5 * (s.lo.x + s.hi.x), 0.5 * (s.lo.y + s.hi.y), 0};
    // The box's half extent along the motion: where its rear is.
    const double rear = 0.5 * (std::abs(s.hi.x - s.lo.x) * std::abs(ahead.x) +
                               std::abs(s.hi.y - s.lo.y) * std::abs(ahead.y));
    SprayPlume plume{
        {3e38f, 3e38f, 3e38f}, {-3e38f, -3e38f, -3e38f}, static_cast<uint32_t>(clusters.size()), 0};
    // Youngest first, so that the cap leaves out the oldest, the faintest.
    const auto newest = static_cast<int64_t>(std::floor(end_s * rate));
    const auto oldest = static_cast<int64_t>(std::floor((start_s - longest) * rate));
    for (int64_t k = newest; k >= oldest && plume.count < kMostSprayClustersPerPlume; --k) {
      const double spawn = static_cast<double>(k) / rate;
      if (spawn > end_s) continue;
      const ClusterDraws d = DrawCluster(seed, s.scene_object, k);
      const double tau =
          std::max(kLeastTauS, tau_mean + physics::kSprayTimeConstantSigmaS * d.tau_z);
      const double death = spawn + physics::kSprayLifeInTimeConstants * tau;
      if (death < start_s) continue;
      // Where it is spawned: in the box behind the vehicle's rear then.
      const double behind = rear + d.along * speed * physics::kSprayCycleS;
      const double across = (d.across - 0.5) * physics::kSprayBoxWidthM;
      const physics::Vec3<double> from{
          centre0.x + s.velocity_m_s.x * spawn - ahead.x * behind + left.x * across,
          centre0.y + s.velocity_m_s.y * spawn - ahead.y * behind + left.y * across,
          s.lo.z + s.velocity_m_s.z * spawn + d.up * physics::kSprayBoxHeightM};
      // Launched with the vehicle's velocity and a kick up, slowed by quadratic drag.
      const physics::Vec3<double> u0{s.velocity_m_s.x, s.velocity_m_s.y,
                                     s.velocity_m_s.z + d.kick * physics::kSprayMostKickMS};
      const double speed0 = std::sqrt(physics::Dot(u0, u0));
      const physics::Vec3<double> way{u0.x / speed0, u0.y / speed0, u0.z / speed0};
      const double drag =
          std::max(0.01, physics::kSprayDragMeanPerM + physics::kSprayDragSigmaPerM * d.drag_z);
      SprayCluster c;
      const double fs[3] = {from.x, from.y, from.z}, ws[3] = {way.x, way.y, way.z};
      for (int i = 0; i < 3; ++i) {
        c.from[i] = fs[i];
        c.way[i] = static_cast<float>(ws[i]);
      }
      c.speed_m_s = static_cast<float>(speed0);
      c.drag_per_m = static_cast<float>(drag);
      c.radius_m = static_cast<float>(
          std::min(physics::kSprayMostRadiusM,
                   std::exp(physics::kSprayRadiusMu + physics::kSprayRadiusSigma * d.radius_z)));
      c.spawn_s = spawn;
      c.end_s = death;
      c.extinction_per_m = static_cast<float>(alpha0);
      c.tau_s = static_cast<float>(tau);
      c.object = s.label_object;
      // The plume's box: the cluster moves along a straight line, so its places at the
      // frame's ends (or its life's) bound its path.
      Grow(plume, SprayClusterAt(c, std::max(start_s, spawn)), c.radius_m);
      Grow(plume, SprayClusterAt(c, std::min(end_s, death)), c.radius_m);
      clusters.push_back(c);
      ++plume.count;
    }
    if (plume.count > 0) plumes.push_back(plume);
  }
  SprayView v;
  v.plumes = static_cast<uint32_t>(plumes.size());
  v.plume = plumes.data();
  v.cluster = clusters.data();
  v.lidar_ratio_sr = spray.lidar_ratio_sr;
  return v;
}

}  // namespace lt
