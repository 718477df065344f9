#include "lidartwin/datasets/output_set.h"

#include <sys/stat.h>
#include <unistd.h>

#include <optional>
#include <set>
#include <string>

#include "commit_journal.h"
#include "lidartwin/datasets/interrupt_cleanup.h"

namespace lt {

namespace {

std::filesystem::path FolderOf(const std::filesystem::path& p) {
  return p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
}

// Where the earlier output at `target` is kept while the new one moves in.
std::filesystem::path BackupPath(const std::filesystem::path& target) {
  std::string name = "." + target.filename().string();
  const std::string suffix = ".old-" + std::to_string(::getpid());
  if (name.size() + suffix.size() > 255) name.resize(255 - suffix.size());
  return target.parent_path() / (name + suffix);
}

// A file's earlier version is kept as a second link to it, so its name never stops naming a
// whole file (the new one then replaces it in one rename); a folder, which cannot be linked,
// is moved aside.
Status SetAside(const std::filesystem::path& target, const std::filesystem::path& backup) {
  std::error_code ec;
  std::filesystem::remove_all(backup, ec);  // our own, from a commit that could not remove it
  if (std::filesystem::is_directory(std::filesystem::symlink_status(target, ec))) {
    std::filesystem::rename(target, backup, ec);
  } else {
    std::filesystem::create_hard_link(target, backup, ec);
  }
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
    if (k < moved && e.backup.empty()) std::filesystem::remove_all(e.target, ec);  // only ours
    if (k >= aside || e.backup.empty()) continue;
    if (k < moved && std::filesystem::is_directory(std::filesystem::symlink_status(e.target, ec)))
      std::filesystem::remove_all(e.target, ec);
    std::filesystem::rename(e.backup, e.target, ec);
    std::filesystem::remove(e.backup, ec);  // a file never replaced: both names are one file
    UnregisterBackup(e.backup);
  }
}

}  // namespace

Status CommitOutputSet(
    const std::vector<std::pair<std::filesystem::path, std::filesystem::path>>& moves) {
  if (moves.empty()) return {};
  std::set<std::filesystem::path> folders;
  for (const auto& m : moves)
    folders.insert(FolderOf(m.second));
  for (const auto& f : folders)
    RecoverInterruptedCommits(f);
  std::vector<JournalEntry> entries;
  for (const auto& [staged, target] : moves) {
    JournalEntry e{staged, target, {}, 0, 0};
    std::error_code ec;
    if (std::filesystem::exists(std::filesystem::symlink_status(target, ec)))
      e.backup = BackupPath(target);
    if (Status s = Identify(&e); !s.ok()) return s;
    entries.push_back(std::move(e));
  }
  // Written before anything moves: a run killed from here on is finished by the next commit
  // into this folder (RecoverInterruptedCommits).
  auto journal = CommitJournal::Begin(FolderOf(moves.front().second), entries);
  if (!journal.ok()) return journal.status();
  // Catchable signals are handled in this process (interrupt_cleanup.h): the new outputs at
  // the targets count as temporaries and the backups go back.
  const size_t n = entries.size();
  size_t aside = 0;
  Status status;
  for (; aside < n && status.ok(); ++aside) {
    const auto& e = entries[aside];
    if (e.backup.empty()) continue;
    RegisterBackup(e.backup, e.target);
    status = SetAside(e.target, e.backup);
    if (!status.ok()) UnregisterBackup(e.backup);
  }
  if (!status.ok()) --aside;
  size_t moved = 0;
  if (status.ok()) {
    for (const auto& e : entries)
      RegisterTemporaryPath(e.target);
    for (; moved < n; ++moved) {
      std::error_code ec;
      std::filesystem::rename(entries[moved].staged, entries[moved].target, ec);
      if (ec) {
        status =
            Error{entries[moved].target.string() + ": cannot move into place: " + ec.message()};
        break;
      }
    }
  }
  if (status.ok()) status = journal->MarkCommitted();  // the commit point
  if (!status.ok()) {
    Undo(entries, aside, moved);
    return status;
  }
  std::vector<std::filesystem::path> targets, backups;
  for (const auto& e : entries) {
    targets.push_back(e.target);
    if (!e.backup.empty()) backups.push_back(e.backup);
  }
  ForgetTogether(targets, backups);
  for (const auto& b : backups) {
    std::error_code ec;
    std::filesystem::remove_all(b, ec);
  }
  return status;  // the journal's destructor removes it
}

}  // namespace lt
