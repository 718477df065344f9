// The intent journal of an output set's commit (issue 36 item 4). A process killed outright
// (SIGKILL, power loss) runs no cleanup, so before the first output moves, the commit writes
// down what it is about to do: for every output its staged path, its target, where the earlier
// file at the target is kept and the staged file's identity (device and inode, which a rename
// keeps). A later commit into the same folder finds the journal of a process that is gone and
// finishes its work: rolled back (the earlier set restored) before the commit point, rolled
// forward (the backups removed) after it. The commit point is the journal's rename from
// ".lidartwin-commit-PID" to ".lidartwin-committed-PID".
//
// The writing process holds an flock on its journal for as long as it lives, so a recovering
// process can tell a journal whose writer is gone from one being written now even where PIDs
// are reused.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt {

// Paths are absolute (a recovery may run from another working directory).
struct JournalEntry {
  std::filesystem::path staged;  // empty: the target is removed by the commit (a set's extra)
  std::filesystem::path target;
  std::filesystem::path backup;  // empty: there was no earlier output at the target
  uint64_t staged_device = 0;
  uint64_t staged_inode = 0;
};

// A name part no other commit shares, in this process or another (containers reuse PIDs):
// "PID-COUNT-RANDOM".
std::string UniqueCommitToken();

// The journal file of one commit, open and locked while the commit runs.
class CommitJournal {
 public:
  // Writes the whole journal into `dir` as ".lidartwin-commit-TOKEN" and flushes it to disk
  // before returning.
  static Expected<CommitJournal> Begin(const std::filesystem::path& dir, const std::string& token,
                                       const std::vector<JournalEntry>& entries);
  CommitJournal(CommitJournal&& other) noexcept;
  CommitJournal& operator=(CommitJournal&&) = delete;
  CommitJournal(const CommitJournal&) = delete;
  ~CommitJournal();  // removes the journal and releases the lock

  // The commit point: from here a recovery keeps the new outputs.
  Status MarkCommitted();

 private:
  CommitJournal(std::filesystem::path path, std::string token, int fd)
      : path_(std::move(path)), token_(std::move(token)), fd_(fd) {}
  std::filesystem::path path_;
  std::string token_;
  int fd_ = -1;
};

// The journal's text, and back (a journal cut short by a kill reads as incomplete: no output
// had moved yet, so there is nothing to undo).
std::string JournalText(const std::vector<JournalEntry>& entries);
enum class JournalRead { kComplete, kIncomplete, kUnreadable };
JournalRead ParseJournal(const std::string& text, std::vector<JournalEntry>* entries);

}  // namespace lt
