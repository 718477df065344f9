// The scene loader's reader for `type: street` objects (configs/README.md, "Streets").
#pragma once

#include <string>
#include <vector>

#include "lidartwin/base/config_reader.h"
#include "lidartwin/physics/pose.h"
#include "lidartwin/sim/scene.h"

namespace lt {

// Reads the keys of a `type: street` entry of a scene's objects (besides name, type and pose);
// problems are recorded on `o` by key, ranges are StreetDescription::Check's.
StreetDescription ReadStreet(ConfigMap& o);

// The materials of a street's four kinds of object, by id in the scene's library.
struct StreetMaterials {
  uint32_t road = 0, building = 0, car = 0, pedestrian = 0;
};

// The objects of a valid street: "<name>/road" (the ground tiles), "<name>/building_<k>",
// "<name>/car_<k>" and "<name>/pedestrian_<k>", each with its semantic class, an instance id
// of its own from first_instance_id on (buildings, cars, pedestrians in turn), meshes in the
// city's frame and `pose` placing that frame (the loader takes them to the world), and the
// cars and pedestrians moving (their velocities in the world).
std::vector<SceneObject> MakeStreet(const StreetDescription& street, const std::string& name,
                                    const physics::Pose<double>& pose,
                                    const StreetMaterials& materials);

}  // namespace lt
