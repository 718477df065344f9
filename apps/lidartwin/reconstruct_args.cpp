#include "reconstruct_args.h"

#include <algorithm>

#include "command.h"
#include "lidartwin/reconstruct/posed_recording.h"

namespace lt::cli {

Status ReadReconstructOptions(const Args& args, ReconstructOptions& o) {
  o.carve = !args.Has("--no-carve");
  auto depth = args.GetUInt("--depth", 10);
  if (Status s = FirstError(
          {depth.status(), args.Into("--method", o.method), args.Into("--voxel-m", o.voxel_m),
           args.Into("--min-range-m", o.min_range_m), args.Into("--max-range-m", o.max_range_m)});
      !s.ok())
    return s;
  // Clamped before the narrowing cast so that 2^40 reads as too deep, not as 0.
  o.poisson_depth = static_cast<int>(std::min<uint64_t>(*depth, 1000));
  ConfigCheck check;
  o.Check(check);
  if (const auto& p = check.problem())
    return OptionError(p->key_path, p->key_path + ": " + p->problem);
  return {};
}

Status ReadPoseOptions(const Args& args, std::string& poses, double& pose_fraction,
                       bool& static_sensor) {
  if (args.Has("--static") && args.Has("--poses"))
    return ArgumentError("give --poses or --static, not both");
  auto fraction = PoseFractionOf(args.Get("--pose-at", "start"));
  if (!fraction.ok()) return fraction.error();
  if (args.Has("--pose-at") && !args.Has("--poses"))
    return ArgumentError("--pose-at says when the poses of --poses hold; give it with --poses");
  poses = args.Get("--poses");
  pose_fraction = *fraction;
  static_sensor = args.Has("--static");
  return {};
}

}  // namespace lt::cli
