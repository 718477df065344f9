// Where a streaming reader puts each frame as soon as it is complete.
#pragma once

#include <functional>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"

namespace lt {

// Called once per completed frame, in order; an error stops the reading and is returned by it.
using FrameSink = std::function<Status(Frame&&)>;

// Every frame a streaming reader gives, in memory: `read` runs the reader with the sink it is
// handed (for callers that need the whole recording at once).
inline Expected<std::vector<Frame>> CollectFrames(
    const std::function<Status(const FrameSink&)>& read) {
  std::vector<Frame> frames;
  Status s = read([&](Frame&& f) -> Status {
    frames.push_back(std::move(f));
    return {};
  });
  if (!s.ok()) return s.error();
  return frames;
}

}  // namespace lt
