// The top level of the GPU's two-level tree (issue 42, docs/adr/0030), built on the host: a
// scene places tens to thousands of instances, whose tree builds in microseconds to a
// millisecond on one core, and goes to the device with the instances' transforms in the same
// copy. Rebuilt whenever the instances move (each motion slice).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "lidartwin/physics/bvh.h"
#include "lidartwin/physics/bvh_collapse.h"
#include "lidartwin/physics/rigid_transform.h"

namespace lt {

// The bounding box of a model's triangles in its own frame.
physics::BvhBox ModelBox(const std::vector<std::array<double, 3>>& vertices);

// The world box holding a model box placed by x: its eight corners placed in double, rounded
// outward to float and widened by 1e-6 of its extent, 1 mm and 8 float spacings at its largest
// coordinate, so that a ray moved into the model's frame in float (whose rounding puts its
// hits up to a few float spacings of the world coordinates off) never misses an instance its
// box would have let through.
physics::BvhBox PlacedBox(const physics::BvhBox& model_box, const physics::RigidTransform& x);

// A four-wide tree over boxes whose leaves' ids are the boxes' indices: a binary tree by binned
// SAH over the boxes' centres (16 bins, the median where SAH finds no split or the tree grows
// deeper than 32 levels), collapsed as the GPU's trees are (bvh_collapse.h). Empty for none.
physics::WideBvhTree BuildBoxTree(const std::vector<physics::BvhBox>& boxes);
// The same over triangles, whose leaves hold them: a host tree for small meshes and the tests.
physics::WideBvhTree BuildTriangleTree(const std::vector<physics::BvhTriangle>& triangles);

}  // namespace lt
