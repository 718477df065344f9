#include "lidartwin/datasets/intensity_unit.h"

#include <fmt/core.h>

namespace lt {

std::string WaveformIntensityUnit(double intensity_max) {
  return fmt::format("counts 0-{:g}", intensity_max);
}

bool IsReflectivityPercent(const std::string& unit) {
  return unit == kIntensityPercent || unit == kIntensityOusterReflectivity ||
         unit == kIntensityVelodyne;
}

}  // namespace lt
