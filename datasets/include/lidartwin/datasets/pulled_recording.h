// A recording read one frame per call (Next) instead of through a sink, so that two recordings
// can be read in step with a frame of each in memory: compare's real and simulated sides.
//
// The readers push frames (RecordingSource::ForEachFrame); turning a push into a pull needs a
// second stack, so the reader runs on a thread of its own. It never runs at the same time as
// the caller: a baton passes between them at each frame. Debian's HDF5 is built without thread
// safety, and two .h5 recordings read in step must not call it at once.
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "lidartwin/datasets/recording.h"

namespace lt {

class PulledRecording {
 public:
  explicit PulledRecording(RecordingSource source);
  ~PulledRecording();  // stops the reader if the caller leaves frames unread
  PulledRecording(const PulledRecording&) = delete;
  PulledRecording& operator=(const PulledRecording&) = delete;

  // The next frame; nullopt after the last. A reader's error ends the recording and is
  // returned once, and from then on nullopt.
  Expected<std::optional<Frame>> Next();
  // The header; its notes (packets skipped, frames dropped) are complete once Next gave the end.
  const Recording& header() const { return source_.header(); }
  double Fraction() const { return source_.Fraction(); }

 private:
  enum class Turn { kCaller, kReader };
  void Read();

  RecordingSource source_;
  std::mutex mutex_;
  std::condition_variable changed_;
  Turn turn_ = Turn::kCaller;
  std::optional<Frame> slot_;
  bool started_ = false, finished_ = false, stop_ = false, error_given_ = false;
  Status result_;
  std::thread reader_;
  long reader_pid_ = 0;  // the process the reader thread runs in (a fork has none)
};

}  // namespace lt
