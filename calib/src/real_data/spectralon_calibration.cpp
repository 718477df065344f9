// The Spectralon panel's angular fits at each wavelength (real_data_calibration.h).
#include <fmt/core.h>

#include <string>

#include "lidartwin/calib/real_data_calibration.h"

namespace lt::calib {

Expected<SpectralonResult> CalibrateSpectralon(const std::filesystem::path& folder,
                                               const std::vector<double>& wavelengths_nm) {
  SpectralonResult out;
  const auto table_file = folder / "BRF_normalization_factor.csv";
  const auto calibration_file = folder / "Spectralon_Num4.txt";
  const auto sphere_file = folder / "Spectralon-panel-4-diffuse-reflectance_2023Jan18.txt";
  auto table = LoadBrfNormalisation(table_file);
  if (!table.ok()) return table.error();
  auto calibration = LoadPanelReflectance(calibration_file);
  if (!calibration.ok()) return calibration.error();
  if (calibration->uncertainty.empty()) {
    return Error{calibration_file.string() +
                 ": no uncertainty column (the Labsphere calibration lists wavelength, "
                 "reflectance and uncertainty)"};
  }
  auto sphere = LoadPanelReflectance(sphere_file);
  if (!sphere.ok()) return sphere.error();
  out.table_file = table->file;
  out.calibration_file = calibration->file;
  out.sphere_file = sphere->file;
  for (double wl : wavelengths_nm) {
    SpectralonAtWavelength w;
    w.wavelength_nm = wl;
    auto a = table->AtWavelength(wl);
    if (!a.ok()) return a.error();
    auto rho = calibration->At(wl, &w.reflectance_uncertainty);
    if (!rho.ok()) return rho.error();
    auto rho_sphere = sphere->At(wl);
    if (!rho_sphere.ok()) return rho_sphere.error();
    w.reflectance = *rho;
    w.reflectance_sphere = *rho_sphere;
    w.response = SpectralonMonostaticResponse(table->incidence_deg, *a, w.reflectance);
    const std::string where = fmt::format("{} at {:g} nm: ", table->file, wl);
    auto lambert = FitReflectance(w.response, AngularModel::kLambert);
    if (!lambert.ok()) return Error{where + lambert.message()};
    auto lobe = FitReflectance(w.response, AngularModel::kLambertSpecular);
    if (!lobe.ok()) return Error{where + lobe.message()};
    w.lambert = std::move(*lambert);
    w.lambert_specular = std::move(*lobe);
    out.wavelengths.push_back(std::move(w));
  }
  return out;
}

}  // namespace lt::calib
