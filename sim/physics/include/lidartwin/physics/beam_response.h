// What one beam reports once its ray has hit a surface: the detector decision, the measured
// range and the point (tiers 3, 5 and 6 for the ideal and capability detectors). Shared by
// the CPU and CUDA backends, so both make the same decision from the same inputs.
#pragma once

#include <cstdint>

#include "lidartwin/physics/capability.h"
#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/philox.h"
#include "lidartwin/physics/pose.h"
#include "lidartwin/physics/range_noise.h"
#include "lidartwin/physics/reflectance.h"

namespace lt::physics {

enum class DetectorModel : uint32_t { kIdeal, kCapability, kThreshold, kWaveform };

// The detectors that read the beam's return signal (tier 4) rather than its nearest hit.
LT_HD inline bool ReadsReturnSignal(DetectorModel m) {
  return m == DetectorModel::kThreshold || m == DetectorModel::kWaveform;
}

template <typename T>
struct DetectorParams {
  DetectorModel model;
  T min_range_m;  // sensor's reporting window
  T max_range_m;
  T capability_max_range_m;    // d_max, seed 000 eq. (5)
  T reflectance_at_max_range;  // R_L,max
  T range_noise_sigma_m;       // capability and threshold
};

template <typename T>
struct BeamReturn {
  bool valid;
  Vec3<T> point;  // sensor frame at firing time, or at pose_end when motion corrected
  T range_m;
  // R0 cos(theta) [fraction], or R0 DiffuseShading on a rough surface (which past sigma ~ 43
  // deg reads above R0 at oblique incidence: up to 1.10 R0 near 90 deg)
  T reflectance;
};

// The point a sensor reports at `range_m` along its beam, which leaves from beam_origin (sensor
// frame) where `emitter` is the pose of that origin: in the sensor's own frame at the firing
// time, or, with motion correction, in the frame of the sweep's last pose (seed 003).
template <typename T>
LT_HD Vec3<T> ReportedPoint(T range_m, const Vec3<T>& dir_sensor, const Pose<T>& emitter,
                            const Pose<T>& pose_end, bool motion_correction,
                            const Vec3<T>& beam_origin = Vec3<T>{0, 0, 0}) {
  const Vec3<T> p = range_m * dir_sensor;
  return motion_correction ? InverseTransformPoint(pose_end, TransformPoint(emitter, p))
                           : beam_origin + p;
}

// hit_distance_m: true distance along the unit beam; shading: the incidence cosine, or for a
// rough surface DiffuseShading(sigma, cos theta) (surface_response.h), which it reads in its
// place; r0: surface reflectance at the wavelength; dir_sensor: unit beam direction in the
// sensor frame.
template <typename T>
LT_HD BeamReturn<T> DetectReturn(const DetectorParams<T>& d, T hit_distance_m, T shading, T r0,
                                 const Vec3<T>& dir_sensor, const RandomKey& key,
                                 const Pose<T>& pose, const Pose<T>& pose_end,
                                 bool motion_correction,
                                 const Vec3<T>& beam_origin = Vec3<T>{0, 0, 0}) {
  BeamReturn<T> out{false, {0, 0, 0}, 0, 0};
  const T reflectance = LambertianReflectance(r0, shading);  // seed 000 eq. (4)
  T range = hit_distance_m;
  if (d.model == DetectorModel::kCapability) {
    if (d.range_noise_sigma_m > 0) {
      const Philox4x32 w = RandomWords(key);
      range = NoisyRange(range, d.range_noise_sigma_m, StandardNormal<T>(w.v[0], w.v[1]));
    }
    if (!CapabilityDetects(reflectance, range, d.reflectance_at_max_range,
                           d.capability_max_range_m)) {
      return out;
    }
  }
  if (range < d.min_range_m || range > d.max_range_m) return out;
  out.valid = true;
  out.point = ReportedPoint(range, dir_sensor, pose, pose_end, motion_correction, beam_origin);
  out.range_m = range;
  out.reflectance = reflectance;
  return out;
}

}  // namespace lt::physics
