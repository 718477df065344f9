// The demo's calibration chapter (issue 10).
#pragma once

#include <cstdint>
#include <filesystem>

namespace lt::cli {

// A unit that differs from its data sheet gets a virtual lab, is calibrated from it, and the
// calibrated and the data-sheet profiles are both compared with the unit's own recording of
// the lab scene. Returns the exit code (1 when the calibrated model is not the closer one).
int CalibrationChapter(const std::filesystem::path& root, const std::filesystem::path& out_dir,
                       uint64_t seed);

}  // namespace lt::cli
