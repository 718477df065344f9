// Road spray (issue 43): vehicles on a wet road throw up clusters of drops behind them, which
// a lidar sees as clumps of points in the plume and which dim what lies behind. The structure
// follows Linnhoff et al.'s stochastic spray model, calibrated on a test track with a VLP-32C
// at 50-130 km/h ("Simulating Road Spray Effects in Automotive Lidar Sensor Models", IEEE
// Sensors J., 2023, arXiv:2212.08558; constants as in openMSL's reflection-based lidar model):
// clusters spawned in a box behind the vehicle at a rate that grows with the water film and
// with the speed above 50 km/h, spheres of a log-normal radius, launched with the vehicle's
// velocity and an upward kick, slowed by quadratic drag, thinning with a time constant and gone
// after four of them. Where their model draws a detection per cluster with a fitted
// probability, ours gives each cluster an extinction (the plume's visibility, the user's) and
// lets it attenuate and return light as fog does (fog.h): the detector then decides.
// docs/physics.md, "Weather".
#pragma once

#include <cmath>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/vec3.h"

namespace lt::physics {

// Below this speed a vehicle throws up no spray clusters: Linnhoff et al.'s count is zero at
// 50 km/h (TRRL's laser tests, report VSE 513, 1979: spray "scarcely measurable" below 48
// km/h).
inline constexpr double kSprayOnsetKmh = 50;
// The model's update cycle [s] (a VLP-32C's 10 Hz frame): the count is per cycle and the spawn
// box is the distance a cycle covers.
inline constexpr double kSprayCycleS = 0.1;
// The spawn box behind the vehicle: across and up [m], its floor on the vehicle's.
inline constexpr double kSprayBoxWidthM = 3.4;
inline constexpr double kSprayBoxHeightM = 1.5;
// The upward speed a cluster is launched with: uniform in [0, this] [m/s].
inline constexpr double kSprayMostKickMS = 5;
// Cluster radii: log-normal of these parameters (median 0.30 m), cut at 1 m.
inline constexpr double kSprayRadiusMu = -1.2;
inline constexpr double kSprayRadiusSigma = 0.8;
inline constexpr double kSprayMostRadiusM = 1;
// Quadratic drag: du/dt = -k |u| u, k normal of this mean and deviation [1/m], kept positive.
inline constexpr double kSprayDragMeanPerM = 0.12;
inline constexpr double kSprayDragSigmaPerM = 0.04;
// The time constant's spread between clusters [s], and a cluster's life in time constants.
inline constexpr double kSprayTimeConstantSigmaS = 0.2;
inline constexpr double kSprayLifeInTimeConstants = 4;

// Clusters a vehicle spawns per second: (0.2 h + 0.1) (v - 50 km/h) per cycle, h the water
// film [mm], v [km/h]; 0 at or below the onset.
inline double SprayClustersPerS(double water_film_mm, double speed_kmh) {
  if (!(speed_kmh > kSprayOnsetKmh)) return 0;
  return (0.2 * water_film_mm + 0.1) * (speed_kmh - kSprayOnsetKmh) / kSprayCycleS;
}

// A cluster's mean time constant [s]: 0.02 h (v - 50 km/h) + 0.2; it thins as exp(-age / tau)
// and is gone after kSprayLifeInTimeConstants of them.
inline double SprayTimeConstantS(double water_film_mm, double speed_kmh) {
  return 0.02 * water_film_mm * (speed_kmh - kSprayOnsetKmh) + 0.2;
}

// How far [m] a body launched at speed u0 [m/s] under quadratic drag k [1/m] has gone after
// `age` [s], and its speed then: du/dt = -k u^2 gives u = u0 / (1 + k u0 age) and
// x = ln(1 + k u0 age) / k (a fixed direction: no gravity, no wind).
LT_HD inline double DragDistanceM(double u0, double k, double age_s) {
  using std::log1p;
  return log1p(k * u0 * age_s) / k;
}
LT_HD inline double DragSpeedMS(double u0, double k, double age_s) {
  return u0 / (1 + k * u0 * age_s);
}

// The part [t0, t1] of a ray o + t d (d a unit vector) inside a sphere; false where it
// misses. t0 may be negative (the origin inside).
LT_HD inline bool SphereChord(const Vec3<double>& o, const Vec3<double>& d,
                              const Vec3<double>& center, double radius, double* t0, double* t1) {
  using std::sqrt;
  const Vec3<double> oc{center.x - o.x, center.y - o.y, center.z - o.z};
  const double along = Dot(oc, d);
  const double off2 = Dot(oc, oc) - along * along;  // squared distance of the centre from the ray
  const double h2 = radius * radius - off2;
  if (!(h2 > 0)) return false;
  const double h = sqrt(h2);
  *t0 = along - h;
  *t1 = along + h;
  return true;
}

}  // namespace lt::physics
