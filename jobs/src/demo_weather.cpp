#include <fmt/core.h>

#include <cmath>
#include <vector>

#include "demo_chapters.h"
#include "detection_range.h"
#include "lidartwin/physics/fog.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::jobs {

Status WeatherChapter(const DemoOptions& o) {
  auto profile = LoadSensorProfile(o.root / "configs/sensors/ouster_os0_128_threshold.yaml");
  if (!profile.ok()) return profile.error();
  const SensorProfile beam = OneBeamAhead(*profile);
  Say(o.log,
      "\nweather: {} (threshold detector, {:.0f} nm), one beam at a plate filling its footprint;\n"
      "detection range [m] of a 10 % and an 80 % plate, simulated, and beside it the link\n"
      "budget's W(alpha R_clear) / alpha from the clear-air range (physics/fog.h)\n"
      "{:<26} {:>9} {:>9} {:>9} {:>9}\n",
      profile->name, profile->wavelength_nm, "weather", "10%", "expected", "80%", "expected");
  const std::vector<double> reflectances = {0.1, 0.8};
  std::vector<double> clear(reflectances.size());
  for (size_t i = 0; i < reflectances.size(); ++i) {
    auto range = DetectionRangeM(beam, reflectances[i], {}, o.seed);
    if (!range.ok()) return range.error();
    clear[i] = *range;
  }
  Say(o.log, "{:<26} {:>9.2f} {:>9} {:>9.2f} {:>9}\n", "clear air", clear[0], "", clear[1], "");
  for (double visibility : {100.0, 50.0, 30.0}) {
    WeatherDescription fog;
    fog.fog = FogDescription{visibility};
    const double alpha = physics::FogExtinctionPerM(visibility, profile->wavelength_nm);
    std::vector<double> seen(reflectances.size());
    for (size_t i = 0; i < reflectances.size(); ++i) {
      auto range = DetectionRangeM(beam, reflectances[i], fog, o.seed);
      if (!range.ok()) return range.error();
      seen[i] = *range;
    }
    Say(o.log, "{:<26} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f}\n",
        fmt::format("fog, visibility {:.0f} m", visibility), seen[0],
        physics::FogDetectionRangeM(clear[0], alpha), seen[1],
        physics::FogDetectionRangeM(clear[1], alpha));
  }
  Say(o.log,
      "fog as extinction only (ln 20 / V, Kim et al. 2001): its backscatter near the sensor, "
      "rain,\n"
      "snow and spray, and the measured chamber curves to set beside these, are still to come\n"
      "(issue 43, docs/adr/0032-weather-plan.md)\n");
  return {};
}

}  // namespace lt::jobs
