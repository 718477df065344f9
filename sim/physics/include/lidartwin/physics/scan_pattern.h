// Beam geometry: where each beam of a scan points and when it fires (model tier 1).
//
// Sensor frame: x forward, y left, z up. Azimuth is measured from +x towards +y
// (counter-clockwise seen from above), elevation from the xy-plane towards +z.
// Every function here is a pure function of the beam index, so a CUDA thread can generate
// its own beam without a host-side ray buffer.
#pragma once

#include <cmath>
#include <cstdint>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/units.h"
#include "lidartwin/physics/vec3.h"

namespace lt::physics {

// Unit direction from azimuth and elevation [rad].
template <typename T>
LT_HD Vec3<T> BeamDirection(T azimuth_rad, T elevation_rad) {
  using std::cos;
  using std::sin;
  const T ce = cos(elevation_rad);
  return {ce * cos(azimuth_rad), ce * sin(azimuth_rad), sin(elevation_rad)};
}

// One beam of a scan: direction in the sensor frame and firing time from the frame start.
template <typename T>
struct BeamSample {
  T azimuth_rad;
  T elevation_rad;
  T time_s;
  uint32_t channel;  // laser / scan line
  uint32_t column;   // firing sequence / position along the line
};

// Spinning multi-channel sensor (Ouster, Velodyne, Hesai style) and custom per-beam tables
// (seed 003 laserconfig). The head turns at rotation_rate_hz; column c starts at
// c / (columns * rate); channel k fires firing_offset_s[k] after its column starts and points
// at the head angle at that instant plus its own azimuth offset. So a Velodyne's per-firing
// azimuth interpolation follows from its firing times rather than being a separate table.
template <typename T>
struct SpinningScan {
  const T* elevation_rad;       // per channel
  const T* azimuth_offset_rad;  // per channel
  const T* firing_offset_s;     // per channel, from the column start
  uint32_t channels;
  uint32_t columns;  // per revolution (= per frame)
  T rotation_rate_hz;
  T start_azimuth_rad;  // head angle at t = 0
  bool clockwise;       // seen from above; Ouster and Velodyne heads turn clockwise
};

// Beam i = column * channels + channel.
template <typename T>
LT_HD BeamSample<T> SpinningBeam(const SpinningScan<T>& s, uint32_t i) {
  const uint32_t channel = i % s.channels;
  const uint32_t column = i / s.channels;
  const T column_period_s = 1 / (static_cast<T>(s.columns) * s.rotation_rate_hz);
  const T t = static_cast<T>(column) * column_period_s + s.firing_offset_s[channel];
  const T head = static_cast<T>(2 * kPi) * s.rotation_rate_hz * t;
  const T azimuth =
      s.start_azimuth_rad + (s.clockwise ? -head : head) + s.azimuth_offset_rad[channel];
  return {azimuth, s.elevation_rad[channel], t, channel, column};
}

// Two-axis resonant MEMS mirror tracing a Lissajous figure:
//   azimuth(t)   = A_h sin(2 pi f_h t + phi_h),  elevation(t) = A_v sin(2 pi f_v t + phi_v),
// one pulse every 1 / pulse_rate_hz. Equal frequencies with a 45 deg phase difference
// give the tilted ellipse of two mirrors driven as in seed 002 sec. 5.1.
template <typename T>
struct LissajousScan {
  T horizontal_amplitude_rad;
  T vertical_amplitude_rad;
  T horizontal_frequency_hz;
  T vertical_frequency_hz;
  T horizontal_phase_rad;
  T vertical_phase_rad;
  T pulse_rate_hz;
  uint32_t pulses;  // per frame
};

template <typename T>
LT_HD BeamSample<T> LissajousBeam(const LissajousScan<T>& s, uint32_t i) {
  using std::sin;
  const T t = static_cast<T>(i) / s.pulse_rate_hz;
  const T two_pi = static_cast<T>(2 * kPi);
  return {
      s.horizontal_amplitude_rad *
          sin(two_pi * s.horizontal_frequency_hz * t + s.horizontal_phase_rad),
      s.vertical_amplitude_rad * sin(two_pi * s.vertical_frequency_hz * t + s.vertical_phase_rad),
      t, 0u, i};
}

// MEMS line scan in the manner of the Blickfeld Cube 1 (seed 002 sec. 5.1, Fig. 6 and 21):
// a resonant horizontal mirror, azimuth(t) = A_h sin(2 pi f_h t), draws one scan line per
// half period, left to right and back; the vertical mirror rises linearly from -A_v to +A_v
// over the frame's lines ("frame mode only up") and flies back in the rest of the frame.
// Pulses fire at equal azimuth steps (0.4 deg in both figures), at the centres of the steps
// across the field of view, so no pulse falls on the turning point shared by two lines; the
// firing time of azimuth a on a line is asin(a / A_h) / (2 pi f_h) after the zero crossing.
template <typename T>
struct LineScan {
  T horizontal_amplitude_rad;  // half the horizontal field of view
  T vertical_amplitude_rad;    // half the vertical field of view
  T horizontal_frequency_hz;   // f_h of the resonant mirror
  T horizontal_step_rad;       // azimuth spacing of pulses on a line
  uint32_t lines;              // scan lines per frame
  uint32_t points_per_line;    // floor(2 A_h / step)
};

// Beam i = line * points_per_line + k, k in firing order along the line.
template <typename T>
LT_HD BeamSample<T> LineScanBeam(const LineScan<T>& s, uint32_t i) {
  using std::asin;
  const uint32_t line = i / s.points_per_line;
  const uint32_t k = i % s.points_per_line;
  // Even lines sweep from -A_h to +A_h, odd lines back.
  const uint32_t p = (line % 2 == 0) ? k : s.points_per_line - 1 - k;
  const T azimuth = -s.horizontal_amplitude_rad +
                    (static_cast<T>(p) + static_cast<T>(0.5)) * s.horizontal_step_rad;
  const T two_pi = static_cast<T>(2 * kPi);
  const T line_period_s = 1 / (2 * s.horizontal_frequency_hz);
  // Time since the line started: the mirror passes -A_h (or +A_h) at the line start, zero a
  // quarter period later.
  const T ratio = azimuth / s.horizontal_amplitude_rad;    // inside (-1, 1)
  const T phase = asin((line % 2 == 0) ? ratio : -ratio);  // -pi/2 .. pi/2 along the line
  const T t_in_line = (phase + static_cast<T>(kPi / 2)) / (two_pi * s.horizontal_frequency_hz);
  const T t = static_cast<T>(line) * line_period_s + t_in_line;
  const T up_time_s = static_cast<T>(s.lines) * line_period_s;
  const T elevation = -s.vertical_amplitude_rad + 2 * s.vertical_amplitude_rad * t / up_time_s;
  return {azimuth, elevation, t, line, p};
}

}  // namespace lt::physics

