// Small scenes and sensors built in code for the simulator tests.
#pragma once

#include <gtest/gtest.h>

#include "test_support.h"

#include <string>
#include <utility>
#include <vector>

#include "lidartwin/physics/pose.h"
#include "lidartwin/physics/scan_pattern.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::test {

// An object from a local mesh placed at a pose (roll, pitch, yaw in degrees).
inline SceneObject Placed(const std::string& name, TriangleMesh mesh, physics::Vec3<double> at,
                          double roll_deg, double pitch_deg, double yaw_deg, uint32_t material,
                          uint32_t instance, uint16_t semantic) {
  SceneObject o;
  o.name = name;
  o.material_id = material;
  o.instance_id = instance;
  o.semantic_class = semantic;
  o.pose = {
      physics::QuatFromRollPitchYaw(roll_deg * physics::kDegToRad, pitch_deg * physics::kDegToRad,
                                    yaw_deg * physics::kDegToRad),
      at};
  for (auto& v : mesh.vertices) {
    const auto w = physics::TransformPoint(o.pose, physics::Vec3<double>{v[0], v[1], v[2]});
    v = {w.x, w.y, w.z};
  }
  o.mesh = std::move(mesh);
  return o;
}

// Materials of constant reflectance, in order.
inline MaterialLibrary ConstantMaterials(const std::vector<double>& reflectances) {
  MaterialLibrary lib;
  for (size_t i = 0; i < reflectances.size(); ++i) {
    lib.materials.push_back({"m" + std::to_string(i), {1.0}, {reflectances[i]}, "test material"});
  }
  return lib;
}

// A shipped sensor profile (configs/sensors/FILE); a test that cannot load it fails.
inline SensorProfile ShippedSensor(const std::string& file) {
  auto p = LoadSensorProfile(ConfigDir() / "sensors" / file);
  EXPECT_TRUE(p.ok()) << p.message();
  return p.ok() ? *p : SensorProfile{};
}

// A spinning sensor with evenly spaced channels, simultaneous firing, ideal detector.
inline SensorProfile SpinningSensor(int channels, double top_deg, double bottom_deg,
                                    uint32_t columns, double rate_hz) {
  SensorProfile p;
  p.name = "test_spinning";
  p.wavelength_nm = 905;
  p.min_range_m = 0.1;
  p.max_range_m = 1000;
  p.scan = ScanKind::kSpinning;
  for (int k = 0; k < channels; ++k) {
    const double e =
        channels == 1 ? top_deg : top_deg - (top_deg - bottom_deg) * k / (channels - 1);
    p.elevation_rad.push_back(e * physics::kDegToRad);
    p.azimuth_offset_rad.push_back(0);
    p.firing_offset_s.push_back(0);
  }
  p.columns = columns;
  p.rotation_rate_hz = rate_hz;
  p.detector.kind = DetectorKind::kIdeal;
  return p;
}

// One beam along +x (one channel, one column per `columns`) with a threshold detector: a 20 W
// pulse of 4 ns (sigma_r = 0.2546 m) through a 25 mm aperture, T = 1e-8 W, peak ranges, the
// first of up to 4 echoes, up to 4 surfaces a sub-ray.
inline SensorProfile ThresholdBeam(uint32_t columns = 1) {
  SensorProfile p = SpinningSensor(1, 0, 0, columns, 10);
  p.clockwise = false;
  p.detector.kind = DetectorKind::kThreshold;
  p.detector.link = {20.0, 0.025, 0.9, 0.0};
  p.detector.pulse_width_ns = 4;  // sigma_r = 0.2546 m
  p.detector.threshold_w = 1e-8;
  p.detector.echo_range = physics::EchoRange::kPeak;
  p.detector.return_mode = physics::ReturnMode::kFirst;
  p.detector.max_echoes = 4;
  p.detector.walk_reference_power_w = 1e-7;
  p.detector.max_surfaces_per_sub_ray = 4;
  return p;
}

}  // namespace lt::test
