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

// Unit direction from azimuth and elevation [rad]. On the GPU each angle's sine and cosine come
// from one sincos, which shares their argument's reduction (CUDA's sincos gives the values of
// its sin and cos).
template <typename T>
LT_HD Vec3<T> BeamDirection(T azimuth_rad, T elevation_rad) {
#ifdef __CUDA_ARCH__
  T se, ce, sa, ca;
  sincos(elevation_rad, &se, &ce);
  sincos(azimuth_rad, &sa, &ca);
  return {ce * ca, ce * sa, se};
#else
  using std::cos;
  using std::sin;
  const T ce = cos(elevation_rad);
  return {ce * cos(azimuth_rad), ce * sin(azimuth_rad), sin(elevation_rad)};
#endif
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

// ---- Airborne patterns (seed 001 sec. 5.1: "parallel to elliptical or zigzag surveys") ----
//
// The sensor looks down: nadir is elevation -pi/2. The platform flies along +x; its motion
// comes from the trajectory (each beam's pose is taken at its firing time), so the patterns
// below only say where the mirror points and when the laser fires. The laser is synchronised
// to the mirror: every line (or revolution) holds the same whole number of pulses at the same
// mirror angles, so a frame is a whole number of lines and the pattern carries on unchanged
// from one frame to the next.

// Direction across track: the beam turned by scan angle theta [rad] from nadir about the
// flight (x) axis, d = (0, sin theta, -cos theta); theta > 0 points left (+y). As azimuth and
// elevation: +-pi/2 and |theta| - pi/2 (nadir itself at azimuth +pi/2).
template <typename T>
struct AcrossTrack {
  T azimuth_rad;
  T elevation_rad;
};

template <typename T>
LT_HD AcrossTrack<T> AcrossTrackAngles(T scan_angle_rad) {
  const T half_pi = static_cast<T>(kPi / 2);
  return scan_angle_rad < static_cast<T>(0) ? AcrossTrack<T>{-half_pi, -scan_angle_rad - half_pi}
                                            : AcrossTrack<T>{half_pi, scan_angle_rad - half_pi};
}

// Across-track line scanner: the mirror sweeps the scan angle from -A to +A at a constant
// angular speed 2 A / T_a during the active part T_a of each line period T; pulse k of a line
// fires at the centre of the k-th of n equal slots of T_a, at
//   t = line T + (k + 1/2) T_a / n,   theta = -A + 2 A (k + 1/2) / n,
// so no pulse falls on a turning point and the lines' pulses lie at the same angles.
//   parallel (rotating polygon): every line sweeps -A -> +A; the rest of the line period,
//     T - T_a, is the fly-back (the change of facet). Ground lines are parallel.
//   zigzag (oscillating mirror): even lines sweep -A -> +A, odd lines +A -> -A; with the
//     platform moving the ground points form a zigzag.
template <typename T>
struct SwathScan {
  T half_angle_rad;   // A: half the across-track field of view
  T line_period_s;    // T = 1 / line rate
  T active_period_s;  // T_a <= T: the sweep across the field of view
  uint32_t pulses_per_line;
  uint32_t lines;  // per frame
};

// Beam i = line * pulses_per_line + k, k in firing order; column = position across the
// swath (0 at -A), so a column is the same scan angle on every line.
template <typename T>
LT_HD BeamSample<T> SwathBeam(const SwathScan<T>& s, uint32_t i, bool zigzag) {
  const uint32_t line = i / s.pulses_per_line;
  const uint32_t k = i % s.pulses_per_line;
  const uint32_t p = (zigzag && line % 2 == 1) ? s.pulses_per_line - 1 - k : k;
  const T n = static_cast<T>(s.pulses_per_line);
  const T half = static_cast<T>(0.5);
  const T theta = -s.half_angle_rad + 2 * s.half_angle_rad * (static_cast<T>(p) + half) / n;
  const T t =
      static_cast<T>(line) * s.line_period_s + (static_cast<T>(k) + half) * s.active_period_s / n;
  const AcrossTrack<T> a = AcrossTrackAngles(theta);
  return {a.azimuth_rad, a.elevation_rad, t, line, p};
}

template <typename T>
LT_HD BeamSample<T> ParallelBeam(const SwathScan<T>& s, uint32_t i) {
  return SwathBeam(s, i, false);
}

template <typename T>
LT_HD BeamSample<T> ZigzagBeam(const SwathScan<T>& s, uint32_t i) {
  return SwathBeam(s, i, true);
}

// Palmer scanner (nutating or wedge mirror): the beam turns on a cone of half-angle alpha
// about nadir, d = (sin alpha cos phi, sin alpha sin phi, -cos alpha) with phi = 2 pi t / T,
// T the revolution period; phi = 0 points forward (+x) and phi grows counter-clockwise seen
// from above (forward, left, back, right). Pulse k of revolution r fires at
//   t = r T + k T / n,   phi = 2 pi k / n.
// Every beam is alpha off nadir: a stationary sensor at height h draws a circle of radius
// h tan alpha on flat ground, and a moving one a chain of elongated loops (the "elliptical"
// pattern) that sweeps most of the swath twice: once looking ahead, once looking back.
template <typename T>
struct EllipticalScan {
  T off_nadir_rad;        // alpha, in (0, pi/2)
  T revolution_period_s;  // T = 1 / rotation rate
  uint32_t pulses_per_revolution;
  uint32_t revolutions;  // per frame
};

// Beam i = revolution * pulses_per_revolution + k; channel = revolution, column = k.
template <typename T>
LT_HD BeamSample<T> EllipticalBeam(const EllipticalScan<T>& s, uint32_t i) {
  const uint32_t revolution = i / s.pulses_per_revolution;
  const uint32_t k = i % s.pulses_per_revolution;
  const T fraction = static_cast<T>(k) / static_cast<T>(s.pulses_per_revolution);
  const T t = (static_cast<T>(revolution) + fraction) * s.revolution_period_s;
  const T phi = static_cast<T>(2 * kPi) * fraction;
  return {phi, s.off_nadir_rad - static_cast<T>(kPi / 2), t, revolution, k};
}

}  // namespace lt::physics

