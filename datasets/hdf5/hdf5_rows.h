// The /frames table of a frames file (schema v2) read and checked, for the reader and the join
// (private to datasets/).
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "frame_tables.h"
#include "lidartwin/base/status.h"

namespace lt::hdf5 {

// Every column of /frames present (hard links, stored in the file, consistent sizes, at most
// kMaxHdf5Frames rows, as many in each), read into `rows`. Errors name `where` and the column.
Status ReadFrameRows(hid_t file, const std::string& where, uint64_t file_size,
                     std::vector<FrameRow>& rows);

// The rows agree with one another: unique indices, finite times and poses, each frame's points
// and waveform records right after the previous frame's. Gives the totals the columns of
// /points and /waveforms must hold.
Status CheckFrameRows(const std::vector<FrameRow>& rows, const std::string& where, uint64_t& points,
                      uint64_t& records, uint64_t& volts);

}  // namespace lt::hdf5
