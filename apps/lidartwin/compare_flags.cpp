#include "compare_flags.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "command.h"
#include "lidartwin/compare/metrics.h"
#include "lidartwin/compare/targets.h"

namespace lt::cli {
namespace {

// The command-line flag of a CompareOptions key, for messages that name what the user typed.
std::string FlagOfKey(const std::string& key) {
  if (key == "association.max_angle_deg") return "--max-angle-deg";
  if (key == "association.max_distance_m") return "--max-distance-m";
  if (key == "min_range_m") return "--min-range-m";
  return key;  // not settable from the command line
}

// Whole, non-negative frame positions, none twice (whether each exists is the loader's to say,
// once the file's frames are known).
Expected<std::vector<uint32_t>> FrameList(const Args& args, const std::string& flag) {
  auto list = args.GetDoubleList(flag, {});
  if (!list.ok()) return list.error();
  std::vector<uint32_t> out;
  for (double v : *list) {
    if (!(v >= 0 && v <= UINT32_MAX && v == std::floor(v)))
      return FlagError(
          flag, fmt::format("option {}: {:.15g} is not a frame number (a whole number below 2^32)",
                            flag, v));
    if (std::find(out.begin(), out.end(), static_cast<uint32_t>(v)) != out.end())
      return FlagError(flag, fmt::format("option {}: frame {:.15g} is listed twice", flag, v));
    out.push_back(static_cast<uint32_t>(v));
  }
  return out;
}

}  // namespace

const std::set<std::string>& CompareInputFlags() {
  static const std::set<std::string> kFlags = {
      "--real",           "--sim",          "--real-metadata", "--real-calibration",
      "--real-format",    "--real-frames",  "--sim-frames",    "--rois",
      "--scene",          "--roi-margin-m", "--associate",     "--max-angle-deg",
      "--max-distance-m", "--min-range-m"};
  return kFlags;
}

Expected<compare::CompareInputs> ParseCompareInputs(const Args& args) {
  if (!args.Has("--real") || !args.Has("--sim")) return Usage("--real and --sim are required");
  if (args.Has("--real-metadata") && args.Has("--real-calibration"))
    return Usage("give --real-metadata or --real-calibration, not both");
  compare::CompareInputs in;
  in.real_file = args.Get("--real");
  in.sim_file = args.Get("--sim");
  in.real_sidecar = args.Get("--real-metadata", args.Get("--real-calibration"));
  in.real_format = args.Get("--real-format");
  in.rois_file = args.Get("--rois");
  in.scene_file = args.Get("--scene");
  auto method = compare::ParseAssociationMethod(args.Get("--associate", "auto"));
  if (!method.ok()) return FlagError("--associate", "option --associate: " + method.message());
  in.association.method = *method;
  auto angle = args.GetDouble("--max-angle-deg", in.association.max_angle_deg);
  auto distance = args.GetDouble("--max-distance-m", in.association.max_distance_m);
  auto min_range = args.GetDouble("--min-range-m", 0);
  auto margin = args.GetDouble("--roi-margin-m", in.roi_margin_m);
  auto real_frames = FrameList(args, "--real-frames");
  auto sim_frames = FrameList(args, "--sim-frames");
  for (const Status& s : {angle.status(), distance.status(), min_range.status(), margin.status(),
                          real_frames.status(), sim_frames.status()})
    if (!s.ok()) return s.error();
  in.association.max_angle_deg = *angle;
  in.association.max_distance_m = *distance;
  in.min_range_m = *min_range;
  in.roi_margin_m = *margin;
  in.real_frames = std::move(*real_frames);
  in.sim_frames = std::move(*sim_frames);
  // Every number against its documented range before any file is read, named by its flag
  // (the rules are the options' own Check()).
  if (Status s = compare::CheckRoiMargin(in.roi_margin_m); !s.ok())
    return FlagError("--roi-margin-m", "option --roi-margin-m: " + s.message());
  compare::CompareOptions options;
  options.association = in.association;
  options.min_range_m = in.min_range_m;
  ConfigCheck check;
  options.Check(check);
  if (!check.ok()) {
    const std::string flag = FlagOfKey(check.problem()->key_path);
    return FlagError(flag, fmt::format("option {}: {}", flag, check.problem()->problem));
  }
  return in;
}

Status CheckOutputsApart(const Args& args,
                         const std::vector<std::pair<std::string, std::string>>& outputs) {
  auto same = [](const std::string& a, const std::string& b) {
    std::error_code ec1, ec2;
    const auto ca = std::filesystem::weakly_canonical(a, ec1);
    const auto cb = std::filesystem::weakly_canonical(b, ec2);
    return !ec1 && !ec2 && ca == cb;
  };
  std::vector<std::pair<std::string, std::string>> named;
  for (const char* flag :
       {"--real", "--sim", "--real-metadata", "--real-calibration", "--rois", "--scene"})
    if (args.Has(flag)) named.emplace_back(flag, args.Get(flag));
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (const auto& [flag, path] : named)
      if (same(outputs[i].second, path))
        return FlagError(outputs[i].first,
                         fmt::format("option {}: {} is the {} file; it would be overwritten",
                                     outputs[i].first, outputs[i].second, flag));
    for (size_t j = 0; j < i; ++j)
      if (same(outputs[i].second, outputs[j].second))
        return FlagError(outputs[i].first,
                         fmt::format("options {} and {} name the same file ({})", outputs[j].first,
                                     outputs[i].first, outputs[i].second));
  }
  return {};
}

}  // namespace lt::cli
