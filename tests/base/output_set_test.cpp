// Issue 36 item 4: a set of outputs replaced as one survives kill -9 at any moment of its
// commit. The visible set is the earlier one or the new one, and the next commit into the
// folder finishes what the dead process left (no ".NAME.old-PID" or journal stays).
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "commit_journal.h"
#include "lidartwin/base/interrupt_cleanup.h"
#include "lidartwin/base/output_set.h"
#include "test_support.h"

namespace lt {
namespace {

using Moves = std::vector<std::pair<std::filesystem::path, std::filesystem::path>>;

std::string Read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Name(int k) {
  char name[32];
  std::snprintf(name, sizeof(name), "out_%06d.pcd", k);
  return name;
}

// The earlier set: files 0..count+kExtras-1 reading "old k". The new set, staged: files
// 0..count-1 reading "new k" and one more name the earlier set did not have (a roll back must
// remove it); the earlier set's last kExtras files are removed by the commit (an earlier,
// longer run's frames). Paths relative to `dir` when `relative` (the journal must still name
// them absolutely).
constexpr int kExtras = 3;
int AddedName(int count) {
  return count + 10;
}

struct Staged {
  Moves moves;
  std::vector<std::filesystem::path> removals;
};

Staged StageSet(const test::TempDir& dir, int count, const std::string& staging,
                bool relative = false) {
  std::filesystem::create_directories(dir / staging);
  const std::filesystem::path base = relative ? std::filesystem::path() : dir.path();
  Staged s;
  for (int k = 0; k < count + kExtras; ++k)
    std::ofstream(dir / Name(k)) << "old " << k;
  for (int k = 0; k < count; ++k) {
    std::ofstream(dir / staging / Name(k)) << "new " << k;
    s.moves.emplace_back(base / staging / Name(k), base / Name(k));
  }
  const int added = AddedName(count);
  std::ofstream(dir / staging / Name(added)) << "new " << added;
  s.moves.emplace_back(base / staging / Name(added), base / Name(added));
  for (int k = count; k < count + kExtras; ++k)
    s.removals.push_back(base / Name(k));
  return s;
}

// "old", "new", or what is wrong with the folder's set.
std::string SetState(const test::TempDir& dir, int count, const std::string& staging) {
  int olds = 0, news = 0, extras = 0;
  for (int k = 0; k < count; ++k) {
    const std::string text = Read(dir / Name(k));
    if (text == "old " + std::to_string(k)) ++olds;
    if (text == "new " + std::to_string(k)) ++news;
  }
  for (int k = count; k < count + kExtras; ++k)
    if (Read(dir / Name(k)) == "old " + std::to_string(k)) ++extras;
  const int added_name = AddedName(count);
  const bool added = std::filesystem::exists(dir / Name(added_name));
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    const std::string name = e.path().filename().string();
    if (name != staging && name.rfind("out_", 0) != 0) return "a leftover: " + name;
  }
  if (olds == count && extras == kExtras && !added) return "old";
  if (news == count && extras == 0 && added &&
      Read(dir / Name(added_name)) == "new " + std::to_string(added_name))
    return "new";
  return std::to_string(olds) + " earlier and " + std::to_string(news) + " new files, " +
         std::to_string(extras) + " earlier extras" + (added ? " and the added one" : "");
}

bool JournalExists(const test::TempDir& dir) {
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    if (e.path().filename().string().rfind(".lidartwin-commit", 0) == 0) return true;
  return false;
}

// Each round kills the committing child at a random moment; the child works from inside the
// folder with relative paths, the recovery from elsewhere (the journal names them absolutely).
TEST(OutputSetCommit, AKillAtAnyMomentLeavesTheEarlierOrTheNewSet) {
  constexpr int kFiles = 400;
  std::mt19937 rng(36);
  int olds = 0, news = 0;
  for (int round = 0; round < 24; ++round) {
    test::TempDir dir;
    const Staged staged = StageSet(dir, kFiles, "staging", /*relative=*/true);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      if (::chdir(dir.path().c_str()) != 0) ::_exit(4);
      const Status s = CommitOutputSet(staged.moves, staged.removals);
      ::_exit(s.ok() ? 0 : 3);
    }
    // Killed once its journal exists, then a while later: before, during and after the moves.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!JournalExists(dir) && std::chrono::steady_clock::now() < give_up) {
      int status = 0;
      if (::waitpid(child, &status, WNOHANG) == child) break;  // done before we saw it
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 60000));
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    EXPECT_LE(RecoverInterruptedCommits(dir.path()), 1u);
    std::filesystem::remove_all(dir / "staging");  // the next run's staging cleanup
    const std::string state = SetState(dir, kFiles, "staging");
    ASSERT_TRUE(state == "old" || state == "new") << "round " << round << ": " << state;
    (state == "old" ? olds : news) += 1;
  }
  // Both outcomes occur, so the kills landed on both sides of the commit point.
  RecordProperty("rolled_back", olds);
  RecordProperty("kept", news);
  EXPECT_GT(olds, 0);
  EXPECT_GT(news, 0);
}

