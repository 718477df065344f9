#include "lidartwin/base/atomic_file.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <system_error>

#include "lidartwin/base/interrupt_cleanup.h"

namespace lt {

AtomicOutput::AtomicOutput(std::filesystem::path target) : target_(std::move(target)) {
  // Same directory as the target so the rename is atomic (one filesystem).
  // NAME.tmp-PID; a name so long that the suffix would pass the 255-byte limit of a file name
  // is shortened first (still in the same directory, so the rename stays atomic).
  const std::string suffix = ".tmp-" + std::to_string(::getpid());
  std::string name = target_.filename().string();
  if (name.size() + suffix.size() > 255) name.resize(255 - suffix.size());
  temp_ = target_;
  temp_.replace_filename(name + suffix);
  // "out.h5.tmp-1234" of a run killed outright: nothing else would ever remove it.
  RemoveLeftoversOfDeadProcesses(
      target_.has_parent_path() ? target_.parent_path() : std::filesystem::path("."),
      name + ".tmp-");
  RegisterTemporaryPath(temp_);
}

AtomicOutput::AtomicOutput(AtomicOutput&& other) noexcept
    : target_(std::move(other.target_)),
      temp_(std::move(other.temp_)),
      committed_(other.committed_) {
  other.committed_ = true;  // the moved-from object owns nothing
}

AtomicOutput& AtomicOutput::operator=(AtomicOutput&& other) noexcept {
  if (this != &other) {
    if (!committed_) {
      std::error_code ec;
      std::filesystem::remove(temp_, ec);
      UnregisterTemporaryPath(temp_);
    }
    target_ = std::move(other.target_);
    temp_ = std::move(other.temp_);
    committed_ = other.committed_;
    other.committed_ = true;
  }
  return *this;
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) {
    std::error_code ec;
    std::filesystem::remove(temp_, ec);
    UnregisterTemporaryPath(temp_);
  }
}

Status AtomicOutput::Commit() {
  if (Status s = RenameRegistered(temp_, target_); !s.ok()) return s;
  committed_ = true;
  return {};
}

Status CheckOutputTarget(const std::filesystem::path& path) {
  if (path.empty() || !path.has_filename()) {
    return Error{"'" + path.string() + "': an output file needs a file name"};
  }
  std::error_code ec;
  const auto s = std::filesystem::symlink_status(path, ec);
  if (!ec && std::filesystem::exists(s) && !std::filesystem::is_regular_file(s)) {
    return Error{path.string() +
                 ": exists and is not a regular file (a directory, link or "
                 "device is never replaced)"};
  }
  const auto parent = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(parent, ec)) {
    return Error{path.string() + ": its directory " + parent.string() + " does not exist"};
  }
  return {};
}

Status WriteText(const AtomicOutput& output, const std::string& text) {
  const std::string where = output.target().string();
  std::ofstream out(output.temp_path(), std::ios::binary);
  // The reason, as the system gives it (issue 36: "cannot open for writing" alone left the user
  // guessing between a read-only folder, a full disk and a name too long).
  if (!out) return Error{where + ": cannot open for writing: " + std::strerror(errno)};
  out << text;
  out.flush();
  if (!out) return Error{where + ": write failed: " + std::strerror(errno)};
  return {};
}

Status WriteTextFileAtomically(const std::filesystem::path& path, const std::string& text) {
  if (auto s = CheckOutputTarget(path); !s.ok()) return s;
  AtomicOutput output(path);
  if (Status s = WriteText(output, text); !s.ok()) return s;
  return output.Commit();
}

}  // namespace lt
