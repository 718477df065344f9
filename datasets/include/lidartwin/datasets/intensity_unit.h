// What Frame::intensity holds, per recording: each source's own unit and scale, carried from
// the reader (Recording::intensity_unit) through the frames file (the unit attribute of
// /points/intensity, DatasetInfo::intensity_unit) to info, compare's metrics.json, the viewer
// and the report. Intensities of two units are not comparable: compare says so.
#pragma once

#include <string>

namespace lt {

// Calibrated reflectivity, 100 = a white Lambertian target (above 100: retroreflectors): the
// ideal, capability and threshold detectors (physics/link_budget.h ReportedIntensity), KITTI's
// remission x 100.
inline constexpr const char* kIntensityPercent = "percent";
// Ouster's 8-bit calibrated reflectivity: 0-100 diffuse (percent), 101-255 retroreflective
// (the RNG15_RFL8_NIR8 profiles, which carry no signal field).
inline constexpr const char* kIntensityOusterReflectivity = "ouster reflectivity 0-255";
// Ouster's signal field: photons counted (legacy and RNG19_RFL8_SIG16_NIR16 profiles).
inline constexpr const char* kIntensityOusterSignal = "ouster signal photons";
// Velodyne's reflectivity byte (0-100 diffuse, 101-255 retroreflective on the VLP-16/32C and
// VLS-128; per-laser corrected intensity on the HDL-64E).
inline constexpr const char* kIntensityVelodyne = "velodyne reflectivity 0-255";
inline constexpr const char* kIntensityHesai = "hesai reflectivity 0-255";
inline constexpr const char* kIntensityRobosense = "robosense intensity 0-255";
inline constexpr const char* kIntensityNuscenes = "nuscenes intensity 0-255";
inline constexpr const char* kIntensityUnknown = "unknown";

// The waveform detector's: counts on the sensor's integer scale, "counts 0-4096".
std::string WaveformIntensityUnit(double intensity_max);

// Whether a unit is a calibrated reflectivity in percent up to 100 for diffuse targets (so
// that a reconstruction may read reflectance from it, and a simulation in percent may be
// compared with it): percent, Ouster's and Velodyne's reflectivity bytes.
bool IsReflectivityPercent(const std::string& unit);

}  // namespace lt
