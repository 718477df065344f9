#include "compare_flags.h"

#include "command.h"

namespace lt::cli {

const OptionFlags kCompareInputKeys = {{"real_frames", "--real-frames"},
                                       {"topic", "--real-topic"},
                                       {"firetimes", "--real-firetimes"},
                                       {"sim_frames", "--sim-frames"},
                                       {"roi_margin_m", "--roi-margin-m"},
                                       {"association.max_angle_deg", "--max-angle-deg"},
                                       {"association.max_distance_m", "--max-distance-m"},
                                       {"min_range_m", "--min-range-m"}};

const std::set<std::string>& CompareInputFlags() {
  static const std::set<std::string> kFlags = {
      "--real",        "--sim",           "--real-metadata",  "--real-calibration",
      "--real-format", "--real-topic",    "--real-firetimes", "--real-frames",
      "--sim-frames",  "--rois",          "--scene",          "--roi-margin-m",
      "--associate",   "--max-angle-deg", "--max-distance-m", "--min-range-m"};
  return kFlags;
}

Expected<compare::CompareInputs> ParseCompareInputs(const Args& args) {
  if (!args.Has("--real") || !args.Has("--sim")) return Usage("--real and --sim are required");
  if (args.Has("--real-metadata") && args.Has("--real-calibration"))
    return Usage("give --real-metadata or --real-calibration, not both");
  compare::CompareInputs in;
  in.real_sidecar = args.Get("--real-metadata", args.Get("--real-calibration"));
  auto method = compare::ParseAssociationMethod(args.Get("--associate", "auto"));
  if (!method.ok()) return FlagError("--associate", "option --associate: " + method.message());
  in.association.method = *method;
  // Every number against its documented range before any file is read (the inputs' own
  // Validate, its keys named by flag).
  if (Status s = FirstError(
          {args.Into("--real", in.real_file), args.Into("--sim", in.sim_file),
           args.Into("--real-format", in.real_format), args.Into("--real-topic", in.real_topic),
           args.Into("--real-firetimes", in.real_firetimes), args.Into("--rois", in.rois_file),
           args.Into("--scene", in.scene_file),
           args.Into("--max-angle-deg", in.association.max_angle_deg),
           args.Into("--max-distance-m", in.association.max_distance_m),
           args.Into("--min-range-m", in.min_range_m), args.Into("--roi-margin-m", in.roi_margin_m),
           args.Into("--real-frames", in.real_frames), args.Into("--sim-frames", in.sim_frames),
           in.Validate()});
      !s.ok())
    return s.error();
  return in;
}

Status CheckOutputsApart(const Args& args,
                         const std::vector<std::pair<std::string, std::string>>& outputs) {
  return CheckOutputsApart(args,
                           {"--real", "--sim", "--real-metadata", "--real-calibration",
                            "--real-firetimes", "--rois", "--scene"},
                           outputs);
}

}  // namespace lt::cli
