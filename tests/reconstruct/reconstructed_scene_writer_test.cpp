// The reconstructed scene's meshes as written (reconstruct/src/reconstructed_scene_writer.cpp):
// one PLY per reflectance class, written several at a time, each worker renumbering through
// one table for all of its files. Read back by hand, every file holds exactly the vertices its
// triangles use, and the files together hold every triangle of the surface once, in place.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lidartwin/reconstruct/reconstruction.h"
#include "reconstruction_steps.h"
#include "test_support.h"

namespace lt {
namespace {

struct PlyMesh {
  std::vector<std::array<double, 3>> vertices;
  std::vector<std::array<int32_t, 3>> faces;
};

// The writer's binary little-endian layout: x, y, z as doubles, faces as a uchar count of 3
// and three int32 indices.
PlyMesh ReadPly(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  size_t vertices = 0, faces = 0;
  while (std::getline(in, line) && line != "end_header") {
    std::istringstream words(line);
    std::string keyword, element;
    size_t count = 0;
    if (words >> keyword >> element >> count && keyword == "element")
      (element == "vertex" ? vertices : faces) = count;
  }
  PlyMesh m;
  m.vertices.resize(vertices);
  in.read(reinterpret_cast<char*>(m.vertices.data()),
          static_cast<std::streamsize>(vertices * sizeof(m.vertices[0])));
  for (size_t f = 0; f < faces; ++f) {
    uint8_t count = 0;
    std::array<int32_t, 3> ids{};
    in.read(reinterpret_cast<char*>(&count), 1);
    in.read(reinterpret_cast<char*>(ids.data()), sizeof ids);
    EXPECT_EQ(count, 3) << path;
    m.faces.push_back(ids);
  }
  EXPECT_TRUE(in.good()) << path << " is shorter than its header says";
  EXPECT_EQ(in.peek(), std::char_traits<char>::eof()) << path << " is longer than its header says";
  return m;
}

using Corner = std::array<double, 3>;
using Triangle = std::array<Corner, 3>;

TEST(ReconstructedSceneWriter, EachClassFileHoldsItsTrianglesAndOnlyTheirVertices) {
  // A 60 x 60 grid of vertices on a wall; the triangles' reflectances run through 40 values,
  // so neighbouring triangles, which share vertices, fall into different classes (and files).
  constexpr int kSide = 60;
  ReconstructedSurface surface;
  for (int i = 0; i < kSide; ++i)
    for (int j = 0; j < kSide; ++j)
      surface.vertices.push_back({10.0, 0.1 * i + 1e-3 * j, 0.1 * j});
  for (int i = 0; i + 1 < kSide; ++i) {
    for (int j = 0; j + 1 < kSide; ++j) {
      const uint32_t v = static_cast<uint32_t>(i * kSide + j);
      surface.triangles.push_back({v, v + 1, v + kSide});
      surface.triangles.push_back({v + 1, v + kSide + 1, v + kSide});
    }
  }
  for (size_t t = 0; t < surface.triangles.size(); ++t)
    surface.triangle_reflectance.push_back(
        static_cast<float>(0.02 * std::pow(40.0, static_cast<double>((t * 7) % 40) / 39)));
  test::TempDir dir;
  ReconstructOptions o;
  ReconstructionSummary summary;
  ASSERT_TRUE(reconstruction::WriteReconstructedScene(surface, o, dir / "scene", summary).ok());

  std::multiset<Triangle> written;
  size_t files = 0;
  for (const auto& path : summary.written) {
    if (path.extension() != ".ply") continue;
    ++files;
    const PlyMesh m = ReadPly(path);
    ASSERT_FALSE(m.faces.empty()) << path;
    std::vector<bool> used(m.vertices.size(), false);
    for (const auto& f : m.faces) {
      Triangle corners;
      for (int c = 0; c < 3; ++c) {
        ASSERT_GE(f[c], 0) << path;
        ASSERT_LT(static_cast<size_t>(f[c]), m.vertices.size()) << path;
        used[f[c]] = true;
        corners[c] = m.vertices[f[c]];
      }
      written.insert(corners);
    }
    EXPECT_TRUE(std::all_of(used.begin(), used.end(), [](bool u) { return u; }))
        << path << " holds a vertex none of its triangles uses";
  }
  // Enough classes that each writer thread writes several files through its one table.
  EXPECT_GE(files, 20u);
  std::multiset<Triangle> surface_triangles;
  for (const auto& t : surface.triangles)
    surface_triangles.insert(
        {surface.vertices[t[0]], surface.vertices[t[1]], surface.vertices[t[2]]});
  EXPECT_TRUE(written == surface_triangles)
      << written.size() << " triangles written of " << surface_triangles.size();
}

}  // namespace
}  // namespace lt
