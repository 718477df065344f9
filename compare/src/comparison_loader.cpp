#include "lidartwin/compare/comparison_loader.h"

#include <fmt/core.h>

#include <algorithm>

#include "lidartwin/compare/targets.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::compare {
namespace {

// The frames at `chosen` (positions in the file), or all of them when `chosen` is empty.
Status ChooseFrames(std::vector<Frame>& frames, const std::vector<uint32_t>& chosen,
                    const std::string& file) {
  if (chosen.empty()) return {};
  std::vector<Frame> out;
  out.reserve(chosen.size());
  for (size_t i = 0; i < chosen.size(); ++i) {
    const uint32_t k = chosen[i];
    if (k >= frames.size())
      return Error{
          fmt::format("frame {} does not exist ({} has {} frame(s))", k, file, frames.size())};
    if (std::find(chosen.begin(), chosen.begin() + i, k) != chosen.begin() + i)
      return Error{fmt::format("frame {} of {} is listed twice", k, file)};
    out.push_back(frames[k]);
  }
  frames = std::move(out);
  return {};
}

}  // namespace

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
    if (in.rois_file.empty()) out.options.targets = TargetsFromScene(*scene, in.roi_margin_m);
  }
  if (!in.rois_file.empty()) {
    auto targets = LoadTargets(in.rois_file);
    if (!targets.ok()) return targets.error();
    out.options.targets = std::move(*targets);
  }

  RecordingOptions real_options;
  real_options.format = in.real_format;
  auto real = ReadRecording(in.real_file, in.real_sidecar, real_options);
  if (!real.ok()) return real.error();
  auto sim = ReadRecording(in.sim_file, "");
  if (!sim.ok()) return sim.error();
  out.real = std::move(*real);
  out.sim = std::move(*sim);
  if (Status s = ChooseFrames(out.real.frames, in.real_frames, in.real_file); !s.ok())
    return s.error();
  if (Status s = ChooseFrames(out.sim.frames, in.sim_frames, in.sim_file); !s.ok())
    return s.error();
  if (out.real.frames.size() != out.sim.frames.size())
    return Error{fmt::format(
        "{} gives {} frame(s) and {} gives {}: frames are compared pairwise, so choose as many "
        "of each (--real-frames, --sim-frames)",
        in.real_file, out.real.frames.size(), in.sim_file, out.sim.frames.size())};
  if (out.real.frames.empty()) return Error{fmt::format("{} holds no frame", in.real_file)};
  if (out.sim.has_source && !out.sim.source.sensor_profile_yaml.empty()) {
    auto profile =
        ParseSensorProfile(out.sim.source.sensor_profile_yaml, in.sim_file + " (its profile)");
    if (profile.ok()) out.sim_profile_beams_per_frame = profile->BeamCount();
  }
  return out;
}

}  // namespace lt::compare
