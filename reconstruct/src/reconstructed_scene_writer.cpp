// The reconstructed scene on disk (issues 4 and 12): the surface split into reflectance
// classes, one PLY mesh and one material per class, and the scene YAML, written all or nothing.
#include <open3d/geometry/TriangleMesh.h>

#include <Eigen/Core>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <deque>
#include <fstream>
#include <numbers>

#include "lidartwin/base/atomic_file.h"
#include "lidartwin/base/host_cores.h"
#include "lidartwin/base/order_statistics.h"
#include "lidartwin/base/output_set.h"
#include "lidartwin/base/parallel_for.h"
#include "lidartwin/sim/material_library.h"
#include "lidartwin/sim/scene.h"
#include "reconstruction_steps.h"

namespace lt::reconstruction {

namespace {

// One reflectance class's mesh as binary little-endian PLY (vertices as doubles, faces as
// uchar-counted int lists), holding only the vertices its triangles use. Written here rather
// than by Open3D, whose RPly printed a line per failed value on a full disk (issue 36: 140 KB)
// and reported success after a short write. `renumbered` has an entry per vertex, all -1, and
// is left so: one table for every file a worker writes (one zeroed per file was 2.4 GB of page
// faults on an OS-1-128 fold, a third of writing its 200 files).
Status WriteMeshPly(const std::filesystem::path& temp, const std::filesystem::path& target,
                    const std::vector<Eigen::Vector3d>& vertices,
                    const std::vector<Eigen::Vector3i>& triangles,
                    std::vector<int32_t>& renumbered) {
  std::vector<uint32_t> kept;
  struct Reset {  // however this returns
    std::vector<int32_t>& table;
    const std::vector<uint32_t>& kept;
    ~Reset() {
      for (uint32_t v : kept)
        table[v] = -1;
    }
  } reset{renumbered, kept};
  for (const auto& t : triangles) {
    for (int c = 0; c < 3; ++c) {
      if (renumbered[t[c]] < 0) {
        renumbered[t[c]] = static_cast<int32_t>(kept.size());
        kept.push_back(static_cast<uint32_t>(t[c]));
      }
    }
  }
  std::ofstream out(temp, std::ios::binary);
  if (!out) return Error{target.string() + ": cannot open for writing: " + std::strerror(errno)};
  out << "ply\nformat binary_little_endian 1.0\ncomment lidartwin reconstruct\nelement vertex "
      << kept.size() << "\nproperty double x\nproperty double y\nproperty double z\n"
      << "element face " << triangles.size()
      << "\nproperty list uchar int vertex_indices\nend_header\n";
  std::string buffer;
  const auto flush = [&](bool last) {
    if (buffer.size() < (1u << 20) && !last) return;
    out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    buffer.clear();
  };
  const auto put = [&](const void* p, size_t n) { buffer.append(static_cast<const char*>(p), n); };
  for (uint32_t v : kept) {
    put(vertices[v].data(), 3 * sizeof(double));
    flush(false);
  }
  for (const auto& t : triangles) {
    const uint8_t three = 3;
    const int32_t ids[3] = {renumbered[t[0]], renumbered[t[1]], renumbered[t[2]]};
    put(&three, 1);
    put(ids, sizeof ids);
    flush(false);
  }
  flush(true);
  out.flush();
  if (!out) return Error{target.string() + ": cannot write the mesh: " + std::strerror(errno)};
  return {};
}

}  // namespace

Status WriteReconstructedScene(const ReconstructedSurface& surface, const ReconstructOptions& o,
                               const std::filesystem::path& out_dir,
                               ReconstructionSummary& summary) {
  // Classes: R0 in bins of equal ratio between kMinReadReflectance and the reading's largest
  // (1, or an apparent R0 above it: IntensityReading::max_reflectance) (a surface's intensity
  // error is relative: linear bins of 0.1 put every surface darker than 10 % in one class, the
  // dark majority of a raw sensor's scene at up to twice its reading); a triangle no return
  // measured gets the median.
  std::vector<float> known;
  for (float r : surface.triangle_reflectance)
    if (std::isfinite(r)) known.push_back(r);
  if (known.empty()) return Error{"reconstruct: no point has a usable incidence angle"};
  const double median_r0 = Median(known);
  const double r_max = std::max(1.0, o.reading.max_reflectance);
  std::vector<std::vector<Eigen::Vector3i>> by_class(o.reflectance_bins);
  std::vector<double> class_sum(o.reflectance_bins, 0.0);
  for (size_t t = 0; t < surface.triangles.size(); ++t) {
    const float r_t = surface.triangle_reflectance[t];
    const double r = std::isfinite(r_t) ? std::clamp<double>(r_t, 0, r_max) : median_r0;
    const double place = std::log(std::max(r, kMinReadReflectance) / kMinReadReflectance) /
                         std::log(r_max / kMinReadReflectance);
    const int bin =
        std::clamp(static_cast<int>(place * o.reflectance_bins), 0, o.reflectance_bins - 1);
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
  const bool existed = std::filesystem::exists(out_dir, ec);
  std::filesystem::create_directories(out_dir, ec);
  if (ec) return Error{fmt::format("{}: cannot create: {}", out_dir.string(), ec.message())};
  // A folder made for this run goes again if the run fails (issue 36: an empty --out folder was
  // left); remove() leaves it if anything else is in it.
  struct RemoveIfFailed {
    const std::filesystem::path& dir;
    bool armed;
    ~RemoveIfFailed() {
      std::error_code ignored;
      if (armed) std::filesystem::remove(dir, ignored);
    }
  } made{out_dir, !existed};
  MaterialLibrary materials;
  SceneDescription scene;
  scene.materials = "materials.yaml";  // beside the scene, as are the meshes
  // Every file is written to its temporary first and all are moved into place at the end: a
  // failure or an interruption leaves the earlier reconstruction as it was.
  std::deque<AtomicOutput> pending;
  std::vector<int> classes;  // those with triangles
  for (int b = 0; b < o.reflectance_bins; ++b) {
    if (by_class[b].empty()) continue;
    const auto ply = out_dir / fmt::format("surface_r{:03d}.ply", b);
    if (Status s = CheckOutputTarget(ply); !s.ok()) return s;
    pending.emplace_back(ply);
    classes.push_back(b);
  }
  // The meshes several at a time, each worker through its own table (200 files, 100 MB on an
  // OS-1-128 fold: 0.36 s on one core); a failure is reported as the first class's.
  const size_t workers = std::min<size_t>(classes.size(), std::min(8u, UsableCores()));
  std::vector<Status> written(classes.size());
  ParallelFor(workers, [&](size_t w) {
    std::vector<int32_t> renumbered(vertices_of.size(), -1);
    for (size_t i = w; i < classes.size(); i += workers)
      written[i] = WriteMeshPly(pending[i].temp_path(), pending[i].target(), vertices_of,
                                by_class[classes[i]], renumbered);
  });
  for (const Status& s : written)
    if (!s.ok()) return s;
  for (const int b : classes) {
    const double mean = class_sum[b] / static_cast<double>(by_class[b].size());
    const std::string name = fmt::format("surface_r{:03d}", b);
    summary.written.push_back(out_dir / (name + ".ply"));
    Material material;
    material.name = name;
    material.wavelength_nm = {kFlatSpectrumWavelengthNm};
    material.reflectance = {mean};
    material.apparent = mean > 1;
    // Read through the surfaces' roughness, rendered through it (IntensityReading::Shading).
    material.roughness_deg = o.reading.roughness_rad * 180 / std::numbers::pi;
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
      "eq. 4, or through the surfaces' roughness where the sensor's was measured), one material\n"
      "per reflectance class: the mean over the class's triangles.");
  const std::string scene_text =
      SaveScene(scene, "Reconstructed by `lidartwin reconstruct` from recorded frames.");
  for (const auto& [file, text] : {std::pair{out_dir / "materials.yaml", &materials_text},
                                   std::pair{out_dir / "scene.yaml", &scene_text}}) {
    if (Status s = CheckOutputTarget(file); !s.ok()) return s;
    AtomicOutput& out = pending.emplace_back(file);
    if (Status s = WriteText(out, *text); !s.ok()) return s;
    summary.written.push_back(file);
  }
  // All files in place as one set (CommitOutputSet): the earlier reconstruction or this one.
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> moves;
  for (const AtomicOutput& out : pending)
    moves.emplace_back(out.temp_path(), out.target());
  if (Status s = CommitOutputSet(moves); !s.ok()) return s;
  made.armed = false;
  summary.triangles = surface.triangles.size();
  return {};
}

}  // namespace lt::reconstruction
