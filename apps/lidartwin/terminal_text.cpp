#include "terminal_text.h"

#include <unistd.h>

#include <cstdio>

namespace lt::cli {

std::string EscapeControlBytes(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const bool erase_line = c == 0x1b && s.compare(i + 1, 2, "[K") == 0;
    if ((c >= 0x20 && c != 0x7f) || c == '\t' || c == '\n' || c == '\r' || erase_line) {
      out.push_back(static_cast<char>(c));
      continue;
    }
    char hex[5];
    std::snprintf(hex, sizeof hex, "\\x%02x", c);
    out += hex;
  }
  return out;
}

namespace {

// fopencookie write function: escape, then write everything to the file descriptor.
ssize_t WriteEscaped(void* cookie, const char* buf, size_t size) {
  const int fd = static_cast<int>(reinterpret_cast<intptr_t>(cookie));
  const std::string text = EscapeControlBytes(std::string(buf, size));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return done == 0 ? -1 : static_cast<ssize_t>(size);
    done += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(size);
}

FILE* EscapingStream(int fd, int buffering) {
  cookie_io_functions_t io{nullptr, WriteEscaped, nullptr, nullptr};
  FILE* f = fopencookie(reinterpret_cast<void*>(static_cast<intptr_t>(fd)), "w", io);
  if (f) std::setvbuf(f, nullptr, buffering, 0);
  return f;
}

}  // namespace

void EscapeControlBytesOnOutput() {
  if (FILE* err = EscapingStream(2, _IONBF)) stderr = err;
  if (::isatty(1)) {
    std::fflush(stdout);
    if (FILE* out = EscapingStream(1, _IOLBF)) stdout = out;
  }
}

}  // namespace lt::cli
