// Shared physical and mathematical constants (house rule 14): declared here once, used
// everywhere else by name.
#pragma once

namespace lt::physics {

inline constexpr double kPi = 3.14159265358979323846;
inline constexpr double kDegToRad = kPi / 180.0;
// Speed of light in vacuum [m/s] (SI definition). Ranges are half the round-trip path, so a
// time t corresponds to the range c t / 2.
inline constexpr double kSpeedOfLight_m_s = 299792458.0;
// Planck constant [J s] and elementary charge [C] (SI definitions).
inline constexpr double kPlanck_J_s = 6.62607015e-34;
inline constexpr double kElementaryCharge_C = 1.602176634e-19;
// FWHM of a Gaussian over its standard deviation: 2 sqrt(2 ln 2).
inline constexpr double kFwhmPerSigma = 2.3548200450309493;

}  // namespace lt::physics
