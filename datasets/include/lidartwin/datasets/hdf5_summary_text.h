// A frames file's summary (ReadHdf5Summary) as a person reads it and as JSON: what
// `lidartwin info` prints, and what a script gets from it.
#pragma once

#include <string>

#include "lidartwin/datasets/hdf5_frames.h"

namespace lt {

// Schema, writer, sensor, then a table of the frames and the point fields; lines end in "\n".
std::string Hdf5SummaryText(const std::string& file, const Hdf5Summary& summary);
// The same as a JSON document (two-space indent, no trailing newline).
std::string Hdf5SummaryJson(const std::string& file, const Hdf5Summary& summary);

}  // namespace lt
