#include "lidartwin/datasets/frame_output.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <cstdio>
#include <regex>
#include <set>
#include <string>
#include <system_error>

#include "lidartwin/base/atomic_file.h"
#include "lidartwin/base/interrupt_cleanup.h"
#include "lidartwin/base/output_set.h"
#include "lidartwin/datasets/las.h"
#include "lidartwin/datasets/point_cloud_writers.h"
#include "rosbag/point_cloud_bag_writer.h"

namespace lt {

namespace {

// Frame k of out.ply: out.ply when it is the only one, else out_000003.ply.
std::filesystem::path PerFramePath(const std::filesystem::path& out, uint32_t k, uint32_t frames) {
  if (frames == 1) return out;
  char suffix[16];
  std::snprintf(suffix, sizeof(suffix), "_%06u", k);
  std::filesystem::path p = out;
  p.replace_filename(out.stem().string() + suffix + out.extension().string());
  return p;
}

std::filesystem::path DirectoryOf(const std::filesystem::path& out) {
  return out.has_parent_path() ? out.parent_path() : std::filesystem::path(".");
}

}  // namespace

// The folder per-frame files are written into until Close(), created registered
// (CreateRegisteredDirectory); removed unless committed.
struct FrameOutput::Staging {
  std::filesystem::path dir;
  explicit Staging(std::filesystem::path d) : dir(std::move(d)) {}
  ~Staging() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    UnregisterTemporaryPath(dir);
  }
  std::filesystem::path FramePath(uint32_t k) const {
    char name[32];
    std::snprintf(name, sizeof(name), "%06u", k);
    return dir / name;
  }
};

FrameOutput::FrameOutput(FrameOutput&&) noexcept = default;
FrameOutput& FrameOutput::operator=(FrameOutput&&) noexcept = default;
FrameOutput::~FrameOutput() = default;

std::string UnknownOutputExtension(const std::filesystem::path& out) {
  const std::string ext = out.extension().string();
  for (const char* known : {".h5", ".hdf5", ".ply", ".pcd", ".las", ".mcap", ".db3"})
    if (ext == known) return {};
  return "unknown extension '" + ext +
         "' (expected .h5, .hdf5, .ply, .pcd, .las, or a ROS 2 bag: .mcap, .db3)";
}

Expected<FrameOutput> FrameOutput::Open(const std::filesystem::path& out, const DatasetInfo& info) {
  FrameOutput o;
  o.out_ = out;
  const std::string ext = out.extension().string();
  if (ext == ".h5" || ext == ".hdf5") {
    o.format_ = Format::kHdf5;
  } else if (ext == ".ply") {
    o.format_ = Format::kPly;
  } else if (ext == ".pcd") {
    o.format_ = Format::kPcd;
  } else if (ext == ".las") {
    o.format_ = Format::kLas;
  } else if (ext == ".mcap" || ext == ".db3") {
    o.format_ = Format::kMcap;  // a ROS 2 bag in either storage
  } else {
    return Error{out.string() + ": " + UnknownOutputExtension(out)};
  }
  if (Status s = CheckOutputTarget(out); !s.ok()) return s.error();
  if (o.format_ == Format::kHdf5) {
    auto w = Hdf5FrameWriter::Create(out, info);
    if (!w.ok()) return w.error();
    o.writer_ = std::move(w.value());
    return o;
  }
  if (o.format_ == Format::kMcap) {
    auto w = ros::PointCloudBagWriter::Create(out);
    if (!w.ok()) return w.error();
    o.bag_ = std::move(w.value());
    return o;
  }
  // ".NAME.frames.tmp-PID" (NAME shortened where the whole would pass 255 bytes); folders of
  // killed runs (their process gone) are removed first.
  const std::string prefix = "." + out.filename().string().substr(0, 200) + ".frames.tmp-";
  // A killed run's commit is finished first: its journal may name files in its staging folder.
  RecoverInterruptedCommits(DirectoryOf(out));
  RemoveLeftoversOfDeadProcesses(DirectoryOf(out), prefix);
  auto dir = DirectoryOf(out) / (prefix + std::to_string(::getpid()));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (Status s = CreateRegisteredDirectory(dir); !s.ok()) {
    return Error{out.string() + ": staging folder " + s.message()};
  }
  o.staging_ = std::make_unique<Staging>(std::move(dir));
  return o;
}

Status FrameOutput::Write(const Frame& frame) {
  const uint32_t k = frames_++;
  Status s;
  switch (format_) {
    case Format::kHdf5:
      return writer_->Append(frame);
    case Format::kMcap:
      return bag_->Append(frame);
    case Format::kPly:
      s = WritePly(frame, staging_->FramePath(k));
      break;
    case Format::kPcd:
      s = WritePcd(frame, staging_->FramePath(k));
      break;
    case Format::kLas:
      s = WriteLas(frame, staging_->FramePath(k));
      break;
  }
  // The staged file's name means nothing to the user: the output and the frame go first.
  if (!s.ok()) return Error{out_.string() + ": frame " + std::to_string(k) + ": " + s.message()};
  return {};
}

Status FrameOutput::Close() {
  if (writer_) {
    if (Status s = writer_->Close(); !s.ok()) return s;
    written_ = {out_};
    return {};
  }
  if (bag_) {
    if (frames_ == 0) return Error{out_.string() + ": no frames to write"};
    if (Status s = bag_->Close(); !s.ok()) return s;
    written_ = {out_};
    return {};
  }
  return ClosePerFrame();
}

Status FrameOutput::ClosePerFrame() {
  if (frames_ == 0) return Error{out_.string() + ": no frames to write"};
  std::vector<std::filesystem::path> targets;
  for (uint32_t k = 0; k < frames_; ++k)
    targets.push_back(PerFramePath(out_, k, frames_));
  // Every name must be writable before anything moves (a directory or link at one of them is
  // refused, never replaced), so a refusal leaves the earlier set untouched.
  for (const auto& t : targets) {
    if (Status s = CheckOutputTarget(t); !s.ok()) return s;
  }
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> moves;
  for (uint32_t k = 0; k < frames_; ++k)
    moves.emplace_back(staging_->FramePath(k), targets[k]);
  // The rest of an earlier, longer run's set (out_NNNNNN.ext not written now) goes in the same
  // commit: a kill between the two never leaves new frames beside old ones.
  std::set<std::string> now;
  for (const auto& t : targets)
    now.insert(t.filename().string());
  const std::regex numbered(
      std::regex_replace(out_.stem().string(), std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
      "_[0-9]{6}" + std::regex_replace(out_.extension().string(), std::regex(R"(\.)"), R"(\.)"));
  std::vector<std::filesystem::path> extras;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(DirectoryOf(out_), ec), end; !ec && it != end;
       it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (std::regex_match(name, numbered) && !now.count(name) && it->is_regular_file())
      extras.push_back(it->path());
  }
  // Numbered frames replace an earlier single-frame run's out.ply too (the same set, named as
  // one frame is): otherwise out.ply would stay beside out_000000.ply as if it were part of it.
  if (frames_ > 1 && std::filesystem::is_regular_file(std::filesystem::symlink_status(out_, ec)))
    extras.push_back(out_);
  const Status status = CommitOutputSet(moves, extras);
  staging_.reset();
  if (!status.ok()) return status;
  written_ = std::move(targets);
  return {};
}

std::string WrittenFilesText(const std::vector<std::filesystem::path>& files) {
  if (files.empty()) return "no files";
  if (files.size() == 1) return files.front().string();
  return files.front().string() + " .. " + files.back().string() + " (" +
         std::to_string(files.size()) + " files)";
}

}  // namespace lt
