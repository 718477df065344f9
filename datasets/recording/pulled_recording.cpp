#include "lidartwin/datasets/pulled_recording.h"

#include <unistd.h>

#include <string>

namespace lt {

PulledRecording::PulledRecording(RecordingSource source) : source_(std::move(source)) {}

PulledRecording::~PulledRecording() {
  if (!started_) return;
  if (getpid() != reader_pid_) {
    // A forked copy (a Python worker pool, say): the reader thread stayed in the parent, and
    // joining or detaching it here is undefined. Its handle is left unreleased on purpose.
    new std::thread(std::move(reader_));
    return;
  }
  {
    std::lock_guard lock(mutex_);
    if (!finished_) {
      stop_ = true;  // the reader's sink returns an error, and the reader unwinds
      turn_ = Turn::kReader;
    }
  }
  changed_.notify_all();
  reader_.join();
}

void PulledRecording::Read() {
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return turn_ == Turn::kReader; });
  }
  Status s = source_.ForEachFrame([&](Frame&& f) -> Status {
    std::unique_lock lock(mutex_);
    slot_ = std::move(f);
    turn_ = Turn::kCaller;
    changed_.notify_all();
    changed_.wait(lock, [&] { return turn_ == Turn::kReader; });
    return stop_ ? Status(Error{"reading stopped"}) : Status{};
  });
  std::lock_guard lock(mutex_);
  finished_ = true;
  result_ = std::move(s);
  turn_ = Turn::kCaller;
  changed_.notify_all();
}

Expected<std::optional<Frame>> PulledRecording::Next() {
  if (started_ && getpid() != reader_pid_) {
    return Error{"this recording was opened and read in process " + std::to_string(reader_pid_) +
                 "; a forked process has no reader of it: open it again there"};
  }
  std::unique_lock lock(mutex_);
  if (finished_) {
    if (!result_.ok() && !error_given_) {
      error_given_ = true;
      return result_.error();
    }
    return std::optional<Frame>{};
  }
  turn_ = Turn::kReader;
  if (!started_) {
    started_ = true;
    reader_pid_ = getpid();
    reader_ = std::thread([this] { Read(); });
  }
  changed_.notify_all();
  changed_.wait(lock, [&] { return turn_ == Turn::kCaller; });
  if (slot_) {
    std::optional<Frame> f = std::move(slot_);
    slot_.reset();
    return f;
  }
  error_given_ = !result_.ok();
  if (!result_.ok()) return result_.error();
  return std::optional<Frame>{};
}

}  // namespace lt
