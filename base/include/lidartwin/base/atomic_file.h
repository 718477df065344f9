// Writes go to a temporary file beside the target and are renamed into place only when
// complete, so a failed or interrupted run never leaves a half-written output file.
#pragma once

#include <filesystem>
#include <string>

#include "lidartwin/base/status.h"

namespace lt {

class AtomicOutput {
 public:
  explicit AtomicOutput(std::filesystem::path target);
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  AtomicOutput(AtomicOutput&& other) noexcept;
  AtomicOutput& operator=(AtomicOutput&& other) noexcept;
  // Removes the temporary file unless Commit() succeeded.
  ~AtomicOutput();

  const std::filesystem::path& temp_path() const { return temp_; }
  const std::filesystem::path& target() const { return target_; }
  // Renames the temporary file onto the target.
  Status Commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path temp_;
  bool committed_ = false;
};

// An output path that may be written: a file name in an existing directory, not an existing
// directory, symlink, device or FIFO (those are refused, never replaced).
Status CheckOutputTarget(const std::filesystem::path& path);

// Writes `text` to `path` through an AtomicOutput (after CheckOutputTarget); errors name the
// file.
Status WriteTextFileAtomically(const std::filesystem::path& path, const std::string& text);
// Writes `text` into output's temporary file, to be committed by the caller (alone, or with
// others through CommitOutputSet).
Status WriteText(const AtomicOutput& output, const std::string& text);

}  // namespace lt
