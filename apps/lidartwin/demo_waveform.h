// The demo's waveform chapter (issue 15).
#pragma once

#include <cstdint>
#include <filesystem>

namespace lt::cli {

// The Cube 1 with its waveform detector (configs/sensors/blickfeld_cube1.yaml) looks at a
// 10 % Lambertian plate at 5, 10, ..., 40 m (seed 002 sec. 6.2), in the lab and in full
// sunlight; prints, per distance, the beams on the plate, how many of them the detector
// reports and their mean intensity, and the detection range in each light. Returns the exit
// code.
int WaveformChapter(const std::filesystem::path& root, uint64_t seed);

}  // namespace lt::cli
