#include "lidartwin/compare/comparison_loader.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <tuple>

#include "lidartwin/compare/targets.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::compare {
namespace {

// The recording with the frames at `chosen` (positions in the file, in that order), or all of
// them when `chosen` is empty. Frames are streamed and only the chosen ones kept, so memory
// follows the frames chosen, not the capture's length.
Expected<Recording> ReadChosenFrames(const std::string& file, const std::string& sidecar,
                                     const RecordingOptions& options,
                                     const std::vector<uint32_t>& chosen) {
  if (chosen.empty()) return ReadRecording(file, sidecar, options);
  for (size_t i = 0; i < chosen.size(); ++i)
    if (std::find(chosen.begin(), chosen.begin() + i, chosen[i]) != chosen.begin() + i)
      return Error{fmt::format("frame {} of {} is listed twice", chosen[i], file)};
  std::vector<Frame> kept(chosen.size());
  uint64_t position = 0;
  auto header = ForEachRecordingFrame(file, sidecar, options, [&](Frame&& f) {
    for (size_t i = 0; i < chosen.size(); ++i)
      if (chosen[i] == position) kept[i] = std::move(f);
    ++position;
    return Status{};
  });
  if (!header.ok()) return header.error();
  for (uint32_t k : chosen)
    if (k >= position)
      return Error{fmt::format("frame {} does not exist ({} has {} frame(s))", k, file, position)};
  header->frames = std::move(kept);
  return header;
}

// The readers suggest convert's flags (--metadata, --calibration, --format); compare and view
// name them for the real side.
std::string RealSideFlags(std::string message) {
  for (const auto& [from, to] :
       {std::pair{"--metadata", "--real-metadata"},
        std::pair{"--calibration", "--real-calibration"}, std::pair{"--format", "--real-format"}}) {
    const std::string f = from;
    for (size_t at = message.find(f); at != std::string::npos; at = message.find(f, at + 1)) {
      // whole flags only: "--format" must not match inside "--real-format"
      const bool whole = (at == 0 || message[at - 1] == ' ' || message[at - 1] == '(') &&
                         (at + f.size() == message.size() ||
                          (!std::isalnum(static_cast<unsigned char>(message[at + f.size()])) &&
                           message[at + f.size()] != '-'));
      if (!whole) continue;
      message.replace(at, f.size(), to);
      at += std::string(to).size() - 1;
    }
  }
  return message;
}

struct FileStamp {
  uint64_t bytes = 0;
  int64_t mtime_ns = 0;
  bool ok = false;
};

FileStamp StampOf(const std::string& file) {
  std::error_code ec;
  FileStamp s;
  s.bytes = std::filesystem::file_size(file, ec);
  if (ec) return {};
  const auto time = std::filesystem::last_write_time(file, ec);
  if (ec) return {};
  s.mtime_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
  s.ok = true;
  return s;
}

}  // namespace

std::string AbsolutePath(const std::string& path) {
  if (path.empty()) return path;
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

void StampInputs(CompareInputs& in) {
  in.stamps.clear();
  for (std::string* path :
       {&in.real_file, &in.real_sidecar, &in.sim_file, &in.rois_file, &in.scene_file}) {
    *path = AbsolutePath(*path);
    if (path->empty()) continue;
    if (const FileStamp s = StampOf(*path); s.ok) in.stamps.push_back({*path, s.bytes, s.mtime_ns});
  }
}

Status CheckInputsUnchanged(const CompareInputs& in) {
  for (const CompareInputs::Stamp& then : in.stamps) {
    const FileStamp now = StampOf(then.file);
    if (!now.ok) return Error{fmt::format("{}: no longer readable", then.file)};
    if (now.bytes != then.bytes || now.mtime_ns != then.mtime_ns)
      return Error{fmt::format(
          "{}: changed since the comparison ({} bytes now, {} then, or a newer modification "
          "time): not the file compared",
          then.file, now.bytes, then.bytes)};
  }
  return {};
}

Expected<LoadedComparison> LoadComparison(const CompareInputs& in, const MeshLoader& meshes) {
  LoadedComparison out;
  out.options.association = in.association;
  out.options.min_range_m = in.min_range_m;
  if (Status s = out.options.Validate(); !s.ok()) return s.error();
  if (!in.scene_file.empty()) {
    if (Status s = CheckRoiMargin(in.roi_margin_m); !s.ok())
      return Error{"roi margin: " + s.message()};
    auto scene = LoadScene(in.scene_file, meshes);
    if (!scene.ok()) return scene.error();
    for (const auto& m : scene->materials.materials)
      out.options.material_names.push_back(m.name);
    if (in.rois_file.empty() && in.scene_targets)
      out.options.targets = TargetsFromScene(*scene, in.roi_margin_m);
  }
  if (!in.rois_file.empty()) {
    auto targets = LoadTargets(in.rois_file);
    if (!targets.ok()) return targets.error();
    out.options.targets = std::move(*targets);
  }

  RecordingOptions real_options;
  real_options.format = in.real_format;
  auto real = ReadChosenFrames(in.real_file, in.real_sidecar, real_options, in.real_frames);
  if (!real.ok()) return Error{RealSideFlags(real.message())};
  auto sim = ReadChosenFrames(in.sim_file, "", {}, in.sim_frames);
  if (!sim.ok()) {
    if (sim.message().find("--metadata") != std::string::npos ||
        sim.message().find("--calibration") != std::string::npos)
      return Error{sim.message() +
                   " (the simulated side takes no sidecar: convert it to .h5 first with "
                   "lidartwin convert)"};
    return sim.error();
  }
  out.real = std::move(*real);
  out.sim = std::move(*sim);
  if (out.real.frames.size() != out.sim.frames.size())
    return Error{fmt::format(
        "{} gives {} frame(s) and {} gives {}: frames are compared pairwise, so choose as many "
        "of each (--real-frames, --sim-frames)",
        in.real_file, out.real.frames.size(), in.sim_file, out.sim.frames.size())};
  if (out.real.frames.empty()) return Error{fmt::format("{} holds no frame", in.real_file)};
  if (out.sim.has_source && !out.sim.source.sensor_profile_yaml.empty()) {
    auto profile =
        ParseSensorProfile(out.sim.source.sensor_profile_yaml, in.sim_file + " (its profile)");
    if (profile.ok()) {
      out.sim_profile_beams_per_frame = profile->BeamCount();
      out.options.waveform_window = WaveformWindowOf(*profile);
    }
  }
  return out;
}

}  // namespace lt::compare
