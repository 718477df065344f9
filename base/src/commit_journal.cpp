#include "commit_journal.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <system_error>

#include "lidartwin/base/interrupt_cleanup.h"
#include "lidartwin/base/output_set.h"

namespace lt {

namespace {

constexpr const char* kHeader = "lidartwin commit journal 1\n";
constexpr const char* kEnd = "end\n";
constexpr const char* kPendingPrefix = ".lidartwin-commit-";
// Where a journal is written and locked before it gets its name: a recovery never sees a
// journal whose writer has not locked it yet.
constexpr const char* kUnpublishedPrefix = ".lidartwin-journal-tmp-";
constexpr const char* kCommittedPrefix = ".lidartwin-committed-";

// A path as "LENGTH:BYTES\n": any byte may appear in a file name but a slash or NUL, newlines
// included.
void PutPath(std::string* out, const std::filesystem::path& p) {
  const std::string s = p.string();
  *out += std::to_string(s.size()) + ":" + s + "\n";
}

bool GetPath(const std::string& text, size_t* at, std::filesystem::path* p) {
  const size_t colon = text.find(':', *at);
  if (colon == std::string::npos || colon == *at || colon - *at > 5) return false;
  const std::string digits = text.substr(*at, colon - *at);
  if (digits.find_first_not_of("0123456789") != std::string::npos) return false;
  const size_t n = std::stoul(digits);
  if (colon + 1 + n + 1 > text.size() || text[colon + 1 + n] != '\n') return false;
  *p = text.substr(colon + 1, n);
  *at = colon + 1 + n + 1;
  return true;
}

bool GetLine(const std::string& text, size_t* at, std::string* line) {
  const size_t nl = text.find('\n', *at);
  if (nl == std::string::npos) return false;
  *line = text.substr(*at, nl - *at);
  *at = nl + 1;
  return true;
}

Status WriteAll(int fd, const std::string& text, const std::filesystem::path& path) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return Error{path.string() + ": cannot write the commit journal: " + std::strerror(errno)};
    done += static_cast<size_t>(n);
  }
  return {};
}

// Makes the names created or renamed in `dir` durable (power loss; a kill needs no flush).
void SyncDirectory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

namespace {
// Entries are written relative to the journal's folder (the folder may be mounted elsewhere
// when the recovery runs, or the recovering process work from another directory) and read
// back absolute.
std::filesystem::path RelativeTo(const std::filesystem::path& dir, const std::filesystem::path& p) {
  if (p.empty() || !p.is_absolute()) return p;
  const auto rel = p.lexically_relative(dir);
  return rel.empty() ? p : rel;
}
std::filesystem::path Resolved(const std::filesystem::path& dir, const std::filesystem::path& p) {
  return p.empty() || p.is_absolute() ? p : (dir / p).lexically_normal();
}
}  // namespace

std::string JournalText(const std::vector<JournalEntry>& entries) {
  std::string out = kHeader;
  out += "entries " + std::to_string(entries.size()) + "\n";
  for (const auto& e : entries) {
    PutPath(&out, e.staged);
    PutPath(&out, e.target);
    PutPath(&out, e.backup);
    out += std::to_string(e.staged_device) + " " + std::to_string(e.staged_inode) + "\n";
  }
  return out + kEnd;
}

