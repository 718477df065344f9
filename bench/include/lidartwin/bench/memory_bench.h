// Memory at scale (issue 11): the peak resident memory of a lidartwin command run as a child
// process, for a short and a long job, so that streaming (memory flat in the job's length) is
// measured rather than assumed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt::bench {

struct ChildRun {
  std::vector<std::string> args;  // after the program name
  int exit_code = -1;
  double seconds = 0;
  uint64_t max_rss_kib = 0;  // getrusage ru_maxrss of the child
};

// Runs `program` with `run.args` (stdout and stderr to /dev/null), fills in the exit code, the
// wall time and the peak resident memory.
Status RunChild(const std::filesystem::path& program, ChildRun& run);

// A capture `repeats` times as long: the records of `in` written `repeats` times, each copy's
// capture times shifted past the previous copy's end, and so are Velodyne data packets' own
// timestamps (a capture whose packet times repeat is read as repeating itself: its late copies
// are dropped). Written atomically to `out`.
Status WriteRepeatedCapture(const std::filesystem::path& in, const std::filesystem::path& out,
                            uint32_t repeats);

}  // namespace lt::bench
