// The flags reconstruct and reproduce share: the reconstruction's options (--method, --depth,
// --voxel-m, --min-range-m, --max-range-m, --no-carve) and the poses (--poses, --pose-at,
// --static).
#pragma once

#include <string>

#include "command.h"
#include "lidartwin/reconstruct/reconstruction.h"

namespace lt::cli {

// Each against its documented range before the recording is read (an error names the flag,
// or the option's key).
Status ReadReconstructOptions(const Args& args, ReconstructOptions& o);

// --poses or --static, not both; --pose-at (start, middle, end) only with --poses.
Status ReadPoseOptions(const Args& args, std::string& poses, double& pose_fraction,
                       bool& static_sensor);

}  // namespace lt::cli