JournalRead ParseJournal(const std::string& text, std::vector<JournalEntry>* entries) {
  entries->clear();
  const bool complete = text.size() >= std::strlen(kEnd) &&
                        text.compare(text.size() - std::strlen(kEnd), std::string::npos, kEnd) == 0;
  if (text.rfind(kHeader, 0) != 0)
    return complete ? JournalRead::kUnreadable : JournalRead::kIncomplete;
  if (!complete) return JournalRead::kIncomplete;
  size_t at = std::strlen(kHeader);
  std::string line;
  unsigned long n = 0;
  if (!GetLine(text, &at, &line) || std::sscanf(line.c_str(), "entries %lu", &n) != 1 ||
      n > text.size()) {
    return JournalRead::kUnreadable;
  }
  for (unsigned long k = 0; k < n; ++k) {
    JournalEntry e;
    unsigned long long dev = 0, ino = 0;
    if (!GetPath(text, &at, &e.staged) || !GetPath(text, &at, &e.target) ||
        !GetPath(text, &at, &e.backup) || !GetLine(text, &at, &line) ||
        std::sscanf(line.c_str(), "%llu %llu", &dev, &ino) != 2) {
      entries->clear();
      return JournalRead::kUnreadable;
    }
    e.staged_device = dev;
    e.staged_inode = ino;
    entries->push_back(std::move(e));
  }
  if (text.compare(at, std::string::npos, kEnd) != 0) {
    entries->clear();
    return JournalRead::kUnreadable;
  }
  return JournalRead::kComplete;
}

std::string UniqueCommitToken() {
  static std::atomic<uint64_t> count{0};
  static const uint32_t random = std::random_device{}();
  char token[64];
  std::snprintf(token, sizeof token, "%ld-%llu-%08x", static_cast<long>(::getpid()),
                static_cast<unsigned long long>(count++), random);
  return token;
}

Expected<CommitJournal> CommitJournal::Begin(const std::filesystem::path& dir,
                                             const std::string& token,
                                             const std::vector<JournalEntry>& entries) {
  const auto path = dir / (kPendingPrefix + token);
  const auto unpublished = dir / (kUnpublishedPrefix + token);
  const int fd = ::open(unpublished.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const std::string why = std::strerror(errno);
    return Error{path.string() + ": cannot create the commit journal: " + why};
  }
  CommitJournal journal(unpublished, token, fd);
  if (::flock(fd, LOCK_EX) != 0) {
    return Error{path.string() + ": cannot lock the commit journal: " + std::strerror(errno)};
  }
  std::vector<JournalEntry> relative = entries;
  for (auto& e : relative) {
    e.staged = RelativeTo(dir, e.staged);
    e.target = RelativeTo(dir, e.target);
    e.backup = RelativeTo(dir, e.backup);
  }
  if (Status s = WriteAll(fd, JournalText(relative), path); !s.ok()) return s.error();
  if (::fsync(fd) != 0) {
    return Error{path.string() + ": cannot flush the commit journal: " + std::strerror(errno)};
  }
  // Published whole and locked: from here a recovery may read it, and finds it held.
  std::error_code ec;
  std::filesystem::rename(unpublished, path, ec);
  if (ec) return Error{path.string() + ": cannot publish the commit journal: " + ec.message()};
  journal.path_ = path;
  SyncDirectory(dir);
  return journal;
}

CommitJournal::CommitJournal(CommitJournal&& other) noexcept
    : path_(std::move(other.path_)), token_(std::move(other.token_)), fd_(other.fd_) {
  other.fd_ = -1;
}

Status CommitJournal::MarkCommitted() {
  auto committed = path_;
  committed.replace_filename(kCommittedPrefix + token_);
  std::error_code ec;
  std::filesystem::rename(path_, committed, ec);
  if (ec) return Error{path_.string() + ": cannot mark the commit done: " + ec.message()};
  path_ = committed;
  SyncDirectory(path_.parent_path());
  return {};
}

CommitJournal::~CommitJournal() {
  if (fd_ < 0) return;
  std::error_code ec;
  std::filesystem::remove(path_, ec);
  ::close(fd_);  // releases the lock
}

