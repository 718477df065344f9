// The scene loader's reader for `type: forest` objects (configs/README.md, "Forests").
#pragma once

#include <string>
#include <vector>

#include "lidartwin/base/config_reader.h"
#include "lidartwin/physics/pose.h"
#include "lidartwin/sim/scene.h"

namespace lt {

// Reads the keys of a `type: forest` entry of a scene's objects (besides name, type and pose).
// Whole numbers are checked against their type here, ranges by ForestDescription::Check;
// problems are recorded on `o` by key.
ForestDescription ReadForest(ConfigMap& o);

// The objects of a valid forest: two per tree, "<name>/tree_<k>/trunk" and
// "<name>/tree_<k>/foliage", each with its own material and semantic class, both with
// instance id first_instance_id + k, meshes in the forest's local frame and `pose` placing
// that frame in the world.
// The triangles a forest makes, and the most a scene's forests may make together: 2 x 10^7
// take about 6 GB with the ray caster's copy (about 300 bytes each).
double ForestTriangles(const ForestParams& params);
inline constexpr double kMostForestTriangles = 2e7;

std::vector<SceneObject> MakeForest(const ForestDescription& forest, const std::string& name,
                                    const physics::Pose<double>& pose, uint32_t trunk_material,
                                    uint32_t foliage_material);

}  // namespace lt