// Entries as CommitOutputSet writes them: absolute paths, the staged file's identity.
std::vector<JournalEntry> EntriesOf(const Staged& staged, const std::string& token) {
  std::vector<JournalEntry> entries;
  const auto add = [&](const std::filesystem::path& from, const std::filesystem::path& target) {
    JournalEntry e{from, target, {}, 0, 0};
    if (std::filesystem::exists(target)) {
      e.backup = target.parent_path() / ("." + target.filename().string() + ".old-" + token);
      if (from.empty())
        std::filesystem::rename(target, e.backup);
      else
        std::filesystem::create_hard_link(target, e.backup);
    }
    struct stat st {};
    if (!from.empty() && ::stat(from.c_str(), &st) == 0) {
      e.staged_device = st.st_dev;
      e.staged_inode = st.st_ino;
    }
    entries.push_back(e);
  };
  for (const auto& [from, target] : staged.moves)
    add(from, target);
  for (const auto& r : staged.removals)
    add({}, r);
  return entries;
}

// A dead writer's journal as a kill leaves it half-way, made by hand: every earlier file set
// aside, two replaced, the added name moved in. The writer's PID is this process's own (a
// container reuses it): the free lock tells the writer is gone.
TEST(OutputSetCommit, RecoveryBeforeTheCommitPointRestoresTheEarlierSet) {
  test::TempDir dir;
  const Staged staged = StageSet(dir, 3, "staging");
  const std::string token = std::to_string(::getpid()) + "-0-feed";
  const auto entries = EntriesOf(staged, token);
  for (size_t k : {0u, 1u, 3u})
    std::filesystem::rename(staged.moves[k].first, staged.moves[k].second);
  std::ofstream(dir / (".lidartwin-commit-" + token)) << JournalText(entries);
  EXPECT_EQ(RecoverInterruptedCommits(dir.path()), 1u);
  std::filesystem::remove_all(dir / "staging");
  EXPECT_EQ(SetState(dir, 3, "staging"), "old");
}

TEST(OutputSetCommit, RecoveryAfterTheCommitPointKeepsTheNewSet) {
  test::TempDir dir;
  const Staged staged = StageSet(dir, 3, "staging");
  const auto entries = EntriesOf(staged, "4194400-0-beef");
  for (const auto& [from, target] : staged.moves)
    std::filesystem::rename(from, target);
  std::ofstream(dir / ".lidartwin-committed-4194400-0-beef") << JournalText(entries);
  EXPECT_EQ(RecoverInterruptedCommits(dir.path()), 1u);
  EXPECT_EQ(SetState(dir, 3, "staging"), "new");
}

// A file put at a target after the crash is not the dead run's: the roll back leaves it (and
// the earlier file's backup beside it) instead of overwriting it.
TEST(OutputSetCommit, RecoveryNeverReplacesAFileThatIsNotOurs) {
  test::TempDir dir;
  const Staged staged = StageSet(dir, 2, "staging");
  const auto entries = EntriesOf(staged, "4194400-0-cafe");
  std::filesystem::remove(staged.moves[0].second);
  std::ofstream(staged.moves[0].second) << "the user's own";
  std::ofstream(dir / ".lidartwin-commit-4194400-0-cafe") << JournalText(entries);
  RecoverInterruptedCommits(dir.path());
  EXPECT_EQ(Read(staged.moves[0].second), "the user's own");
  EXPECT_EQ(Read(entries[0].backup), "old 0");
  EXPECT_EQ(Read(staged.moves[1].second), "old 1");  // the others restored
}

