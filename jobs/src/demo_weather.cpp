#include <fmt/core.h>

#include <cmath>
#include <string>
#include <vector>

#include "demo_chapters.h"
#include "detection_range.h"
#include "lidartwin/physics/fog.h"
#include "lidartwin/physics/precipitation.h"
#include "lidartwin/physics/wet_surface.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/sensor_profile.h"
#include "lidartwin/sim/simulator.h"

namespace lt::jobs {

namespace {

// One row of the chapter: a weather, its extinction at the sensor's wavelength [1/m] (for the
// link budget's prediction), whether it has echoes of its own to count (particles, or the fog's
// return), whether the plate is wet, whether the link budget predicts its range, and the
// one-way transmission of a dirty window in front of the sensor.
struct WeatherRow {
  std::string name;
  WeatherDescription weather;
  double extinction_per_m;
  bool particles;
  bool wet = false;
  bool predicted = true;
  double cover_transmission = 1;
};

// The link budget's detection range of a plate of `reflectance` seen to clear_m in clear air:
// W(alpha R) / alpha in extinction, and for a wet plate (no extinction) the range at which its
// return, lowered by the film (physics/wet_surface.h, straight on), meets the threshold again:
// R sqrt(factor), the power falling as R^-2; behind a dirty window of transmission T, whose
// return is T^2 of the clean one's (physics/cover.h), R T.
double ExpectedRangeM(const WeatherRow& row, double clear_m, double reflectance,
                      double wavelength_nm) {
  if (row.cover_transmission < 1) return clear_m * row.cover_transmission;
  if (!row.wet) return physics::FogDetectionRangeM(clear_m, row.extinction_per_m);
  const double n = physics::WaterRefractiveIndex(wavelength_nm);
  return clear_m *
         std::sqrt(physics::WetBrdfFactor<double>(n, physics::WetDiffuseGain(reflectance, n), 1.0));
}

std::vector<WeatherRow> Rows(double wavelength_nm) {
  std::vector<WeatherRow> rows;
  // Fog as extinction alone (the link budget's case), then with its own return: the strongest
  // echo a pulse reports can then be the fog's, near the sensor, rather than the plate's.
  for (bool backscatter : {false, true}) {
    for (double visibility : {100.0, 50.0, 30.0}) {
      WeatherDescription w;
      w.fog = FogDescription{.visibility_m = visibility, .backscatter = backscatter};
      rows.push_back(
          {fmt::format("fog {:.0f} m{}", visibility, backscatter ? ", its return" : ", extinction"),
           w, physics::FogExtinctionPerM(visibility, wavelength_nm), backscatter, false,
           !backscatter});
    }
  }
  for (double rate : {5.0, 25.0, 50.0}) {
    WeatherDescription w;
    w.rain = RainDescription{.rate_mm_h = rate};
    rows.push_back(
        {fmt::format("rain, {:.0f} mm/h", rate), w,
         physics::PrecipitationExtinctionPerM(physics::MarshallPalmer(rate), 1,
                                              physics::kLargeParticleExtinctionEfficiency,
                                              physics::kSphereProjectedShare),
         true});
  }
  WeatherDescription snow;
  snow.snow = SnowDescription{.rate_mm_h = 2};
  WeatherDescription wet;
  wet.wet = WetDescription{{kPlateMaterial}};
  rows.push_back({"the plate wet", wet, 0, false, true});
  WeatherDescription dirty;  // a window dirty all round, T = 0.8: 64 % of each return
  dirty.cover = CoverDescription{{{{-180, 180}, {-90, 90}, 0.8, 0}}};
  rows.push_back({"the window dirty, T = 0.8", dirty, 0, false, false, true, 0.8});
  rows.push_back({"snow, 2 mm/h (melted)", snow,
                  physics::PrecipitationExtinctionPerM(
                      physics::GunnMarshall(2), physics::kFlakeToMeltedDiameter,
                      physics::kLargeParticleExtinctionEfficiency, physics::kDiscProjectedShare),
                  true});
  return rows;
}

// Pulses whose weather echoes the chapter counts, per weather.
constexpr uint32_t kPulses = 2000;

// Vehicles' points and spray points in one frame of `scene`.
struct SprayCounts {
  size_t vehicles = 0, spray = 0;
  double vehicle_intensity = 0;  // their mean
};
Expected<SprayCounts> CountSpray(const Scene& scene, const SensorProfile& profile, uint64_t seed) {
  auto sim = CreateSimulator(Backend::kCpu, scene, profile, Trajectory::Static(), {seed, 0});
  if (!sim.ok()) return sim.error();
  auto f = (*sim)->Simulate(0);
  if (!f.ok()) return f.error();
  SprayCounts n;
  for (size_t i = 0; i < f->size(); ++i) {
    if (f->semantic_class[i] == 105) ++n.spray;
    if (f->semantic_class[i] != 64) continue;
    ++n.vehicles;
    n.vehicle_intensity += f->intensity[i];
  }
  if (n.vehicles > 0) n.vehicle_intensity /= n.vehicles;
  return n;
}

// Road spray on the motorway scene, with and without it: the spray's points and what it
// leaves of the vehicles'.
Status SprayLines(const DemoOptions& o, const SensorProfile& profile) {
  auto scene = LoadScene(o.root / "configs/scenes/motorway_spray.yaml", {});
  if (!scene.ok()) return scene.error();
  auto wet = CountSpray(*scene, profile, o.seed);
  if (!wet.ok()) return wet.error();
  Scene dry = scene.value();
  dry.description.weather.spray.reset();
  auto clear = CountSpray(dry, profile, o.seed);
  if (!clear.ok()) return clear.error();
  Say(o.log,
      "road spray (scenes/motorway_spray.yaml: a car at 100 km/h and a truck at 90 km/h on 1 mm\n"
      "of water, Linnhoff et al.'s clusters as fog of 10 m visibility when fresh), one frame:\n"
      "{} spray points; the vehicles' points {} (without spray {}), their mean reflectivity\n"
      "{:.1f} (without {:.1f})\n",
      wet->spray, wet->vehicles, clear->vehicles, wet->vehicle_intensity, clear->vehicle_intensity);
  return {};
}

}  // namespace

Status WeatherChapter(const DemoOptions& o) {
  auto profile = LoadSensorProfile(o.root / "configs/sensors/ouster_os0_128_threshold.yaml");
  if (!profile.ok()) return profile.error();
  const SensorProfile beam = OneBeamAhead(*profile);
  Say(o.log,
      "\nweather: {} (threshold detector, {:.0f} nm), one beam at a plate filling its footprint;\n"
      "detection range [m] of a 10 % and an 80 % plate, simulated, and beside it the link\n"
      "budget's W(alpha R_clear) / alpha from the clear-air range (physics/fog.h; a wet plate:\n"
      "R_clear times the root of the film's factor; a dirty window: R_clear T); the echoes a pulse "
      "reports from the rain or\n"
      "snow or the fog itself (a 10 % plate at 10 m, {} pulses)\n"
      "{:<26} {:>9} {:>9} {:>9} {:>9} {:>12}\n",
      profile->name, profile->wavelength_nm, kPulses, "weather", "10%", "expected", "80%",
      "expected", "echoes/pulse");
  const std::vector<double> reflectances = {0.1, 0.8};
  std::vector<double> clear(reflectances.size());
  for (size_t i = 0; i < reflectances.size(); ++i) {
    auto range = DetectionRangeM(beam, reflectances[i], {}, o.seed);
    if (!range.ok()) return range.error();
    clear[i] = *range;
  }
  Say(o.log, "{:<26} {:>9.2f} {:>9} {:>9.2f} {:>9} {:>12}\n", "clear air", clear[0], "", clear[1],
      "", "");
  for (const WeatherRow& row : Rows(profile->wavelength_nm)) {
    std::vector<double> seen(reflectances.size());
    for (size_t i = 0; i < reflectances.size(); ++i) {
      auto range = DetectionRangeM(beam, reflectances[i], row.weather, o.seed);
      if (!range.ok()) return range.error();
      seen[i] = *range;
    }
    std::string echoes = "-";
    if (row.particles) {
      auto rate = WeatherEchoesPerPulse(beam, row.weather, 10, o.seed, kPulses);
      if (!rate.ok()) return rate.error();
      echoes = fmt::format("{:.4f}", *rate);
    }
    std::string expected[2] = {"-", "-"};
    for (size_t i = 0; i < 2 && row.predicted; ++i) {
      expected[i] = fmt::format(
          "{:.2f}", ExpectedRangeM(row, clear[i], reflectances[i], profile->wavelength_nm));
    }
    Say(o.log, "{:<26} {:>9.2f} {:>9} {:>9.2f} {:>9} {:>12}\n", row.name, seen[0], expected[0],
        seen[1], expected[1], echoes);
  }
  Say(o.log,
      "fog as extinction (ln 20 / V, Kim et al. 2001) and its own return (backscatter = "
      "extinction\n"
      "/ 18.8 sr, water droplets, single scattering); rain and snow as Marshall-Palmer drops and\n"
      "Gunn-Marshall flakes, each a point scatterer along the beam; a wet plate under a film of\n"
      "water (Lekner and Dorf 1988); a dirty window's return T^2 of the clean one's. With its\n"
      "return, a fog can outshine the plate in this strongest-return profile. Not yet: the\n"
      "measured chamber curves to set beside these (issue 43, docs/adr/0032-weather-plan.md)\n");
  return SprayLines(o, *profile);
}

}  // namespace lt::jobs
