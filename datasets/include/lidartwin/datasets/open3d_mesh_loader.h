// Mesh files (PLY, OBJ, STL, OFF, GLTF) read with Open3D, for the scene loader's MeshLoader.
#pragma once

#include <filesystem>

#include "lidartwin/sim/scene.h"

namespace lt {

Expected<TriangleMesh> LoadMeshWithOpen3d(const std::filesystem::path& path);

}  // namespace lt
