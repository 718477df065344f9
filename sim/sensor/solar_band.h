// Solar irradiance in an optical band-pass, from ASTM G173-03 (seed 002 eq. 4 integrates the
// spectrum I_lambda over the band BW_opt): the global-tilt spectrum (37 deg tilted surface,
// air mass 1.5, 1000 W/m^2 over 280..4000 nm), integrated at whole nanometres from 800 to
// 1600 nm by scripts/make-solar-table.py (solar_band_table.cpp).
#pragma once

namespace lt {

inline constexpr double kSolarTableFirstNm = 800;
inline constexpr double kSolarTableLastNm = 1600;
// The global-tilt irradiance from 800 nm to 800 + k nm [W/m^2], k = 0..800.
extern const double kSolarCumulativeW_m2[801];

// The irradiance in [lo_nm, hi_nm] [W/m^2], 800 <= lo <= hi <= 1600: the table's values at
// whole nanometres, linear between them (the file's own steps are 1 nm).
double SolarBandIrradiance(double lo_nm, double hi_nm);

}  // namespace lt
