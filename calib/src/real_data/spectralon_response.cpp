// The monostatic response a Spectralon panel's BRF normalisation and reflectance imply
// (derivation in spectralon.h and docs/calibration.md "Real measurements").
#include <cmath>

#include "lidartwin/calib/spectralon.h"
#include "lidartwin/physics/link_budget.h"
#include "lidartwin/physics/units.h"

namespace lt::calib {

std::vector<ReflectanceSample> SpectralonMonostaticResponse(
    const std::vector<double>& incidence_deg, const std::vector<double>& a_at_wavelength,
    double reflectance) {
  std::vector<ReflectanceSample> out;
  for (size_t i = 0; i < incidence_deg.size() && i < a_at_wavelength.size(); ++i) {
    // I = 100 BRF cos(theta), BRF = rho f / A with the shape f at its Lambertian base 1.
    const double cos_theta = std::cos(incidence_deg[i] * physics::kDegToRad);
    out.push_back({incidence_deg[i],
                   physics::ReportedIntensity(reflectance) * cos_theta / a_at_wavelength[i], 0.0});
  }
  return out;
}

}  // namespace lt::calib
