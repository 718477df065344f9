#include "lidartwin/compare/comparison_loader.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <tuple>

#include "lidartwin/compare/targets.h"
#include "lidartwin/datasets/pulled_recording.h"
#include "lidartwin/sim/material_library.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::compare {
namespace {

Status CheckListedOnce(const std::vector<uint32_t>& chosen, const std::string& file) {
  for (size_t i = 0; i < chosen.size(); ++i)
    if (std::find(chosen.begin(), chosen.begin() + i, chosen[i]) != chosen.begin() + i)
      return Error{fmt::format("frame {} of {} is listed twice", chosen[i], file)};
  return {};
}

// The recording with the frames at `chosen` (positions in the file, in that order), or all of
// them when `chosen` is empty. Frames are streamed and only the chosen ones kept, so memory
// follows the frames chosen, not the capture's length.
Expected<Recording> ReadChosenFrames(const std::string& file, const std::string& sidecar,
                                     const RecordingOptions& options,
                                     const std::vector<uint32_t>& chosen) {
  if (chosen.empty()) return ReadRecording(file, sidecar, options);
  if (Status s = CheckListedOnce(chosen, file); !s.ok()) return s.error();
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
  for (std::string* path : {&in.real_file, &in.real_sidecar, &in.real_firetimes, &in.sim_file,
                            &in.rois_file, &in.scene_file}) {
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

namespace {

// in.association, in.min_range_m, the targets and the scene's material names.
Expected<CompareOptions> OptionsOf(const CompareInputs& in, const MeshLoader& meshes) {
  CompareOptions options;
  options.association = in.association;
  options.min_range_m = in.min_range_m;
  if (Status s = options.Validate(); !s.ok()) return s.error();
  if (!in.scene_file.empty()) {
    if (Status s = CheckRoiMargin(in.roi_margin_m); !s.ok())
      return Error{"roi margin: " + s.message()};
    if (in.rois_file.empty() && in.scene_targets) {
      auto scene = LoadScene(in.scene_file, meshes);
      if (!scene.ok()) return scene.error();
      for (const auto& m : scene->materials.materials)
        options.material_names.push_back(m.name);
      options.targets = TargetsFromScene(*scene, in.roi_margin_m);
    } else {
      // The materials' names only: a reconstructed scene's meshes (100 MB of PLY on an
      // OS-1-128 fold) are not read for them.
      auto description = LoadSceneDescription(in.scene_file);
      if (!description.ok()) return description.error();
      auto library = LoadMaterialLibrary(description->materials);
      if (!library.ok()) return library.error();
      for (const auto& m : library->materials)
        options.material_names.push_back(m.name);
    }
  }
  if (!in.rois_file.empty()) {
    auto targets = LoadTargets(in.rois_file);
    if (!targets.ok()) return targets.error();
    options.targets = std::move(*targets);
  }
  return options;
}

Error FrameCountsDiffer(const CompareInputs& in, uint64_t real_frames, uint64_t sim_frames) {
  return Error{fmt::format(
      "{} gives {} frame(s) and {} gives {}: frames are compared pairwise, so choose as many "
      "of each (real_frames, sim_frames)",
      in.real_file, real_frames, in.sim_file, sim_frames)};
}

// A recording that needs a sidecar (recording.h: a pcap) cannot be the simulated side, which
// takes none: the hint says to convert it first.
Status SimSideError(const std::string& message) {
  if (message.find("a pcap needs its sensor's metadata") != std::string::npos)
    return Error{message +
                 " (the simulated side takes no sidecar: convert it to .h5 first with "
                 "lidartwin convert)"};
  return Error{message};
}

// What the simulated file's sensor profile says of the comparison (a lidartwin .h5 that holds
// one): its beams per frame and its waveform window.
void ReadSimProfile(const Recording& sim, const std::string& sim_file, CompareOptions& options,
                    uint64_t* beams_per_frame) {
  // Without --scene, the simulation's own material names (simulate records them), so that
  // the by-material bins read "asphalt", not "id 3".
  if (options.material_names.empty() && sim.has_source)
    options.material_names = sim.source.material_names;
  if (!sim.has_source || sim.source.sensor_profile_yaml.empty()) return;
  auto profile = ParseSensorProfile(sim.source.sensor_profile_yaml, sim_file + " (its profile)");
  if (!profile.ok()) return;
  *beams_per_frame = profile->BeamCount();
  options.waveform_window = WaveformWindowOf(*profile);
}

}  // namespace

Expected<LoadedComparison> LoadComparison(const CompareInputs& in, const MeshLoader& meshes) {
  LoadedComparison out;
  auto options = OptionsOf(in, meshes);
  if (!options.ok()) return options.error();
  out.options = std::move(*options);

  RecordingOptions real_options;
  real_options.format = in.real_format;
  real_options.topic = in.real_topic;
  real_options.firetimes = in.real_firetimes;
  auto real = ReadChosenFrames(in.real_file, in.real_sidecar, real_options, in.real_frames);
  if (!real.ok()) return real.error();
  auto sim = ReadChosenFrames(in.sim_file, "", {}, in.sim_frames);
  if (!sim.ok()) return SimSideError(sim.message()).error();
  out.real = std::move(*real);
  out.sim = std::move(*sim);
  if (out.real.frames.size() != out.sim.frames.size())
    return FrameCountsDiffer(in, out.real.frames.size(), out.sim.frames.size());
  if (out.real.frames.empty()) return Error{fmt::format("{} holds no frame", in.real_file)};
  ReadSimProfile(out.sim, in.sim_file, out.options, &out.sim_profile_beams_per_frame);
  return out;
}

// One side of a streamed comparison: the frames chosen, in the order chosen. Ascending lists
// (and "every frame") are streamed; a list out of file order holds its frames, at most as many
// as it lists.
class ComparisonStream::Side {
 public:
  static Expected<std::unique_ptr<Side>> Open(const std::string& file, const std::string& sidecar,
                                              const RecordingOptions& options,
                                              const std::vector<uint32_t>& chosen) {
    auto side = std::unique_ptr<Side>(new Side(file, chosen));
    if (std::is_sorted(chosen.begin(), chosen.end())) {
      if (Status s = CheckListedOnce(chosen, file); !s.ok()) return s.error();
      auto source = OpenRecording(file, sidecar, options);
      if (!source.ok()) return source.error();
      side->pulled_ = std::make_unique<PulledRecording>(std::move(*source));
    } else {
      auto held = ReadChosenFrames(file, sidecar, options, chosen);
      if (!held.ok()) return held.error();
      side->held_ = std::move(*held);
    }
    return side;
  }

  const Recording& header() const { return pulled_ ? pulled_->header() : held_; }
  // Fraction of the file read so far (0..1).
  double Fraction() const {
    if (pulled_) return pulled_->Fraction();
    return held_.frames.empty() ? 1.0 : static_cast<double>(given_) / held_.frames.size();
  }

  // The next chosen frame; nullopt after the last.
  Expected<std::optional<Frame>> Next() {
    if (!pulled_) {
      if (given_ == held_.frames.size()) return std::optional<Frame>{};
      return std::optional<Frame>(std::move(held_.frames[given_++]));
    }
    if (!chosen_.empty() && given_ == chosen_.size()) {
      return std::optional<Frame>{};  // past the last frame chosen: the rest is not read
    }
    for (;;) {
      auto f = pulled_->Next();
      if (!f.ok()) return f.error();
      if (!*f) {
        if (!chosen_.empty())
          return Error{fmt::format("frame {} does not exist ({} has {} frame(s))", chosen_[given_],
                                   file_, position_)};
        return std::optional<Frame>{};
      }
      const uint64_t at = position_++;
      if (chosen_.empty() || chosen_[given_] == at) {
        ++given_;
        return f;
      }
    }
  }

  // Reads on to the end, counting the frames (for the message when the sides' counts differ).
  Expected<uint64_t> CountAll() {
    uint64_t n = given_;
    for (;;) {
      auto f = Next();
      if (!f.ok()) return f.error();
      if (!*f) return n;
      ++n;
    }
  }

 private:
  Side(std::string file, std::vector<uint32_t> chosen)
      : file_(std::move(file)), chosen_(std::move(chosen)) {}
  std::string file_;
  std::vector<uint32_t> chosen_;
  std::unique_ptr<PulledRecording> pulled_;
  Recording held_;
  uint64_t position_ = 0;  // frames of the file read so far
  size_t given_ = 0;       // frames handed out
};

ComparisonStream::ComparisonStream() = default;
ComparisonStream::~ComparisonStream() = default;
ComparisonStream::ComparisonStream(ComparisonStream&&) noexcept = default;

Expected<ComparisonStream> ComparisonStream::Open(const CompareInputs& in,
                                                  const MeshLoader& meshes) {
  ComparisonStream out;
  out.in_ = in;
  auto options = OptionsOf(in, meshes);
  if (!options.ok()) return options.error();
  out.options = std::move(*options);
  RecordingOptions real_options;
  real_options.format = in.real_format;
  real_options.topic = in.real_topic;
  real_options.firetimes = in.real_firetimes;
  auto real = Side::Open(in.real_file, in.real_sidecar, real_options, in.real_frames);
  if (!real.ok()) return real.error();
  auto sim = Side::Open(in.sim_file, "", {}, in.sim_frames);
  if (!sim.ok()) return SimSideError(sim.message()).error();
  out.real_ = std::move(*real);
  out.sim_ = std::move(*sim);
  ReadSimProfile(out.sim_->header(), in.sim_file, out.options, &out.sim_profile_beams_per_frame);
  return out;
}

const Recording& ComparisonStream::real_header() const {
  return real_->header();
}
const Recording& ComparisonStream::sim_header() const {
  return sim_->header();
}

double ComparisonStream::Fraction() const {
  return real_->Fraction();
}

Expected<ComparisonMetrics> ComparisonStream::Run(const CompareProgress& on_frame,
                                                  const PairingSink& on_pairing) {
  auto comparison = PairwiseComparison::Start(options);
  if (!comparison.ok()) return comparison.error();
  for (;;) {
    auto r = real_->Next();
    if (!r.ok()) return r.error();
    auto s = sim_->Next();
    if (!s.ok()) return SimSideError(s.message()).error();
    if (!*r && !*s) break;
    if (!*r || !*s) {
      const size_t done = comparison->pairs();
      auto real_count = *r ? real_->CountAll() : Expected<uint64_t>(done);
      auto sim_count = *s ? sim_->CountAll() : Expected<uint64_t>(done);
      for (const auto* c : {&real_count, &sim_count})
        if (!c->ok()) return c->error();
      return FrameCountsDiffer(in_, *real_count, *sim_count);
    }
    if (Status st = comparison->Add(**r, **s, on_pairing); !st.ok()) return st.error();
    if (on_frame) on_frame(comparison->pairs(), real_->header().frames_known);
  }
  if (comparison->pairs() == 0) return Error{fmt::format("{} holds no frame", in_.real_file)};
  return std::move(*comparison).Finish();
}

}  // namespace lt::compare
