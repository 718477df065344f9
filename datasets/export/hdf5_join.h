// Joins frames files: one schema v2 file whose rows are the sources' and whose columns are HDF5
// virtual datasets over the sources' (private to datasets/; export_join.cpp writes dataset.h5
// with it).
#pragma once

#include <filesystem>
#include <vector>

#include "lidartwin/base/atomic_file.h"
#include "lidartwin/base/status.h"

namespace lt {

// Writes output's temporary file with the root attributes of the first source and every frame
// of every source, in order; the caller commits it once it has read it back. Sources must sit
// in the target's folder: the mappings name them by file name alone, which HDF5 resolves
// against the joined file's folder (the temporary's too), so the folder can move.
Status WriteJoinedFrames(AtomicOutput& output, const std::vector<std::filesystem::path>& sources);

}  // namespace lt
