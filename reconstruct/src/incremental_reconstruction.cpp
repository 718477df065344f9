#include "lidartwin/reconstruct/incremental_reconstruction.h"

#include <algorithm>
#include <cmath>

namespace lt {

IncrementalReconstruction::IncrementalReconstruction(IncrementalReconstructionOptions options)
    : o_(std::move(options)) {
  o_.mesh.consensus_window_m = 0;
}

int64_t IncrementalReconstruction::VoxelOf(
    const std::array<uint32_t, 3>& t, const std::vector<std::array<double, 3>>& vertices) const {
  // The cell grows with the triangle: a triangle far away or at grazing incidence spans metres,
  // and the same surface seen again from elsewhere puts its centroid anywhere in that span, so
  // it is counted in a cell of its own size (voxel_m times a power of two).
  double longest = 0;
  for (int k = 0; k < 3; ++k) {
    const auto& a = vertices[t[k]];
    const auto& b = vertices[t[(k + 1) % 3]];
    longest = std::max(longest, std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]));
  }
  const int level = std::clamp(
      static_cast<int>(std::floor(std::log2(std::max(longest / o_.voxel_m, 1.0)))), 0, 15);
  const double cell = o_.voxel_m * std::ldexp(1.0, level);
  int64_t key = level;
  for (int axis = 0; axis < 3; ++axis) {
    const double c = (vertices[t[0]][axis] + vertices[t[1]][axis] + vertices[t[2]][axis]) / 3;
    // 19 bits per axis: +-2.6e5 cells, 26 km at 0.1 m (a capture spans kilometres at most;
    // beyond, cells alias, which only loosens the bound).
    const auto v = static_cast<int64_t>(std::floor(c / cell)) & 0x7FFFF;
    key = (key << 19) | v;
  }
  return key;
}

bool IncrementalReconstruction::Admit(int64_t cell, uint32_t frame) {
  Cell& c = layers_[cell];
  if (c.last_frame != frame) {
    c.last_frame = frame;
    c.last_admitted = c.frames < o_.max_layers;
    if (c.last_admitted) ++c.frames;
  }
  return c.last_admitted;
}

void IncrementalReconstruction::Recount() {
  layers_.clear();
  for (size_t t = 0; t < surface_.triangles.size(); ++t)
    Admit(VoxelOf(surface_.triangles[t], surface_.vertices), triangle_frame_[t]);
}

void IncrementalReconstruction::DropUnusedVertices() {
  std::vector<uint32_t> map(surface_.vertices.size(), UINT32_MAX);
  std::vector<std::array<double, 3>> kept;
  for (auto& t : surface_.triangles)
    for (uint32_t& v : t) {
      if (map[v] == UINT32_MAX) {
        map[v] = static_cast<uint32_t>(kept.size());
        kept.push_back(surface_.vertices[v]);
      }
      v = map[v];
    }
  surface_.vertices = std::move(kept);
}

Status IncrementalReconstruction::AddFrame(const Frame& frame, const physics::Pose<double>& start,
                                           const physics::Pose<double>& end,
                                           uint32_t columns_per_frame) {
  PosedFrames one;
  one.frames = {frame};
  one.start_poses = {start};
  one.end_poses = {end};
  one.columns_per_frame = columns_per_frame;
  ++frames_;
  auto mesh = MeshRangeImages(one, o_.mesh);
  if (!mesh.ok()) {
    if (mesh.message().find("no two neighbouring returns") == std::string::npos)
      return mesh.error();
    ++empty_frames_;
    return {};
  }
  // What this frame saw through goes first; then its own triangles, voxel by voxel.
  if (o_.carve && !surface_.triangles.empty()) {
    const std::vector<std::array<uint32_t, 3>> before = surface_.triangles;
    auto carved = CarveSeenThrough(surface_, one, o_.carving);
    if (!carved.ok()) return carved.error();
    carved_ += carved->triangles_removed;
    if (carved->triangles_removed > 0) {
      // Carving keeps the survivors in order: their frames follow them.
      size_t kept = 0;
      for (size_t t = 0; t < before.size() && kept < surface_.triangles.size(); ++t)
        if (before[t] == surface_.triangles[kept]) triangle_frame_[kept++] = triangle_frame_[t];
      triangle_frame_.resize(kept);
      Recount();
    }
  }
  const auto frame_index = static_cast<uint32_t>(frames_);
  std::vector<uint32_t> map(mesh->vertices.size(), UINT32_MAX);
  for (size_t t = 0; t < mesh->triangles.size(); ++t) {
    const auto& tri = mesh->triangles[t];
    if (!Admit(VoxelOf(tri, mesh->vertices), frame_index)) {
      ++left_out_;
      continue;
    }
    std::array<uint32_t, 3> added;
    for (int k = 0; k < 3; ++k) {
      uint32_t& m = map[tri[k]];
      if (m == UINT32_MAX) {
        m = static_cast<uint32_t>(surface_.vertices.size());
        surface_.vertices.push_back(mesh->vertices[tri[k]]);
      }
      added[k] = m;
    }
    surface_.triangles.push_back(added);
    surface_.triangle_reflectance.push_back(mesh->triangle_reflectance[t]);
    triangle_frame_.push_back(frame_index);
  }
  DropUnusedVertices();
  return {};
}

}  // namespace lt