TEST(OutputSetCommit, AJournalOfALiveWriterOrNotOursIsLeftAlone) {
  test::TempDir dir;
  const Staged staged = StageSet(dir, 2, "staging");
  // A live writer holds the lock on its journal (this process, here).
  const auto live = dir / ".lidartwin-commit-4194400-0-aaaa";
  std::ofstream(live) << JournalText({{staged.moves[0].first, staged.moves[0].second, {}, 0, 0}});
  const int fd = ::open(live.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  const auto garbled = dir / ".lidartwin-commit-4194400-0-bbbb";
  std::ofstream(garbled) << "lidartwin commit journal 1\nentries 9\n3:abc\nend\n";
  EXPECT_EQ(RecoverInterruptedCommits(dir.path()), 0u);
  EXPECT_TRUE(std::filesystem::exists(live));
  EXPECT_TRUE(std::filesystem::exists(garbled));
  ::close(fd);
}

TEST(OutputSetCommit, TheJournalReadsBackAnyNameAndKnowsWhenItWasCutShort) {
  std::vector<JournalEntry> entries = {
      {"/a/st aged\n1", "/a/tar\tget:1", "", 7, 9},
      {"/a/2", "/a/b", "/a/.b.old-12", 18446744073709551615ull, 3}};
  const std::string text = JournalText(entries);
  std::vector<JournalEntry> back;
  ASSERT_EQ(ParseJournal(text, &back), JournalRead::kComplete);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].staged, entries[0].staged);
  EXPECT_EQ(back[0].target, entries[0].target);
  EXPECT_TRUE(back[0].backup.empty());
  EXPECT_EQ(back[1].backup, entries[1].backup);
  EXPECT_EQ(back[1].staged_device, 18446744073709551615ull);
  EXPECT_EQ(back[1].staged_inode, 3u);
  for (size_t cut = 0; cut < text.size(); ++cut)
    EXPECT_NE(ParseJournal(text.substr(0, cut), &back), JournalRead::kComplete) << cut;
}

// The commit itself: the earlier files replaced, a name it did not have added, the extras
// removed, nothing left beside.
TEST(OutputSetCommit, ACommitReplacesTheSetAndLeavesNothingBeside) {
  test::TempDir dir;
  const Staged staged = StageSet(dir, 5, "staging");
  ASSERT_TRUE(CommitOutputSet(staged.moves, staged.removals).ok());
  std::filesystem::remove(dir / "staging");  // empty now
  EXPECT_EQ(SetState(dir, 5, "staging"), "new");
}

// Review of issue 36: names so long that the backup's must be cut shared one backup name, and
// the second file's set-aside replaced the first's backup. The cut names now carry a hash.
TEST(OutputSetCommit, LongNamesSharingTheirStartKeepBackupsOfTheirOwn) {
  test::TempDir dir;
  std::filesystem::create_directories(dir / "s");
  Moves moves;
  for (int k = 0; k < 3; ++k) {
    const std::string name = std::string(240, 'n') + "_" + std::to_string(k) + ".pcd";
    std::ofstream(dir / name) << "old " << k;
    std::ofstream(dir / "s" / std::to_string(k)) << "new " << k;
    moves.emplace_back(dir / "s" / std::to_string(k), dir / name);
  }
  ASSERT_TRUE(CommitOutputSet(moves).ok());
  for (int k = 0; k < 3; ++k)
    EXPECT_EQ(Read(moves[k].second), "new " + std::to_string(k));
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path()))
    ++entries;
  EXPECT_EQ(entries, 4u);  // the three outputs and the (empty) staging folder
}

// Issue 36 messages: a reader of our output that goes away (`lidartwin ... 2>&1 | head`) ends
// the run by SIGPIPE, which comes to the writing thread rather than to the cleanup's watcher:
// its temporaries stayed. Now the run still dies of SIGPIPE, and they are gone.
TEST(InterruptCleanup, ABrokenPipeEndsTheRunWithoutLeavingTemporaries) {
  test::TempDir dir;
  const auto temp = dir / "out.h5.tmp-1";
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);  // nobody reads
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    InstallInterruptCleanup();
    RegisterTemporaryPath(temp);
    std::ofstream(temp) << "partial";
    std::thread([&] {
      const char line[] = "progress\n";
      for (int k = 0; k < 1000; ++k)
        if (::write(fds[1], line, sizeof line - 1) < 0) break;
    }).join();
    ::_exit(3);  // not reached: the pipe ends the process
  }
  ::close(fds[1]);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE) << status;
  EXPECT_FALSE(std::filesystem::exists(temp));
}

}  // namespace
}  // namespace lt
