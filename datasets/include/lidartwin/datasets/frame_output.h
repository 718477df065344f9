// Where a command's frames go: one HDF5 file, one ROS 2 bag (.mcap: a PointCloud2 a frame with
// /tf and /tf_static, rosbag/point_cloud_bag_writer.h), or one PLY/PCD/LAS file per frame
// (out.ply for a single frame, out_000000.ply, out_000001.ply, ... for several), chosen by the
// extension of --out. Either way the output is complete or absent: frames are staged beside the
// target (out.h5.tmp-PID, or a folder .out.ply.frames.tmp-PID) and moved into place by Close(); a
// run that fails or is interrupted leaves the existing outputs as they were and no temporaries.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"
#include "lidartwin/datasets/hdf5_frames.h"

namespace lt {

namespace ros {
class PointCloudBagWriter;
}

class FrameOutput {
 public:
  // Checks the extension and the directory; `info` describes an HDF5 file.
  static Expected<FrameOutput> Open(const std::filesystem::path& out, const DatasetInfo& info);
  FrameOutput(FrameOutput&&) noexcept;
  FrameOutput& operator=(FrameOutput&&) noexcept;
  ~FrameOutput();

  // Frames in order, as they are produced (nothing is kept in memory).
  Status Write(const Frame& frame);
  // Moves everything into place. Per-frame outputs replace the whole earlier set: files
  // out_NNNNNN.ext (six digits) that this run did not write are removed, and so is out.ext
  // itself when this run wrote several frames, so a run never mixes with an earlier one of
  // another length.
  Status Close();
  // After Close(): the files written, in frame order.
  const std::vector<std::filesystem::path>& written() const { return written_; }
  uint32_t frames_written() const { return frames_; }

 private:
  enum class Format { kHdf5, kMcap, kPly, kPcd, kLas };  // kMcap: a ROS 2 bag, .mcap or .db3
  struct Staging;
  FrameOutput() = default;
  Status ClosePerFrame();

  std::filesystem::path out_;
  Format format_ = Format::kHdf5;
  uint32_t frames_ = 0;
  std::unique_ptr<Hdf5FrameWriter> writer_;
  std::unique_ptr<ros::PointCloudBagWriter> bag_;
  std::unique_ptr<Staging> staging_;
  std::vector<std::filesystem::path> written_;
};

// Empty when `out`'s extension names a format FrameOutput writes; else the error text
// "unknown extension '.txt' (expected .h5, .hdf5, .ply, .pcd, .las, or a ROS 2 bag: ...)".
std::string UnknownOutputExtension(const std::filesystem::path& out);

// For summary lines: "out.h5", or "out_000000.ply .. out_000009.ply (10 files)".
std::string WrittenFilesText(const std::vector<std::filesystem::path>& files);

}  // namespace lt
