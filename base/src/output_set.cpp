#include "lidartwin/base/output_set.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <set>
#include <string>

#include "commit_journal.h"
#include "lidartwin/base/interrupt_cleanup.h"

namespace lt {

namespace {

std::filesystem::path FolderOf(const std::filesystem::path& p) {
  return p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
}

// Where the earlier output at `target` is kept while the new one moves in: ".NAME.old-TOKEN",
// the token this commit's alone.
std::filesystem::path BackupPath(const std::filesystem::path& target, const std::string& token) {
  std::string name = "." + target.filename().string();
  const std::string suffix = ".old-" + token;
  if (name.size() + suffix.size() > 255) {
    // Cut to fit, with the whole name's hash so that long names sharing a start (every frame
    // of a long stem) keep backups of their own.
    char hash[24];
    std::snprintf(hash, sizeof hash, "-%016zx", std::hash<std::string>{}(name));
    name.resize(255 - suffix.size() - std::strlen(hash));
    name += hash;
  }
  return target.parent_path() / (name + suffix);
}

// A file's earlier version is kept as a second link to it, so its name never stops naming a
// whole file (the new one then replaces it in one rename). A folder, which cannot be linked,
// a file where links are refused (fs.protected_hardlinks on another user's file; vfat, some
// network mounts), and a target the set removes are moved aside instead.
Status SetAside(const std::filesystem::path& target, const std::filesystem::path& backup,
                bool removed_by_the_set) {
  std::error_code ec;
  if (!removed_by_the_set &&
      !std::filesystem::is_directory(std::filesystem::symlink_status(target, ec))) {
    std::filesystem::create_hard_link(target, backup, ec);
    if (!ec) return {};
    // Only where links are refused; a backup name that exists is an error, never replaced.
    if (ec == std::errc::file_exists)
      return Error{backup.string() + ": exists: cannot set the earlier output aside"};
  }
  ec.clear();
  std::filesystem::rename(target, backup, ec);
  if (ec) return Error{target.string() + ": cannot set the earlier output aside: " + ec.message()};
  return {};
}

Status Identify(JournalEntry* e) {
  struct stat st {};
  if (::lstat(e->staged.c_str(), &st) != 0) {
    return Error{e->staged.string() + ": the staged output is missing"};
  }
  e->staged_device = static_cast<uint64_t>(st.st_dev);
  e->staged_inode = static_cast<uint64_t>(st.st_ino);
  return {};
}

// Everything moved back: the targets hold the earlier set again.
void Undo(const std::vector<JournalEntry>& entries, size_t aside, size_t moved) {
  for (size_t k = 0; k < entries.size(); ++k) {
    const auto& e = entries[k];
    std::error_code ec;
    UnregisterTemporaryPath(e.target);
    const bool filled = k < moved && !e.staged.empty();
    if (filled && e.backup.empty()) std::filesystem::remove_all(e.target, ec);  // only ours
    if (k >= aside || e.backup.empty()) continue;
    if (filled && std::filesystem::is_directory(std::filesystem::symlink_status(e.target, ec)))
      std::filesystem::remove_all(e.target, ec);
    std::filesystem::rename(e.backup, e.target, ec);
    // A file never replaced: the rename kept both names (one file) and the spare one goes.
    // Where the rename failed the backup is the only copy: it stays.
    if (!ec) std::filesystem::remove(e.backup, ec);
    UnregisterBackup(e.backup);
  }
}

}  // namespace

Status CommitOutputSet(
    const std::vector<std::pair<std::filesystem::path, std::filesystem::path>>& moves,
    const std::vector<std::filesystem::path>& removals) {
  if (moves.empty() && removals.empty()) return {};
  std::set<std::filesystem::path> folders;
  for (const auto& m : moves)
    folders.insert(FolderOf(m.second));
  for (const auto& r : removals)
    folders.insert(FolderOf(r));
  for (const auto& f : folders)
    RecoverInterruptedCommits(f);
  const std::string token = UniqueCommitToken();
  std::vector<JournalEntry> entries;
  std::error_code ec;
  const auto add = [&](const std::filesystem::path& staged,
                       const std::filesystem::path& target) -> Status {
    // Absolute: a recovery may run from another working directory.
    JournalEntry e{staged.empty() ? staged : std::filesystem::absolute(staged, ec),
                   std::filesystem::absolute(target, ec),
                   {},
                   0,
                   0};
    if (std::filesystem::exists(std::filesystem::symlink_status(target, ec)))
      e.backup = BackupPath(e.target, token);
    if (!staged.empty()) {
      if (Status s = Identify(&e); !s.ok()) return s;
    }
    entries.push_back(std::move(e));
    return {};
  };
  for (const auto& [staged, target] : moves) {
    if (Status s = add(staged, target); !s.ok()) return s;
  }
  for (const auto& r : removals) {
    if (Status s = add({}, r); !s.ok()) return s;
  }
  // Written before anything moves: a run killed from here on is finished by the next commit
  // into this folder (RecoverInterruptedCommits).
  auto journal = CommitJournal::Begin(FolderOf(entries.front().target), token, entries);
  if (!journal.ok()) return journal.status();
  // Catchable signals are handled in this process (interrupt_cleanup.h): the new outputs at
  // the targets count as temporaries and the backups go back.
  const size_t n = entries.size();
  size_t aside = 0;
  Status status;
  for (; aside < n && status.ok(); ++aside) {
    const auto& e = entries[aside];
    if (e.backup.empty()) continue;
    status = SetAsideRegistered([&] { return SetAside(e.target, e.backup, e.staged.empty()); },
                                e.backup, e.target);
  }
  if (!status.ok()) --aside;
  std::vector<std::filesystem::path> targets, backups;
  for (const auto& e : entries) {
    if (!e.staged.empty()) targets.push_back(e.target);
    if (!e.backup.empty()) backups.push_back(e.backup);
  }
  size_t moved = 0;
  if (status.ok()) {
    for (const auto& t : targets)
      RegisterTemporaryPath(t);
    // The moves and the commit point while no signal's cleanup can run between them.
    status = CommitWithCleanupHeld(
        [&]() -> Status {
          for (; moved < n; ++moved) {
            const auto& e = entries[moved];
            if (e.staged.empty()) continue;
            std::error_code move_error;
            std::filesystem::rename(e.staged, e.target, move_error);
            if (move_error)
              return Error{e.target.string() + ": cannot move into place: " + move_error.message()};
          }
          return journal->MarkCommitted();
        },
        targets, backups);
  }
  if (!status.ok()) {
    Undo(entries, aside, moved);
    return status;
  }
  for (const auto& b : backups)
    std::filesystem::remove_all(b, ec);
  return status;  // the journal's destructor removes it
}

}  // namespace lt
