#include "lidartwin/datasets/open3d_mesh_loader.h"

#include <open3d/geometry/TriangleMesh.h>
#include <open3d/io/TriangleMeshIO.h>
#include <open3d/utility/Logging.h>

namespace lt {

Expected<TriangleMesh> LoadMeshWithOpen3d(const std::filesystem::path& path) {
  // Open3D logs read failures itself; we report them with our own message instead. Set once:
  // scenes read their files several at a time (scene_loader.cpp), and the level is one global.
  static const bool quiet = [] {
    open3d::utility::SetVerbosityLevel(open3d::utility::VerbosityLevel::Error);
    return true;
  }();
  (void)quiet;
  open3d::geometry::TriangleMesh o3d;
  open3d::io::ReadTriangleMeshOptions options;
  options.enable_post_processing = false;  // keep vertices exactly as stored (NaN included)
  options.print_progress = false;
  if (!open3d::io::ReadTriangleMesh(path.string(), o3d, options)) {
    return Error{path.string() + ": cannot read mesh (unsupported format or malformed file)"};
  }
  if (o3d.triangles_.empty()) return Error{path.string() + ": the mesh has no triangles"};
  TriangleMesh mesh;
  mesh.vertices.reserve(o3d.vertices_.size());
  for (const auto& v : o3d.vertices_)
    mesh.vertices.push_back({v.x(), v.y(), v.z()});
  mesh.triangles.reserve(o3d.triangles_.size());
  for (const auto& t : o3d.triangles_) {
    if (t.x() < 0 || t.y() < 0 || t.z() < 0) {
      return Error{path.string() + ": negative vertex index in a triangle"};
    }
    mesh.triangles.push_back(
        {static_cast<uint32_t>(t.x()), static_cast<uint32_t>(t.y()), static_cast<uint32_t>(t.z())});
  }
  return mesh;
}

}  // namespace lt