namespace lt::physics {

enum class ScanKind : uint32_t {
  kSpinning,
  kLissajous,
  kLineScan,
  kParallel,
  kZigzag,
  kElliptical
};

// Any scan pattern, as one trivially copyable value (its tables by pointer), so a kernel
// can take it by value and generate its own beams.
template <typename T>
struct ScanPattern {
  ScanKind kind;
  SpinningScan<T> spinning;
  LissajousScan<T> lissajous;
  LineScan<T> line_scan;
  SwathScan<T> swath;  // parallel and zigzag
  EllipticalScan<T> elliptical;
};

// Beams per frame, multiplied in 64 bits: two 32-bit counts from a config can give more than
// 2^32 beams, which a 32-bit product would wrap to a few (issue 36: 57,266,231 lines of 75
// points gave 29 beams). The profile's check caps the count far below 2^32.
template <typename T>
LT_HD uint64_t ScanBeamCount(const ScanPattern<T>& s) {
  switch (s.kind) {
    case ScanKind::kSpinning:
      return uint64_t{s.spinning.channels} * s.spinning.columns;
    case ScanKind::kLissajous:
      return s.lissajous.pulses;
    case ScanKind::kLineScan:
      return uint64_t{s.line_scan.lines} * s.line_scan.points_per_line;
    case ScanKind::kParallel:
    case ScanKind::kZigzag:
      return uint64_t{s.swath.lines} * s.swath.pulses_per_line;
    case ScanKind::kElliptical:
      return uint64_t{s.elliptical.revolutions} * s.elliptical.pulses_per_revolution;
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
    case ScanKind::kParallel:
      return ParallelBeam(s.swath, i);
    case ScanKind::kZigzag:
      return ZigzagBeam(s.swath, i);
    case ScanKind::kElliptical:
      return EllipticalBeam(s.elliptical, i);
    case ScanKind::kSpinning:
    default:
      return SpinningBeam(s.spinning, i);
  }
}

}  // namespace lt::physics
