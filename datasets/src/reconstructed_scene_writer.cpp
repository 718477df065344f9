// The reconstructed scene on disk (issues 4 and 12): the surface split into reflectance
// classes, one PLY mesh and one material per class, and the scene YAML, written all or nothing.
#include <open3d/geometry/TriangleMesh.h>
#include <open3d/io/TriangleMeshIO.h>
#include <open3d/utility/Logging.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <fstream>

#include "lidartwin/datasets/atomic_file.h"
#include "lidartwin/datasets/interrupt_cleanup.h"
#include "lidartwin/datasets/order_statistics.h"
#include "lidartwin/sim/material_library.h"
#include "lidartwin/sim/scene.h"
#include "reconstruction_steps.h"

namespace lt::reconstruction {

Status WriteReconstructedScene(const ReconstructedSurface& surface, const ReconstructOptions& o,
                               const std::filesystem::path& out_dir,
                               ReconstructionSummary& summary) {
  // Classes: R0 in bins of 1 / reflectance_bins; a triangle no return measured gets the median.
  std::vector<float> known;
  for (float r : surface.triangle_reflectance)
    if (std::isfinite(r)) known.push_back(r);
  if (known.empty()) return Error{"reconstruct: no point has a usable incidence angle"};
  const double median_r0 = Median(known);
  std::vector<std::vector<Eigen::Vector3i>> by_class(o.reflectance_bins);
  std::vector<double> class_sum(o.reflectance_bins, 0.0);
  for (size_t t = 0; t < surface.triangles.size(); ++t) {
    const float r_t = surface.triangle_reflectance[t];
    const double r = std::isfinite(r_t) ? std::clamp<double>(r_t, 0, 1) : median_r0;
    const int bin = std::clamp(static_cast<int>(r * o.reflectance_bins), 0, o.reflectance_bins - 1);
    const auto& tri = surface.triangles[t];
    by_class[bin].emplace_back(tri[0], tri[1], tri[2]);
    class_sum[bin] += r;
  }
  std::vector<Eigen::Vector3d> vertices_of;
  vertices_of.reserve(surface.vertices.size());
  for (const auto& v : surface.vertices)
    vertices_of.emplace_back(v[0], v[1], v[2]);
  std::vector<bool> used(surface.vertices.size(), false);
  for (const auto& t : surface.triangles)
    for (uint32_t v : t)
      used[v] = true;
  summary.vertices = static_cast<size_t>(std::count(used.begin(), used.end(), true));

  // Write one mesh per class, the materials and the scene.
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) return Error{fmt::format("{}: cannot create: {}", out_dir.string(), ec.message())};
  MaterialLibrary materials;
  SceneDescription scene;
  scene.materials = "materials.yaml";  // beside the scene, as are the meshes
  // Every file is written to its temporary first and all are moved into place at the end: a
  // failure or an interruption leaves the earlier reconstruction as it was.
  std::deque<AtomicOutput> pending;
  for (int b = 0; b < o.reflectance_bins; ++b) {
    if (by_class[b].empty()) continue;
    const double mean = class_sum[b] / static_cast<double>(by_class[b].size());
    const std::string name = fmt::format("surface_r{:02d}", b);
    const auto ply = out_dir / (name + ".ply");
    if (Status s = CheckOutputTarget(ply); !s.ok()) return s;
    AtomicOutput& out = pending.emplace_back(ply);
    auto tmp = out.temp_path();
    tmp += ".ply";  // Open3D picks the writer by extension
    RegisterTemporaryPath(tmp);
    bool written = false;
    size_t vertices = 0;
    // Open3D's complaints about a short file stay quiet: the error below says it (RPly writes
    // its own lines to stderr regardless).
    open3d::utility::VerbosityContextManager quiet(open3d::utility::VerbosityLevel::Error);
    quiet.Enter();
    const Status wrote = Open3dStep("writing a mesh", [&] {
      open3d::geometry::TriangleMesh part;
      part.vertices_ = vertices_of;
      part.triangles_ = by_class[b];
      part.RemoveUnreferencedVertices();
      vertices = part.vertices_.size();
      written = open3d::io::WriteTriangleMesh(tmp.string(), part,
                                              /*write_ascii=*/false);
      // Open3D reports success after its PLY writer failed to write
      // (a full disk): read the file back and count.
      open3d::geometry::TriangleMesh back;
      written = written && open3d::io::ReadTriangleMesh(tmp.string(), back) &&
                back.vertices_.size() == vertices && back.triangles_.size() == by_class[b].size();
    });
    quiet.Exit();
    if (!wrote.ok() || !written) {
      // Open3D gives no reason; a full file system (seen while the partial file still fills
      // it) is the one a user can act on.
      const auto space = std::filesystem::space(out_dir, ec);
      const std::string why = !wrote.ok()                   ? wrote.message()
                              : !ec && space.available == 0 ? "No space left on device"
                                                            : "the PLY writer failed";
      std::filesystem::remove(tmp, ec);
      UnregisterTemporaryPath(tmp);
      return Error{fmt::format("{}: cannot write the mesh: {}", ply.string(), why)};
    }
    std::filesystem::rename(tmp, out.temp_path(), ec);
    UnregisterTemporaryPath(tmp);
    if (ec) {
      const std::string why = ec.message();
      std::filesystem::remove(tmp, ec);
      return Error{fmt::format("{}: cannot move into place: {}", ply.string(), why)};
    }
    summary.written.push_back(ply);
    Material material;
    material.name = name;
    material.wavelength_nm = {kFlatSpectrumWavelengthNm};
    material.reflectance = {mean};
    material.source = fmt::format("estimated from {} triangles", by_class[b].size());
    materials.materials.push_back(std::move(material));
    SceneObjectDescription object;
    object.name = name;
    object.type = "mesh";
    object.file = name + ".ply";
    object.material = name;
    object.semantic_class = 1;
    object.instance_id = static_cast<uint32_t>(b + 1);
    scene.objects.push_back(std::move(object));
    summary.reflectance_classes.emplace_back(mean, by_class[b].size());
  }
  // Through the writers of the two schemas (house rule 13); what they write must load.
  LT_CHECK(materials.Validate().ok() && scene.Validate().ok());
  const std::string materials_text = SaveMaterialLibrary(
      materials,
      "Reflectances estimated by `lidartwin reconstruct` (R0 = I / (100 cos theta), seed 000\n"
      "eq. 4), one material per reflectance class: the mean over the class's triangles.");
  const std::string scene_text =
      SaveScene(scene, "Reconstructed by `lidartwin reconstruct` from recorded frames.");
  for (const auto& [file, text] : {std::pair{out_dir / "materials.yaml", &materials_text},
                                   std::pair{out_dir / "scene.yaml", &scene_text}}) {
    if (Status s = CheckOutputTarget(file); !s.ok()) return s;
    AtomicOutput& out = pending.emplace_back(file);
    std::ofstream stream(out.temp_path(), std::ios::binary);
    stream << *text;
    stream.close();
    if (!stream) return Error{file.string() + ": write failed (disk full?)"};
    summary.written.push_back(file);
  }
  for (AtomicOutput& out : pending) {
    if (Status s = out.Commit(); !s.ok()) return s;
  }
  summary.triangles = surface.triangles.size();
  return {};
}

}  // namespace lt::reconstruction
