#include "lidartwin/base/text_file.h"
#include "lidartwin/base/file_read_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
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
  // "a" or "an" before `what` (" calibration", " export identity").
  const std::string article =
      what.size() > 1 && std::strchr("aeiou", what[1]) != nullptr ? " an" : " a";
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    return Error{file.string() +
                 (what.empty() ? ": is a directory" : ": is a directory, not" + article + what)};
  }
  // Devices, FIFOs and sockets (also behind a symlink) would stream without end or block.
  const auto status = std::filesystem::status(file, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    return Error{file.string() + ": not a regular file (a device, FIFO or socket)"};
  }
  const uint64_t size = std::filesystem::file_size(file, ec);
  if (!ec && size > max_bytes) {
    return Error{file.string() + ": " + std::to_string(size) + " bytes, more than the " +
                 std::to_string(max_bytes) + (what.empty() ? " a file" : article + what) +
                 " may have"};
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error{file.string() + ": cannot open" + what + ": " + CannotOpenReason(file)};
  std::string out(static_cast<size_t>(ec ? 0 : size), '\0');
  if (!ec && !in.read(out.data(), static_cast<std::streamsize>(size))) {
    return Error{file.string() + ": cannot read" + what};
  }
  FileReadLog::Note(file);
  return out;
}

namespace {
thread_local FileReadLog* innermost_log = nullptr;
}  // namespace

FileReadLog::FileReadLog() : outer_(innermost_log) {
  innermost_log = this;
}

FileReadLog::~FileReadLog() {
  innermost_log = outer_;
}

void FileReadLog::Note(const std::filesystem::path& file) {
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(file, ec).lexically_normal();
  if (ec) absolute = file;
  for (FileReadLog* log = innermost_log; log; log = log->outer_)
    if (std::find(log->files_.begin(), log->files_.end(), absolute) == log->files_.end())
      log->files_.push_back(absolute);
}

Status CheckYamlCharacters(const std::string& text, const std::string& file) {
  auto bad = [&](size_t at, const std::string& why) {
    return Error{file + ": byte " + std::to_string(at) + ": " + why +
                 "; YAML is UTF-8 text (is this the right file?)"};
  };
  const auto* b = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = b[i];
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
        return bad(i, "control character " + std::to_string(c));
      }
      ++i;
      continue;
    }
    // UTF-8: the sequence's length from its lead byte, then continuation bytes 10xxxxxx;
    // overlong forms and surrogates are refused as the standard says.
    int len = 0;
    uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1f;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0f;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return bad(i, "not UTF-8 (byte " + std::to_string(c) + ")");
    }
    if (i + len > n) return bad(i, "a UTF-8 sequence cut off by the end of the file");
    for (int k = 1; k < len; ++k) {
      if ((b[i + k] & 0xC0) != 0x80) return bad(i, "not UTF-8 (a broken sequence)");
      cp = (cp << 6) | (b[i + k] & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return bad(i, "not UTF-8 (an overlong form or a surrogate)");
    }
    i += static_cast<size_t>(len);
  }
  return CheckYamlFlowEnds(text, file);
}

// yaml-cpp 0.7 loops for ever on a comma right after a top-level flow collection closes
// ("[], a" or "{}, a": never YAML; found by fuzz_recording_files, an Ouster JSON cut short),
// and on a comma at a document's top level before any value or after its only value, a quoted
// scalar or a flow collection (", a", "'q', a", "---\n, a": never YAML either, as a plain
// scalar cannot start with a comma; found by fuzz_recording_files, a Velodyne calibration
// starting mid-line). A comma after a block key or entry ("- 'q', x"), or inside a plain
// scalar, even one continued on the next line ("a: b\n  , c"), is left to yaml-cpp.
// Scanned outside quoted scalars and comments: a quote or '#' starts one only after
// whitespace, a line start or a flow indicator, and '[' or '{' opens a collection only where
// a value or entry starts (after ':', '-', ',', another opener or at a line's start), as in
// YAML; inside a plain scalar ("it's [1], fine") they are text.
Status CheckYamlFlowEnds(const std::string& text, const std::string& file) {
  int depth = 0;
  char before = '\n';  // the last character that is not a space or tab
  // Whether the current document holds, at its top level, nothing but quoted scalars and flow
  // collections so far (a block key, entry or plain scalar ends it).
  bool bare = true;
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    const char c = text[i];
    const char prev = before;
    if (c != ' ' && c != '\t') before = c;
    const bool token_start = i == 0 || std::isspace(static_cast<unsigned char>(text[i - 1])) ||
                             std::strchr("[]{},:", text[i - 1]) != nullptr;
    const bool line_start = i == 0 || text[i - 1] == '\n';
    if (depth == 0 && line_start &&
        (text.compare(i, 3, "---") == 0 || text.compare(i, 3, "...") == 0) &&
        (i + 3 == n || std::isspace(static_cast<unsigned char>(text[i + 3])))) {
      bare = true;  // a document marker: the next document's top level starts
      i += 2;
      before = '\n';
      continue;
    }
    if (c == ',' && depth == 0 && bare) {
      return Error{file + ": byte " + std::to_string(i) +
                   ": a comma where a document's value starts or after its only value: not YAML"};
    }
    if (depth == 0 && bare && !std::isspace(static_cast<unsigned char>(c)) && c != '#' &&
        c != '"' && c != '\'' && c != '[' && c != '{') {
      bare = false;
    }
    if (c == '#' && (i == 0 || std::isspace(static_cast<unsigned char>(text[i - 1])))) {
      while (i < n && text[i] != '\n')
        ++i;
      before = '\n';  // the comment ends its line
    } else if ((c == '"' || c == '\'') && token_start) {
      const bool top_value = depth == 0 && bare;
      for (++i; i < n && text[i] != c; ++i)
        if (c == '"' && text[i] == '\\') ++i;  // an escape
      // A quoted scalar as a document's value (or key) is followed on its line only by a ':',
      // a comment or nothing (or a comma, refused above): yaml-cpp 0.7 takes more text there for a
      // further document, and loops for ever on '""5' and a later line starting with a comma (found
      // by fuzz_recording_files, a Velodyne calibration).
      size_t j = i + 1;
      while (top_value && j < n && (text[j] == ' ' || text[j] == '\t'))
        ++j;
      if (top_value && i < n && j < n && !std::strchr("\n\r:,", text[j]) &&
          !(text[j] == '#' && j > i + 1)) {  // a comma: the rule above names it
        return Error{file + ": byte " + std::to_string(j) +
                     ": text after a quoted scalar on its line, where a document's value "
                     "ends: not YAML"};
      }
    } else if ((c == '[' || c == '{') && std::strchr("\n:-[{,?", prev) != nullptr) {
      ++depth;  // a flow collection opens only where a value or an entry starts
    } else if ((c == ']' || c == '}') && depth > 0 && --depth == 0) {
      size_t j = i + 1;
      while (j < n && (text[j] == ' ' || text[j] == '\t'))
        ++j;
      if (j < n && text[j] == ',') {
        return Error{file + ": byte " + std::to_string(j) +
                     ": a comma after a closed flow collection ('], ...' or '}, ...'): not YAML"};
      }
    }
  }
  return {};
}

}  // namespace lt
