#include "lidartwin/base/terminal_text.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>

namespace lt {

namespace {

// Length of the well-formed UTF-8 sequence at s[i] (2..4), or 0 (Unicode 15, table 3-7: lead
// bytes C2..F4, no overlong forms, no surrogates, nothing past U+10FFFF; a lead byte F5..FF was
// taken for a 3-byte one, and a surrogate or a code point past U+10FFFF reached the terminal
// raw). Sequences of the C1 controls (U+0080..U+009F; U+009B is a CSI to some terminals) count
// as malformed.
size_t Utf8Length(const std::string& s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const size_t n = c >= 0xc2 && c <= 0xdf   ? 2
                   : c >= 0xe0 && c <= 0xef ? 3
                   : c >= 0xf0 && c <= 0xf4 ? 4
                                            : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
  }
  const auto second = static_cast<unsigned char>(s[i + 1]);
  if ((c == 0xe0 && second < 0xa0) || (c == 0xf0 && second < 0x90)) return 0;  // overlong
  if (c == 0xed && second >= 0xa0) return 0;                                   // surrogates
  if (c == 0xf4 && second >= 0x90) return 0;                                   // > U+10FFFF
  if (c == 0xc2 && second < 0xa0) return 0;                                    // C1 controls
  // Bidirectional formatting (U+061C, U+200E/F, U+202A..E, U+2066..9) reorders what follows on
  // screen, so a name could show as something else: escaped too.
  uint32_t cp = n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
  for (size_t k = 1; k < n; ++k)
    cp = cp << 6 | (static_cast<unsigned char>(s[i + k]) & 0x3f);
  if (cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
      (cp >= 0x2066 && cp <= 0x2069)) {
    return 0;
  }
  return n;
}

}  // namespace

std::string EscapeControlBytes(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    // A carriage return only where a progress bar starts its line (the start of a write), and
    // the "erase to end of line" that ends it.
    const bool progress =
        (c == '\r' && i == 0) || (c == 0x1b && i + 3 == s.size() && s.compare(i + 1, 2, "[K") == 0);
    if ((c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n' || progress) {
      out.push_back(static_cast<char>(c));
      continue;
    }
    if (const size_t n = c >= 0x80 ? Utf8Length(s, i) : 0; n > 0) {
      out.append(s, i, n);
      i += n - 1;
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

}  // namespace lt
