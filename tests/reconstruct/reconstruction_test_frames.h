// Frames for the reconstruction tests (issue 12), simulated by the CPU reference simulator from
// scenes of planes, so every return lies exactly on a known surface.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lidartwin/reconstruct/reconstructed_surface.h"
#include "lidartwin/sim/simulator.h"
#include "sim/sim_test_scenes.h"

namespace lt::test {

// One frame of `scene` seen from a static sensor at `position` (no rotation).
inline Frame SimulatedFrame(const Scene& scene, const SensorProfile& profile,
                            physics::Vec3<double> position) {
  Trajectory trajectory;
  trajectory.time_s = {0};
  trajectory.poses = {{{1, 0, 0, 0}, position}};
  auto simulator = CreateSimulator(Backend::kCpu, scene, profile, trajectory, {});
  EXPECT_TRUE(simulator.ok()) << simulator.message();
  auto frame = (*simulator)->Simulate(0);
  EXPECT_TRUE(frame.ok()) << frame.message();
  return *frame;
}

// The frames with static poses at the given positions.
inline PosedFrames Posed(std::vector<Frame> frames,
                         const std::vector<physics::Vec3<double>>& positions) {
  PosedFrames in;
  in.frames = std::move(frames);
  for (const auto& p : positions) {
    in.start_poses.push_back({{1, 0, 0, 0}, p});
    in.end_poses.push_back({{1, 0, 0, 0}, p});
  }
  return in;
}

// A wall of reflectance r0 whose face is the plane x = distance_m (20 m x 20 m).
inline SceneObject Wall(double distance_m, uint32_t material = 0, uint32_t instance = 1) {
  return Placed("wall", MakePlate(20, 20), {distance_m, 0, 0}, 0, 0, 0, material, instance, 1);
}

// A 2 m plate 5 m ahead of the wall that is gone in the second scene (a car that drove away).
struct PlateThatLeaves {
  Scene with_plate, wall_only;
  PlateThatLeaves() {
    with_plate.materials = wall_only.materials = ConstantMaterials({0.5});
    with_plate.objects = {Wall(10), Placed("plate", MakePlate(2, 2), {5, 0, 0}, 0, 0, 0, 0, 2, 1)};
    wall_only.objects = {Wall(10)};
  }
};

}  // namespace lt::test
