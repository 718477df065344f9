// The scene loader's reader for `type: forest` objects (configs/README.md, "Forests").
#pragma once

#include <string>
#include <vector>

#include "lidartwin/physics/pose.h"
#include "lidartwin/sim/config_reader.h"
#include "lidartwin/sim/scene.h"

namespace lt {

// Reads a forest entry of a scene's objects and makes its trees: two objects per tree,
// "<name>/tree_<k>/trunk" and "<name>/tree_<k>/foliage", each with its own material and
// semantic class, both with instance id first_instance_id + k, meshes in the forest's local
// frame and `pose` placing that frame in the world. Problems are recorded on `o` by key;
// nothing is made while there are any.
std::vector<SceneObject> ReadForest(ConfigMap& o, const std::string& name,
                                    const physics::Pose<double>& pose,
                                    const MaterialLibrary& materials,
                                    const std::string& library_path);

}  // namespace lt
