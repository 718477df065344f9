#include "lidartwin/datasets/frame_output.h"

#include <cstdio>
#include <string>

#include "lidartwin/datasets/point_cloud_writers.h"

namespace lt {

namespace {

// frame 3 of out.ply -> out_000003.ply when there are several frames.
std::filesystem::path PerFramePath(const std::filesystem::path& out, uint32_t index,
                                   uint32_t frames) {
  if (frames == 1) return out;
  char suffix[16];
  std::snprintf(suffix, sizeof(suffix), "_%06u", index);
  std::filesystem::path p = out;
  p.replace_filename(out.stem().string() + suffix + out.extension().string());
  return p;
}

}  // namespace

Expected<FrameOutput> FrameOutput::Open(const std::filesystem::path& out, uint32_t frames,
                                        const DatasetInfo& info) {
  FrameOutput o;
  o.out_ = out;
  o.frames_ = frames;
  const std::string ext = out.extension().string();
  if (ext == ".h5" || ext == ".hdf5") {
    o.format_ = Format::kHdf5;
  } else if (ext == ".ply") {
    o.format_ = Format::kPly;
  } else if (ext == ".pcd") {
    o.format_ = Format::kPcd;
  } else {
    return Error{"--out " + out.string() + ": unknown extension '" + ext +
                 "' (expected .h5, .hdf5, .ply or .pcd)"};
  }
  const auto dir = out.has_parent_path() ? out.parent_path() : ".";
  if (!std::filesystem::is_directory(dir)) {
    return Error{"--out " + out.string() + ": directory '" + dir.string() + "' does not exist"};
  }
  if (o.format_ == Format::kHdf5) {
    auto w = Hdf5FrameWriter::Create(out, info);
    if (!w.ok()) return w.error();
    o.writer_ = std::move(w.value());
  }
  return o;
}

Status FrameOutput::Write(const Frame& frame, uint32_t k) {
  switch (format_) {
    case Format::kHdf5:
      return writer_->Append(frame);
    case Format::kPly:
      return WritePly(frame, PerFramePath(out_, k, frames_));
    case Format::kPcd:
      return WritePcd(frame, PerFramePath(out_, k, frames_));
  }
  return {};
}

Status FrameOutput::Close() {
  return writer_ ? writer_->Close() : Status{};
}

}  // namespace lt
