// The progress of an export on stderr (when it is a terminal): frames done of all, frames/s
// (frames simulated in this run; frames taken over from a killed run's journal do not count),
// the ETA, and each running shard's count.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

namespace lt::jobs {

class ExportProgressDisplay {
 public:
  explicit ExportProgressDisplay(uint64_t total_frames);
  void Update(uint32_t shard, uint32_t done, uint32_t total, uint32_t resumed);
  // "export: 800/1000 frames, 412.3 frames/s, ETA 0:00:01  [s0 400/500 s1 400/500]"
  std::string Text() const;
  // Redraws the line, at most 10 times a second; Finish() ends it with a newline.
  void Draw(bool force = false);
  void Finish();
  // Frames simulated by this run, and its seconds so far.
  uint64_t simulated() const;
  double seconds() const;

 private:
  struct Shard {
    uint32_t done = 0, total = 0, resumed = 0;
  };
  uint64_t total_;
  bool enabled_;
  std::map<uint32_t, Shard> shards_;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace lt::jobs