namespace lt::physics {

enum class ScanKind : uint32_t { kSpinning, kLissajous, kLineScan };

// Any scan pattern, as one trivially copyable value (its tables by pointer), so a kernel
// can take it by value and generate its own beams.
template <typename T>
struct ScanPattern {
  ScanKind kind;
  SpinningScan<T> spinning;
  LissajousScan<T> lissajous;
  LineScan<T> line_scan;
};

template <typename T>
LT_HD uint32_t ScanBeamCount(const ScanPattern<T>& s) {
  switch (s.kind) {
    case ScanKind::kSpinning:
      return s.spinning.channels * s.spinning.columns;
    case ScanKind::kLissajous:
      return s.lissajous.pulses;
    case ScanKind::kLineScan:
      return s.line_scan.lines * s.line_scan.points_per_line;
  }
  return 0;
}

template <typename T>
LT_HD BeamSample<T> ScanBeam(const ScanPattern<T>& s, uint32_t i) {
  switch (s.kind) {
    case ScanKind::kLissajous:
      return LissajousBeam(s.lissajous, i);
    case ScanKind::kLineScan:
      return LineScanBeam(s.line_scan, i);
    case ScanKind::kSpinning:
    default:
      return SpinningBeam(s.spinning, i);
  }
}

}  // namespace lt::physics
