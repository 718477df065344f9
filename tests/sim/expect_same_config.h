// Field-by-field comparisons of the configuration structs that the round-trip tests of the
// writers use (the public headers are also compiled as C++17 by nvcc, so the structs carry no
// defaulted operator==). A field added to a struct belongs here too.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "lidartwin/sim/material_library.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/trajectory.h"

namespace lt::test {

inline void ExpectSameMaterial(const Material& a, const Material& b, const std::string& what) {
  EXPECT_EQ(a.name, b.name) << what;
  EXPECT_EQ(a.wavelength_nm, b.wavelength_nm) << what << " " << a.name;
  EXPECT_EQ(a.reflectance, b.reflectance) << what << " " << a.name;
  EXPECT_EQ(a.source, b.source) << what << " " << a.name;
  EXPECT_EQ(a.spectrum_file, b.spectrum_file) << what << " " << a.name;
  EXPECT_EQ(a.specular_albedo, b.specular_albedo) << what << " " << a.name;
  EXPECT_EQ(a.specular_exponent, b.specular_exponent) << what << " " << a.name;
  EXPECT_EQ(a.retroreflective_peak_sr, b.retroreflective_peak_sr) << what << " " << a.name;
  EXPECT_EQ(a.retroreflective_max_entrance_deg, b.retroreflective_max_entrance_deg)
      << what << " " << a.name;
  EXPECT_EQ(a.transmittance, b.transmittance) << what << " " << a.name;
  EXPECT_EQ(a.coverage, b.coverage) << what << " " << a.name;
  EXPECT_EQ(a.roughness_deg, b.roughness_deg) << what << " " << a.name;
  EXPECT_EQ(a.apparent, b.apparent) << what << " " << a.name;
}

inline void ExpectSameLibrary(const MaterialLibrary& a, const MaterialLibrary& b,
                              const std::string& what) {
  ASSERT_EQ(a.materials.size(), b.materials.size()) << what;
  for (size_t i = 0; i < a.materials.size(); ++i)
    ExpectSameMaterial(a.materials[i], b.materials[i], what);
}

inline void ExpectSameForest(const ForestDescription& a, const ForestDescription& b,
                             const std::string& what) {
  const ForestParams& p = a.params;
  const ForestParams& q = b.params;
  EXPECT_EQ(p.area_x_m, q.area_x_m) << what;
  EXPECT_EQ(p.area_y_m, q.area_y_m) << what;
  EXPECT_EQ(p.tree_count, q.tree_count) << what;
  EXPECT_EQ(p.trunk_height_m, q.trunk_height_m) << what;
  EXPECT_EQ(p.trunk_radius_m, q.trunk_radius_m) << what;
  EXPECT_EQ(p.crown_radius_m, q.crown_radius_m) << what;
  EXPECT_EQ(p.leaf_size_m, q.leaf_size_m) << what;
  EXPECT_EQ(p.leaves_per_tree, q.leaves_per_tree) << what;
  EXPECT_EQ(p.size_variation, q.size_variation) << what;
  EXPECT_EQ(p.seed, q.seed) << what;
  EXPECT_EQ(a.trunk_material, b.trunk_material) << what;
  EXPECT_EQ(a.foliage_material, b.foliage_material) << what;
  EXPECT_EQ(a.trunk_semantic_class, b.trunk_semantic_class) << what;
  EXPECT_EQ(a.foliage_semantic_class, b.foliage_semantic_class) << what;
  EXPECT_EQ(a.first_instance_id, b.first_instance_id) << what;
}

inline void ExpectSameSceneDescription(const SceneDescription& a, const SceneDescription& b,
                                       const std::string& what) {
  EXPECT_EQ(a.materials, b.materials) << what;
  EXPECT_EQ(a.sunlight, b.sunlight) << what;
  ASSERT_EQ(a.weather.fog.has_value(), b.weather.fog.has_value()) << what;
  if (a.weather.fog) {
    EXPECT_EQ(a.weather.fog->visibility_m, b.weather.fog->visibility_m) << what;
    EXPECT_EQ(a.weather.fog->backscatter, b.weather.fog->backscatter) << what;
    EXPECT_EQ(a.weather.fog->lidar_ratio_sr, b.weather.fog->lidar_ratio_sr) << what;
    EXPECT_EQ(a.weather.fog->semantic_class, b.weather.fog->semantic_class) << what;
  }
  ASSERT_EQ(a.weather.rain.has_value(), b.weather.rain.has_value()) << what;
  if (a.weather.rain) {
    EXPECT_EQ(a.weather.rain->rate_mm_h, b.weather.rain->rate_mm_h) << what;
    EXPECT_EQ(a.weather.rain->min_diameter_mm, b.weather.rain->min_diameter_mm) << what;
    EXPECT_EQ(a.weather.rain->semantic_class, b.weather.rain->semantic_class) << what;
  }
  ASSERT_EQ(a.weather.wet.has_value(), b.weather.wet.has_value()) << what;
  if (a.weather.wet) EXPECT_EQ(a.weather.wet->materials, b.weather.wet->materials) << what;
  ASSERT_EQ(a.weather.snow.has_value(), b.weather.snow.has_value()) << what;
  if (a.weather.snow) {
    EXPECT_EQ(a.weather.snow->rate_mm_h, b.weather.snow->rate_mm_h) << what;
    EXPECT_EQ(a.weather.snow->min_diameter_mm, b.weather.snow->min_diameter_mm) << what;
    EXPECT_EQ(a.weather.snow->flake_reflectance, b.weather.snow->flake_reflectance) << what;
    EXPECT_EQ(a.weather.snow->semantic_class, b.weather.snow->semantic_class) << what;
  }
  ASSERT_EQ(a.weather.spray.has_value(), b.weather.spray.has_value()) << what;
  if (a.weather.spray) {
    EXPECT_EQ(a.weather.spray->visibility_m, b.weather.spray->visibility_m) << what;
    EXPECT_EQ(a.weather.spray->water_film_mm, b.weather.spray->water_film_mm) << what;
    EXPECT_EQ(a.weather.spray->lidar_ratio_sr, b.weather.spray->lidar_ratio_sr) << what;
    EXPECT_EQ(a.weather.spray->semantic_class, b.weather.spray->semantic_class) << what;
  }
  ASSERT_EQ(a.weather.cover.has_value(), b.weather.cover.has_value()) << what;
  if (a.weather.cover) {
    ASSERT_EQ(a.weather.cover->regions.size(), b.weather.cover->regions.size()) << what;
    for (size_t i = 0; i < a.weather.cover->regions.size(); ++i) {
      const CoverRegionDescription& x = a.weather.cover->regions[i];
      const CoverRegionDescription& y = b.weather.cover->regions[i];
      for (int k = 0; k < 2; ++k) {
        EXPECT_EQ(x.azimuth_deg[k], y.azimuth_deg[k]) << what << " region " << i;
        EXPECT_EQ(x.elevation_deg[k], y.elevation_deg[k]) << what << " region " << i;
      }
      EXPECT_EQ(x.transmission, y.transmission) << what << " region " << i;
      EXPECT_EQ(x.backscatter, y.backscatter) << what << " region " << i;
    }
    EXPECT_EQ(a.weather.cover->window_range_m, b.weather.cover->window_range_m) << what;
    EXPECT_EQ(a.weather.cover->semantic_class, b.weather.cover->semantic_class) << what;
  }
  ASSERT_EQ(a.objects.size(), b.objects.size()) << what;
  for (size_t i = 0; i < a.objects.size(); ++i) {
    const SceneObjectDescription& x = a.objects[i];
    const SceneObjectDescription& y = b.objects[i];
    const std::string where = what + " object '" + x.name + "'";
    EXPECT_EQ(x.name, y.name) << where;
    EXPECT_EQ(x.type, y.type) << where;
    EXPECT_EQ(x.position_m, y.position_m) << where;
    EXPECT_EQ(x.rotation_deg, y.rotation_deg) << where;
    EXPECT_EQ(x.material, y.material) << where;
    EXPECT_EQ(x.semantic_class, y.semantic_class) << where;
    EXPECT_EQ(x.instance_id, y.instance_id) << where;
    EXPECT_EQ(x.velocity_m_s, y.velocity_m_s) << where;
    EXPECT_EQ(x.yaw_rate_deg_s, y.yaw_rate_deg_s) << where;
    EXPECT_EQ(x.size_m, y.size_m) << where;
    EXPECT_EQ(x.radius_m, y.radius_m) << where;
    EXPECT_EQ(x.segments, y.segments) << where;
    EXPECT_EQ(x.file, y.file) << where;
    EXPECT_EQ(x.scale, y.scale) << where;
    ExpectSameForest(x.forest, y.forest, where);
  }
}

// Same times, positions and rotations (q and -q are the same rotation); roll, pitch and yaw
// in degrees come back to within a few ulps.
inline void ExpectSameTrajectory(const Trajectory& a, const Trajectory& b) {
  EXPECT_EQ(a.motion_correction, b.motion_correction);
  EXPECT_EQ(a.start_time_s, b.start_time_s);
  ASSERT_EQ(a.poses.size(), b.poses.size());
  EXPECT_EQ(a.time_s, b.time_s);
  for (size_t i = 0; i < a.poses.size(); ++i) {
    const auto& p = a.poses[i];
    const auto& q = b.poses[i];
    EXPECT_EQ(p.translation.x, q.translation.x);
    EXPECT_EQ(p.translation.y, q.translation.y);
    EXPECT_EQ(p.translation.z, q.translation.z);
    const double dot = p.rotation.w * q.rotation.w + p.rotation.x * q.rotation.x +
                       p.rotation.y * q.rotation.y + p.rotation.z * q.rotation.z;
    EXPECT_NEAR(std::abs(dot), 1.0, 1e-15) << "pose " << i;
  }
}

}  // namespace lt::test
