// Joins frames files: one schema v2 file whose rows are the sources' and whose columns are HDF5
// virtual datasets over the sources' (private to datasets/; export_join.cpp writes dataset.h5
// with it).
#pragma once

#include <filesystem>
#include <vector>

#include "lidartwin/sim/status.h"

namespace lt {

// Writes `out` (atomically) with the root attributes of the first source and every frame of
// every source, in order. Sources must sit in out's folder: the mappings name them by file
// name alone, which HDF5 resolves against the joined file's folder, so the folder can move.
Status WriteJoinedFrames(const std::filesystem::path& out,
                         const std::vector<std::filesystem::path>& sources);

}  // namespace lt
