#include "sensor/solar_band.h"

#include <algorithm>
#include <cmath>

namespace lt {

namespace {

// The cumulative irradiance up to x nm, linear between the table's whole nanometres.
double Cumulative(double x_nm) {
  const double u = std::clamp(x_nm, kSolarTableFirstNm, kSolarTableLastNm) - kSolarTableFirstNm;
  const auto k = std::min(static_cast<int>(u), 799);
  const double f = u - k;
  return kSolarCumulativeW_m2[k] + f * (kSolarCumulativeW_m2[k + 1] - kSolarCumulativeW_m2[k]);
}

}  // namespace

double SolarBandIrradiance(double lo_nm, double hi_nm) {
  return Cumulative(hi_nm) - Cumulative(lo_nm);
}

}  // namespace lt
