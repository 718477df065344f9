#include "lidartwin/sim/text_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace lt {

std::string CannotOpenReason(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) return std::strerror(EISDIR);
  errno = 0;
  const int fd = ::open(file.c_str(), O_RDONLY);
  if (fd >= 0) {
    ::close(fd);
    return "unknown reason";
  }
  return std::strerror(errno);
}

Status CheckReadableFile(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Error{file.string() + ": cannot open: " + std::strerror(errno)};
  struct stat st {};
  const bool stat_ok = ::fstat(fd, &st) == 0;
  ::close(fd);
  if (stat_ok && S_ISDIR(st.st_mode)) return Error{file.string() + ": is a directory"};
  if (!stat_ok || !S_ISREG(st.st_mode)) {
    return Error{file.string() + ": not a regular file (a device, FIFO or socket)"};
  }
  return {};
}

Expected<std::string> ReadTextFile(const std::filesystem::path& file, const std::string& what,
                                   uint64_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    return Error{file.string() +
                 (what.empty() ? ": is a directory" : ": is a directory, not a" + what)};
  }
  // Devices, FIFOs and sockets (also behind a symlink) would stream without end or block.
  const auto status = std::filesystem::status(file, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    return Error{file.string() + ": not a regular file (a device, FIFO or socket)"};
  }
  const uint64_t size = std::filesystem::file_size(file, ec);
  if (!ec && size > max_bytes) {
    return Error{file.string() + ": " + std::to_string(size) + " bytes, more than the " +
                 std::to_string(max_bytes) + " a" + (what.empty() ? " file" : what) + " may have"};
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error{file.string() + ": cannot open" + what + ": " + CannotOpenReason(file)};
  std::string out(static_cast<size_t>(ec ? 0 : size), '\0');
  if (!ec && !in.read(out.data(), static_cast<std::streamsize>(size))) {
    return Error{file.string() + ": cannot read" + what};
  }
  return out;
}

}  // namespace lt
