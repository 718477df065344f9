#include "internal/weather_setup.h"

#include <algorithm>
#include <cmath>

#include "internal/spray_setup.h"
#include "lidartwin/physics/fog.h"
#include "lidartwin/physics/precipitation.h"
#include "lidartwin/physics/wet_surface.h"

namespace lt {

namespace {

// Rain's and snow's particle populations, without their labels.
ParticlePopulation RainPopulation(const RainDescription& r, double wavelength_nm) {
  const physics::ExponentialSizeDistribution n = physics::MarshallPalmer(r.rate_mm_h);
  return {physics::NumberDensityPerM3(n, r.min_diameter_mm, kMostDropMm),
          n.slope_per_mm,
          r.min_diameter_mm,
          kMostDropMm,
          1,
          physics::DropBackscatterPerDiameter2(physics::WaterRefractiveIndex(wavelength_nm)),
          0};
}
ParticlePopulation SnowPopulation(const SnowDescription& s) {
  const physics::ExponentialSizeDistribution n = physics::GunnMarshall(s.rate_mm_h);
  return {physics::NumberDensityPerM3(n, s.min_diameter_mm, kMostDropMm),
          n.slope_per_mm,
          s.min_diameter_mm,
          kMostDropMm,
          physics::kFlakeToMeltedDiameter,
          physics::FlakeBackscatterPerDiameter2(s.flake_reflectance),
          0};
}

// Where the largest particle's power on the beam's mean irradiance (overlap left out: it only
// lowers it) falls to kNegligibleShareOfThreshold of the threshold, by bisection: the power
// falls with range. The sub-rays' reach where the threshold is not a power (the waveform
// detector ranges on its noise).
double ParticleReachM(const SensorProfile& p, const ParticleView& v,
                      const physics::LinkBudget& link) {
  const physics::DetectorParams<double> d = p.Detector();
  const physics::ThresholdDetector threshold = p.Threshold();
  const double reach = d.max_range_m + 8 * threshold.pulse_sigma_m;
  // The margin of 1e-3 also covers a sub-ray's weight x sub_rays above 1 (importance-sampled
  // kernels) and the pulse energy's jitter.
  const double floor_w = NegligiblePowerW(p);
  if (!(floor_w > 0)) return reach;
  double sigma = 0;  // the largest particle's dsigma/dOmega [m^2/sr]
  for (uint32_t i = 0; i < v.populations; ++i) {
    const ParticlePopulation& k = v.kinds[i];
    const double diameter_m = 1e-3 * k.optical_scale * k.max_diameter_mm;
    sigma = std::max(sigma, k.backscatter_per_d2 * diameter_m * diameter_m);
  }
  auto power = [&](double r) {
    const double radius = v.exit_radius_m + r * v.divergence;
    return physics::ReceivedPower(link, sigma / (physics::kPi * radius * radius), 1.0, r);
  };
  double lo = d.min_range_m, hi = reach;
  if (power(hi) >= floor_w) return reach;
  if (power(lo) < floor_w) return lo;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (power(mid) >= floor_w ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace

double RainExtinctionPerM(const RainDescription& r) {
  return physics::PrecipitationExtinctionPerM(physics::MarshallPalmer(r.rate_mm_h), 1,
                                              r.extinction_efficiency,
                                              physics::kSphereProjectedShare);
}

double SnowExtinctionPerM(const SnowDescription& s) {
  // Flakes are discs at random orientations, as their echoes are (FlakeBackscatterPerDiameter2).
  return physics::PrecipitationExtinctionPerM(
      physics::GunnMarshall(s.rate_mm_h), physics::kFlakeToMeltedDiameter, s.extinction_efficiency,
      physics::kDiscProjectedShare);
}

double WeatherExtinctionPerM(const SensorProfile& p, const WeatherDescription& w) {
  double alpha = 0;
  if (w.fog) alpha += physics::FogExtinctionPerM(w.fog->visibility_m, p.wavelength_nm);
  if (w.rain) alpha += RainExtinctionPerM(*w.rain);
  if (w.snow) alpha += SnowExtinctionPerM(*w.snow);
  return alpha;
}

double BeamSolidAngleSr(const SensorProfile& p) {
  const physics::BeamFootprint& f = p.footprint;
  switch (f.kind) {
    case physics::FootprintKind::kCone:
      return 2 * physics::kPi * (1 - std::cos(f.half_angle_rad));
    case physics::FootprintKind::kGaussian: {
      // p = sum_i P_i N(mu_i, S_i) (P normalised): integral p^2 = sum_ij P_i P_j
      // N(mu_i - mu_j; 0, S_i + S_j), a Gaussian's overlap with another.
      double total = 0, overlap = 0;
      for (uint32_t i = 0; i < f.spot_count; ++i)
        total += f.spots[i].power;
      for (uint32_t i = 0; i < f.spot_count; ++i) {
        for (uint32_t j = 0; j < f.spot_count; ++j) {
          const physics::GaussianSpot& a = f.spots[i];
          const physics::GaussianSpot& b = f.spots[j];
          const double vh = a.sigma_h_rad * a.sigma_h_rad + b.sigma_h_rad * b.sigma_h_rad;
          const double vv = a.sigma_v_rad * a.sigma_v_rad + b.sigma_v_rad * b.sigma_v_rad;
          const double dh = a.h_offset_rad - b.h_offset_rad;
          const double dv = a.v_offset_rad - b.v_offset_rad;
          overlap += a.power * b.power / (total * total) *
                     std::exp(-dh * dh / (2 * vh) - dv * dv / (2 * vv)) /
                     (2 * physics::kPi * std::sqrt(vh * vv));
        }
      }
      return 1 / overlap;
    }
    case physics::FootprintKind::kTable: {
      // Cell c holds probability q_c (the CDF's step) and weight p_c / q_c.
      const KernelSampling& k = p.kernel;
      double sum = 0, previous = 0;
      for (size_t c = 0; c < k.cdf.size(); ++c) {
        const double q = k.cdf[c] - previous;
        previous = k.cdf[c];
        const double pc = q * k.weight[c];
        sum += pc * pc;
      }
      return k.dh_rad * k.dv_rad / sum;
    }
  }
  return 0;
}

uint32_t WeatherObjectCount(const WeatherDescription& w) {
  return (w.rain ? 1u : 0u) + (w.snow ? 1u : 0u) + (FogReturns(w) ? 1u : 0u) +
         (CoverScatters(w) ? 1u : 0u);
}

bool CoverScatters(const WeatherDescription& w) {
  if (!w.cover) return false;
  for (const CoverRegionDescription& r : w.cover->regions)
    if (r.backscatter > 0) return true;
  return false;
}

uint32_t CoverSlots(const WeatherDescription& w) {
  return CoverScatters(w) ? 1 : 0;
}

uint32_t SpraySlots(const SensorProfile& p, const WeatherDescription& w) {
  if (!w.spray) return 0;
  const uint32_t n = std::max<uint32_t>(1, p.footprint.sub_rays);
  const uint32_t per_sub_ray = kMaxContributions / n;
  const uint32_t taken = p.detector.max_surfaces_per_sub_ray + CoverSlots(w);
  return per_sub_ray > taken ? std::min(kMostSpraySlots, per_sub_ray - taken) : 0;
}

physics::CoverView FrameCover(const SensorProfile& p, const WeatherDescription& w,
                              uint32_t object) {
  physics::CoverView v;
  if (!w.cover) return v;
  for (const CoverRegionDescription& r : w.cover->regions) {
    if (v.regions == physics::kMostCoverRegions) break;  // checked when the scene loads
    v.region[v.regions++] = {
        static_cast<float>(r.azimuth_deg[0] * physics::kDegToRad),
        static_cast<float>((r.azimuth_deg[1] - r.azimuth_deg[0]) * physics::kDegToRad),
        static_cast<float>(r.elevation_deg[0] * physics::kDegToRad),
        static_cast<float>(r.elevation_deg[1] * physics::kDegToRad),
        static_cast<float>(r.transmission),
        static_cast<float>(r.backscatter)};
  }
  // The waveform detector's window echo is its internal reflection (seed 002 sec. 5.1): at its
  // delay, so that the cover adds to that pulse rather than making a second one that would
  // pull the range reference (waveform_ranging.h) towards the emission.
  v.window_range_m =
      static_cast<float>(p.detector.kind == DetectorKind::kWaveform
                             ? 0.5 * physics::kSpeedOfLight_m_s *
                                   p.detector.waveform.internal_reflection_delay_ns * 1e-9
                             : w.cover->window_range_m);
  v.object = object;
  return v;
}

static_assert(FogDescription{}.lidar_ratio_sr == physics::kWaterFogLidarRatioSr,
              "the scene's default lidar ratio is water fog's");

bool FogReturns(const WeatherDescription& w) {
  return w.fog && w.fog->backscatter;
}

namespace {

// How thick a fog slab is, where it starts at a [m], in pulse range sigmas (sigma): at most
// a / 4 [m], so that 1 / r^2 and the overlap change little inside it near the sensor, and at
// most 1.5 sigma, where the comb of the slabs' Gaussian pulses follows a smooth volume to within
// 2 exp(-2 pi^2 sigma^2 / h^2) = 3.1e-4 of it (Poisson summation over the pulse's spectrum;
// 2 sigma would leave 1.4e-2). Where the fog's signal is faint beside the threshold T, the
// comb's ripple matters less than the slabs' count: 2.5 sigma under 0.01 T (a ripple of 8.5 %
// of the signal, at most 8.5e-4 T) and 4 sigma under 1e-3 T (58 %: at most 5.8e-4 T); where
// the thickness steps, the comb is uneven for a slab or two, and the error about doubles.
double SlabThicknessM(double a, double sigma, double level_w, double threshold_w) {
  const double sigmas = !(threshold_w > 0) || level_w >= 0.01 * threshold_w ? 1.5
                        : level_w >= 1e-3 * threshold_w                     ? 2.5
                                                                            : 4.0;
  return std::min(a / 4, sigmas * sigma);
}

// Fog nearer than this is left out where the minimum range is 0: 1 / r^2's pole at the sensor,
// inside any window.
constexpr double kLeastFogRangeM = 0.05;

// Slab [a, b) as FogVolumeReturn gives it.
FogSlab IntegrateSlab(const physics::LinkBudget& link, const physics::Overlap& overlap, double beta,
                      double a, double b) {
  const physics::VolumeReturn v = physics::FogVolumeReturn(link, overlap, beta, a, b);
  return {static_cast<float>(a), static_cast<float>(b), static_cast<float>(v.centroid_m),
          static_cast<float>(v.power_w)};
}

}  // namespace

double NegligiblePowerW(const SensorProfile& p) {
  return p.detector.kind == DetectorKind::kThreshold
             ? kNegligibleShareOfThreshold * p.Threshold().threshold_w
             : 0.0;
}

FogView FrameFog(const SensorProfile& p, const WeatherDescription& w,
                 const physics::LinkBudget& link, uint32_t object) {
  FogView f;
  if (!FogReturns(w)) return f;
  const physics::ThresholdDetector threshold = p.Threshold();
  const physics::DetectorParams<double> d = p.Detector();
  const double sigma = threshold.pulse_sigma_m;
  const double beta = physics::FogBackscatterPerMSr(
      physics::FogExtinctionPerM(w.fog->visibility_m, p.wavelength_nm), w.fog->lidar_ratio_sr);
  const bool has_threshold = p.detector.kind == DetectorKind::kThreshold;
  f.least_power_w = NegligiblePowerW(p);
  f.object = object;
  // From the minimum range, where the detector's gate opens, out to the sub-rays' reach; the
  // slabs kept end with the last above the least power (the power rises through the overlap,
  // then falls), at most kMostFogSlabs of them.
  const double reach = d.max_range_m + 8 * sigma;
  double a = std::max(d.min_range_m, kLeastFogRangeM), sum = 0;
  for (uint32_t j = 0; j < kMostFogSlabs && a < reach; ++j) {
    // The fog's signal there (a slab 1.5 sigma thick: its power per metre times the pulse's
    // length) sets how thick the slab is.
    const double thin = std::min(a / 4, 1.5 * sigma);
    FogSlab s = IntegrateSlab(link, p.detector.overlap, beta, a, a + thin);
    const double level = s.power_w / thin * std::sqrt(2 * physics::kPi) * sigma;
    const double h = SlabThicknessM(a, sigma, level, has_threshold ? threshold.threshold_w : 0.0);
    if (h != thin) s = IntegrateSlab(link, p.detector.overlap, beta, a, a + h);
    f.slab[j] = s;
    sum += s.power_w;
    if (s.power_w >= f.least_power_w) {
      f.slabs = j + 1;
      f.most_power_w = sum;
    }
    a = s.end_m;
  }
  return f;
}

uint32_t ParticleSlots(const SensorProfile& p, const WeatherDescription& w) {
  if (!w.rain && !w.snow) return 0;
  const uint32_t n = std::max<uint32_t>(1, p.footprint.sub_rays);
  const uint32_t per_sub_ray = kMaxContributions / n;
  const uint32_t taken = p.detector.max_surfaces_per_sub_ray + CoverSlots(w) + SpraySlots(p, w);
  return per_sub_ray > taken ? std::min(kMostParticleSlots, per_sub_ray - taken) : 0;
}

ParticleView FrameParticles(const SensorProfile& p, const WeatherDescription& w,
                            const physics::LinkBudget& link, uint32_t first_object) {
  ParticleView v;
  if (w.rain) {
    v.kinds[v.populations] = RainPopulation(*w.rain, p.wavelength_nm);
    v.kinds[v.populations].object = first_object + v.populations;
    ++v.populations;
  }
  if (w.snow) {
    v.kinds[v.populations] = SnowPopulation(*w.snow);
    v.kinds[v.populations].object = first_object + v.populations;
    ++v.populations;
  }
  if (v.populations == 0) return v;
  // The beam leaves through the receiver's aperture (coaxial optics) and opens as the top-hat
  // cone of the beam's equivalent solid angle: pi t^2 = Omega.
  v.exit_radius_m = p.detector.link.aperture_diameter_m / 2;
  v.divergence = std::sqrt(BeamSolidAngleSr(p) / physics::kPi);
  v.reach_m = ParticleReachM(p, v, link);
  v.least_power_w = NegligiblePowerW(p);
  return v;
}

void WetObjects(const Scene& scene, double wavelength_nm, std::vector<ObjectInfo>& objects) {
  const std::optional<WetDescription>& wet = scene.description.weather.wet;
  if (!wet) return;
  const double n = physics::WaterRefractiveIndex(wavelength_nm);
  for (size_t i = 0; i < scene.objects.size() && i < objects.size(); ++i) {
    const Material& m = scene.materials.materials[scene.objects[i].material_id];
    if (std::find(wet->materials.begin(), wet->materials.end(), m.name) == wet->materials.end())
      continue;
    physics::SurfaceResponse& r = objects[i].response;
    r.wet_index = n;
    // The multiple-scattering sum holds for an albedo up to 1 (brighter than white: none).
    r.wet_gain = physics::WetDiffuseGain(std::min(r.r0, 1.0), n);
  }
}

void AppendWeatherObjects(const Scene& scene, double wavelength_nm, std::vector<ObjectInfo>& out) {
  const WeatherDescription& w = scene.description.weather;
  uint64_t instance = 0;
  for (const SceneObject& o : scene.objects)
    instance = std::max<uint64_t>(instance, uint64_t{o.instance_id} + 1);
  auto add = [&](double r0, uint16_t semantic) {
    ObjectInfo o{};
    o.r0 = r0;
    o.material = kNoLabel;
    o.instance = static_cast<uint32_t>(std::min<uint64_t>(instance++, kNoLabel - 1));
    o.semantic = semantic;
    o.response.r0 = r0;
    out.push_back(o);
  };
  // The spray's plumes first, one per spraying vehicle (SpraySources' labels): a volume.
  if (w.spray) {
    const size_t plumes = SpraySources(scene, 0).size();
    for (size_t i = 0; i < plumes; ++i)
      add(0, w.spray->semantic_class);
  }
  if (w.rain) {
    add(physics::NormalFresnelReflectance(physics::WaterRefractiveIndex(wavelength_nm)),
        w.rain->semantic_class);
  }
  if (w.snow) add(w.snow->flake_reflectance, w.snow->semantic_class);
  if (FogReturns(w)) add(0, w.fog->semantic_class);       // a volume: no reflectance of its own
  if (CoverScatters(w)) add(0, w.cover->semantic_class);  // its echo's power is a share, no r0
}

}  // namespace lt
