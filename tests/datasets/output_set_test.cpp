// Issue 36 item 4: a set of outputs replaced as one survives kill -9 at any moment of its
// commit. The visible set is the earlier one or the new one, and the next commit into the
// folder finishes what the dead process left (no ".NAME.old-PID" or journal stays).
#include <signal.h>
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
#include "lidartwin/datasets/interrupt_cleanup.h"
#include "lidartwin/datasets/output_set.h"
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

// `count` files "old k" in `dir`, and a staging folder of `count` files "new k" (plus one that
// has no earlier file, so a roll back must also remove a name).
Moves StageSet(const test::TempDir& dir, int count, const std::string& staging) {
  std::filesystem::create_directories(dir / staging);
  Moves moves;
  for (int k = 0; k < count; ++k) {
    std::ofstream(dir / Name(k)) << "old " << k;
    std::ofstream(dir / staging / Name(k)) << "new " << k;
    moves.emplace_back(dir / staging / Name(k), dir / Name(k));
  }
  std::ofstream(dir / staging / Name(count)) << "new " << count;
  moves.emplace_back(dir / staging / Name(count), dir / Name(count));
  return moves;
}

// "old", "new", or what is wrong with the folder's set.
std::string SetState(const test::TempDir& dir, int count, const std::string& staging) {
  int olds = 0, news = 0;
  for (int k = 0; k < count; ++k) {
    const std::string text = Read(dir / Name(k));
    if (text == "old " + std::to_string(k)) ++olds;
    if (text == "new " + std::to_string(k)) ++news;
  }
  const bool extra = std::filesystem::exists(dir / Name(count));
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    const std::string name = e.path().filename().string();
    if (name != staging && name.rfind("out_", 0) != 0) return "a leftover: " + name;
  }
  if (olds == count && !extra) return "old";
  if (news == count && extra && Read(dir / Name(count)) == "new " + std::to_string(count))
    return "new";
  return std::to_string(olds) + " earlier and " + std::to_string(news) + " new files" +
         (extra ? " and the added one" : "");
}

TEST(OutputSetCommit, AKillAtAnyMomentLeavesTheEarlierOrTheNewSet) {
  constexpr int kFiles = 400;
  std::mt19937 rng(36);
  int olds = 0, news = 0;
  for (int round = 0; round < 24; ++round) {
    test::TempDir dir;
    const Moves moves = StageSet(dir, kFiles, "staging");
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      const Status s = CommitOutputSet(moves);
      ::_exit(s.ok() ? 0 : 3);
    }
    // Killed once its journal exists, then a while later: before, during and after the moves.
    const auto journal = dir / (".lidartwin-commit-" + std::to_string(child));
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!std::filesystem::exists(journal) && std::chrono::steady_clock::now() < give_up) {
      int status = 0;
      if (::waitpid(child, &status, WNOHANG) == child) break;  // done before we saw it
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 60000));
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    EXPECT_EQ(RecoverInterruptedCommits(dir.path()) <= 1, true);
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

// A dead writer's journal as a kill leaves it half-way, made by hand: three targets set aside
// (second links), two replaced, one new name moved in.
TEST(OutputSetCommit, RecoveryBeforeTheCommitPointRestoresTheEarlierSet) {
  test::TempDir dir;
  const Moves moves = StageSet(dir, 3, "staging");
  std::vector<JournalEntry> entries;
  for (const auto& [staged, target] : moves) {
    JournalEntry e{staged, target, {}, 0, 0};
    if (std::filesystem::exists(target)) {
      e.backup = target.parent_path() / ("." + target.filename().string() + ".old-4194400");
      std::filesystem::create_hard_link(target, e.backup);
    }
    struct stat st {};
    ASSERT_EQ(::stat(staged.c_str(), &st), 0);
    e.staged_device = st.st_dev;
    e.staged_inode = st.st_ino;
    entries.push_back(e);
  }
  for (size_t k : {0u, 1u, 3u})
    std::filesystem::rename(moves[k].first, moves[k].second);
  std::ofstream(dir / ".lidartwin-commit-4194400") << JournalText(entries);
  EXPECT_EQ(RecoverInterruptedCommits(dir.path()), 1u);
  std::filesystem::remove_all(dir / "staging");
  EXPECT_EQ(SetState(dir, 3, "staging"), "old");
}

TEST(OutputSetCommit, RecoveryAfterTheCommitPointKeepsTheNewSet) {
  test::TempDir dir;
  const Moves moves = StageSet(dir, 3, "staging");
  std::vector<JournalEntry> entries;
  for (const auto& [staged, target] : moves) {
    JournalEntry e{staged, target, {}, 1, 1};
    if (std::filesystem::exists(target)) {
      e.backup = target.parent_path() / ("." + target.filename().string() + ".old-4194400");
      std::filesystem::create_hard_link(target, e.backup);
    }
    entries.push_back(e);
    std::filesystem::rename(staged, target);
  }
  std::ofstream(dir / ".lidartwin-committed-4194400") << JournalText(entries);
  EXPECT_EQ(RecoverInterruptedCommits(dir.path()), 1u);
  EXPECT_EQ(SetState(dir, 3, "staging"), "new");
}

TEST(OutputSetCommit, AJournalOfALiveProcessOrNotOursIsLeftAlone) {
  test::TempDir dir;
  const Moves moves = StageSet(dir, 2, "staging");
  // The parent process (the test runner's shell or ctest) is alive.
  const auto live = dir / (".lidartwin-commit-" + std::to_string(::getppid()));
  std::ofstream(live) << JournalText({{moves[0].first, moves[0].second, {}, 0, 0}});
  const auto garbled = dir / ".lidartwin-commit-4194400";
  std::ofstream(garbled) << "lidartwin commit journal 1\nentries 9\n3:abc\nend\n";
  EXPECT_EQ(RecoverInterruptedCommits(dir.path()), 0u);
  EXPECT_TRUE(std::filesystem::exists(live));
  EXPECT_TRUE(std::filesystem::exists(garbled));
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

// The commit itself: the earlier files replaced, a name it did not have added, nothing left.
TEST(OutputSetCommit, ACommitReplacesTheSetAndLeavesNothingBeside) {
  test::TempDir dir;
  const Moves moves = StageSet(dir, 5, "staging");
  ASSERT_TRUE(CommitOutputSet(moves).ok());
  std::filesystem::remove(dir / "staging");  // empty now
  EXPECT_EQ(SetState(dir, 5, "staging"), "new");
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
