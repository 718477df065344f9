// Where a command's frames go: one HDF5 file (written atomically on Close), or one PLY/PCD
// file per frame (name_000003.ply when there are several), chosen by the extension of --out.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

#include "lidartwin/datasets/hdf5_frames.h"
#include "lidartwin/sim/frame.h"
#include "lidartwin/sim/status.h"

namespace lt {

class FrameOutput {
 public:
  // Checks the extension and the directory; `info` describes an HDF5 file.
  static Expected<FrameOutput> Open(const std::filesystem::path& out, uint32_t frames,
                                    const DatasetInfo& info);
  Status Write(const Frame& frame, uint32_t k);
  Status Close();

 private:
  enum class Format { kHdf5, kPly, kPcd };
  std::filesystem::path out_;
  uint32_t frames_ = 1;
  Format format_ = Format::kHdf5;
  std::unique_ptr<Hdf5FrameWriter> writer_;
};

}  // namespace lt
