// What every reconstruction method hands on (issue 12): recorded frames with their poses in,
// a world-frame triangle surface with a reflectance per triangle out. Kept free of Open3D so
// that the range-image mesher and visibility carving build wherever the simulator does.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/physics/pose.h"

namespace lt {

// Frames with the sensor pose at each frame's start and end; a point's pose is interpolated
// (linear position, slerp rotation, as the simulator's trajectories are) at its column's
// fraction of the frame, so a moving sensor's points land where they were measured.
struct PosedFrames {
  std::vector<Frame> frames;
  std::vector<physics::Pose<double>> start_poses, end_poses;  // sensor -> world
  uint32_t columns_per_frame = 0;  // 0: every point at its frame's start pose
};

// Where a sensor's beams leave from in its frame: SensorProfile::beam_origin_m, and for a head
// whose beams leave off its axis (an Ouster's lidar_origin_to_beam_origin, a Helios's lens)
// radius_m out along the head's direction (ADR 0028). A reconstruction fuses along and reads
// the incidence of the beam's own ray: at the OS-0's 1 m, 27 mm off the axis turn a grazing
// face's incidence by 1.5 deg, its cos by 7 % at 70 deg.
struct BeamOrigins {
  physics::Vec3<double> offset_m{0, 0, 0};
  double radius_m = 0;
  // The origin of the beam that returned p (sensor frame), the head taken along p's azimuth
  // (a beam's own azimuth offset, at most 3 deg on an Ouster, moves it by 1.4 mm).
  physics::Vec3<double> Of(const physics::Vec3<double>& p) const;
};

// The sensor pose at point i of frame k: interpolated at its column's fraction of the frame.
physics::Pose<double> PoseOfPoint(const PosedFrames& input, size_t k, size_t i);

// The angle [deg] that turns rotation `from` into rotation `to` (2 acos |<from, to>|, either
// quaternion sign): what ICP's report, reproduce's stillness test and the surface
// registration's bound call turned.
double TurnedDeg(const physics::Quat<double>& from, const physics::Quat<double>& to);

// How a recorded intensity becomes the surface's diffuse reflectance R0 [fraction]. The
// default reads a calibrated reflectivity in percent of a white Lambertian target, which the
// sensor reports as R0 cos(theta) (docs/calibration.md, "Ouster captures"; seed 000 eq. 4):
// R0 = I / (100 cos theta). A raw-intensity sensor passes the range-intensity curve it was
// calibrated with (issue 12): I = gain(R) R0 cos(theta), so R0 = I / (gain(R) cos theta).
// The reflectances a reading gives lie in [kMinReadReflectance, max_reflectance]: a surface darker
// than 0.05 % returns nothing a lidar can use (at 0.5 %, a raw sensor's returns reading 0-5 counts
// were simulated 1-2 counts brighter), and the material library holds diffuse reflectances (a
// retroreflector reads above 100 %).
inline constexpr double kMinReadReflectance = 0.0005;

struct IntensityReading {
  // gain at range R [intensity unit per unit R0 cos theta]; empty: 100 at every range.
  std::vector<double> gain_range_m, gain;  // piecewise linear in R, held flat beyond the ends
  // The largest R0 a reading gives. 1: a diffuse reflectance, for a scene seen from anywhere.
  // Above 1 the reading is apparent (Material::apparent): what a face read from where it was
  // seen, glints, retroreflective paint and grazing faces brighter than a white Lambertian
  // target, which holds for viewpoints near that one (reproduce, a sensor that barely moved).
  double max_reflectance = 1;
  // The surfaces' roughness (Oren and Nayar's sigma, physics/surface_response.h) [rad]: a return
  // reads G(R) R0 DiffuseShading(sigma, cos theta); 0: Lambertian, G(R) R0 cos theta. The
  // reconstructed scene's materials carry it, so that the simulator renders what was read.
  double roughness_rad = 0;
  double GainAt(double range_m) const;
  // cos(theta), or what a rough surface reads in its place.
  double Shading(double cos_incidence) const;
  // R0 from one return; NaN when the incidence is beyond max_incidence_deg or I is not finite.
  double Reflectance(double intensity, double range_m, double cos_incidence,
                     double max_incidence_deg) const;
};

// A reconstructed surface in world coordinates. triangle_reflectance is R0 per triangle, NaN
// where no return measured it (the scene writer gives those the median).
struct ReconstructedSurface {
  std::vector<std::array<double, 3>> vertices;
  std::vector<std::array<uint32_t, 3>> triangles;
  std::vector<float> triangle_reflectance;
};

}  // namespace lt
