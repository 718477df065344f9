// Reconstruction in bounded memory (issue 12): frames arrive one at a time (a capture of any
// length, streamed), each is meshed from its range image (range_image_mesh.h), carves what
// came before it (visibility_carving.h: what it saw through goes), and adds its triangles
// where the surface does not already hold max_layers frames' triangles per voxel. Memory is bounded
// by the scene's surface (voxels x layers), not by the number of frames. Compared with the batch
// Reconstruct it has no consensus step (that needs every frame at once), and a frame is carved
// only by the frames after it.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "lidartwin/base/status.h"
#include "lidartwin/reconstruct/range_image_mesh.h"
#include "lidartwin/reconstruct/reconstructed_surface.h"
#include "lidartwin/reconstruct/visibility_carving.h"

namespace lt {

struct IncrementalReconstructionOptions {
  RangeImageMeshOptions mesh;  // per frame; its consensus step is not used
  VisibilityCarvingOptions carving;
  bool carve = true;
  // The grid that bounds the surface: a triangle counts in the cell of its centroid, the cell
  // voxel_m times the power of two that reaches its longest edge (levels up to 2^15).
  double voxel_m = 0.1;
  // Frames whose triangles a cell keeps: a frame's own triangles in a cell (a surface seen at
  // its resolution, split at its corners) count as one layer, all kept or all left out.
  int max_layers = 2;
};

class IncrementalReconstruction {
 public:
  explicit IncrementalReconstruction(IncrementalReconstructionOptions options);

  // Adds one frame seen between the two poses (sensor -> world); columns_per_frame as in
  // PosedFrames. A frame that joins into no surface adds nothing (it is counted).
  Status AddFrame(const Frame& frame, const physics::Pose<double>& start,
                  const physics::Pose<double>& end, uint32_t columns_per_frame);

  const ReconstructedSurface& surface() const { return surface_; }
  size_t frames_added() const { return frames_; }
  size_t frames_without_surface() const { return empty_frames_; }
  size_t triangles_carved() const { return carved_; }
  size_t triangles_left_out() const { return left_out_; }  // by the voxel bound

 private:
  int64_t VoxelOf(const std::array<uint32_t, 3>& triangle,
                  const std::vector<std::array<double, 3>>& vertices) const;
  void Recount();  // the cells' frame counts from the surface, after carving removed triangles
  // Whether a triangle of `frame` (frames arrive in order) goes into `cell`: the first of a
  // frame's triangles in a cell decides for all of them.
  bool Admit(int64_t cell, uint32_t frame);
  void DropUnusedVertices();

  IncrementalReconstructionOptions o_;
  ReconstructedSurface surface_;
  struct Cell {
    uint32_t last_frame = UINT32_MAX;  // the latest frame with a triangle here
    uint8_t frames = 0;                // frames with triangles here
    bool last_admitted = false;        // whether last_frame's triangles went in
  };
  std::unordered_map<int64_t, Cell> layers_;  // voxel -> the frames whose triangles it holds
  std::vector<uint32_t> triangle_frame_;      // each triangle's frame, aligned with surface_
  size_t frames_ = 0, empty_frames_ = 0, carved_ = 0, left_out_ = 0;
};

}  // namespace lt