namespace {

// The journal's lock, taken without waiting: held while the journal is acted on (two
// recoveries never act on one journal at once); -1 where its writer, or another recovery,
// holds it.
int TakeLock(const std::filesystem::path& journal) {
  const int fd = ::open(journal.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

struct FileId {
  uint64_t device = 0, inode = 0;
  bool exists = false;
};

FileId IdOf(const std::filesystem::path& p) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return {};
  return {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino), true};
}

// Before the commit point: every target back to its earlier output, or gone if it had none.
// Only what is ours is touched: the new output (the staged file's identity, its staged name
// gone) or nothing; a file put at a target since the crash stays, and so does the backup then.
void RollBack(const std::vector<JournalEntry>& entries) {
  for (const auto& e : entries) {
    std::error_code ec;
    const FileId at = IdOf(e.target);
    const bool ours = !e.staged.empty() && at.exists && at.device == e.staged_device &&
                      at.inode == e.staged_inode && !IdOf(e.staged).exists;
    const FileId backup = e.backup.empty() ? FileId{} : IdOf(e.backup);
    if (backup.exists) {
      if (at.exists && at.device == backup.device && at.inode == backup.inode) {
        std::filesystem::remove(e.backup, ec);  // never replaced: both names are one file
        continue;
      }
      if (at.exists && !ours) continue;  // not ours: left, and the backup beside it
      if (ours && std::filesystem::is_directory(std::filesystem::symlink_status(e.target, ec)))
        std::filesystem::remove_all(e.target, ec);  // a folder cannot be renamed over a full one
      std::filesystem::rename(e.backup, e.target, ec);
    } else if (e.backup.empty() && ours) {
      std::filesystem::remove_all(e.target, ec);
    }
  }
}

void RollForward(const std::vector<JournalEntry>& entries) {
  for (const auto& e : entries) {
    std::error_code ec;
    if (!e.backup.empty()) std::filesystem::remove_all(e.backup, ec);
  }
}

// The PID in ".lidartwin-commit-PID-COUNT-RANDOM", or -1 for a name that is not a journal's.
long PidAfter(const std::string& name, const std::string& prefix) {
  if (name.rfind(prefix, 0) != 0) return -1;
  const std::string rest = name.substr(prefix.size());
  const std::string digits = rest.substr(0, rest.find('-'));
  if (digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::strtol(digits.c_str(), nullptr, 10);
}

}  // namespace

size_t RecoverInterruptedCommits(const std::filesystem::path& dir) {
  std::vector<std::pair<std::filesystem::path, bool>> journals;  // path, committed
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    for (const bool committed : {false, true}) {
      if (PidAfter(name, committed ? kCommittedPrefix : kPendingPrefix) > 0)
        journals.emplace_back(it->path(), committed);
    }
    // A journal never published: its writer moved nothing. Removed once it is a minute old
    // and unlocked (younger, its writer may be between creating and locking it).
    if (PidAfter(name, kUnpublishedPrefix) > 0) {
      std::error_code age_error;
      const auto age = std::filesystem::file_time_type::clock::now() -
                       std::filesystem::last_write_time(it->path(), age_error);
      const int fd = age_error || age < std::chrono::minutes(1) ? -1 : TakeLock(it->path());
      if (fd >= 0) {
        std::filesystem::remove(it->path(), age_error);
        ::close(fd);
      }
    }
  }
  size_t recovered = 0;
  for (const auto& [path, committed] : journals) {
    const int lock = TakeLock(path);  // a published journal is locked while its writer lives
    if (lock < 0) continue;
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    std::vector<JournalEntry> entries;
    if (ParseJournal(text.str(), &entries) == JournalRead::kComplete) {
      for (auto& e : entries) {
        e.staged = Resolved(dir, e.staged);
        e.target = Resolved(dir, e.target);
        e.backup = Resolved(dir, e.backup);
      }
      if (committed)
        RollForward(entries);
      else
        RollBack(entries);
      std::error_code removed;
      if (std::filesystem::remove(path, removed) && !removed) ++recovered;
    }  // else not ours to act on (published journals are whole): left as it is
    ::close(lock);
  }
  if (recovered > 0) SyncDirectory(dir);
  return recovered;
}

}  // namespace lt
