#include "lidartwin/base/interrupt_cleanup.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <functional>

#include <map>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>
#include <vector>

namespace lt {

namespace {

std::mutex& RegistryMutex() {
  static std::mutex m;
  return m;
}

std::multiset<std::filesystem::path>& Registry() {
  static std::multiset<std::filesystem::path> paths;
  return paths;
}

// Earlier outputs set aside while their replacements move in: backup -> original.
std::map<std::filesystem::path, std::filesystem::path>& Backups() {
  static std::map<std::filesystem::path, std::filesystem::path> backups;
  return backups;
}

}  // namespace

sigset_t InterruptSignals() {
  sigset_t set;
  sigemptyset(&set);
  // Every signal sent to the process whose default action ends it (issue 36: SIGUSR1 and
  // SIGALRM left a .tmp). Not SIGPIPE or SIGXFSZ: the kernel sends those to the thread whose
  // write failed, and the watcher's sigwait in another thread would never see them (SIGPIPE is
  // handed over by a handler, below; SIGXFSZ is a write error like a full disk).
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF})
    sigaddset(&set, sig);
  return set;
}

namespace {

// SIGPIPE (a reader of our stdout that went away: `simulate | head`) comes to the thread that
// wrote, where the watcher's sigwait cannot see it. Its handler hands it over: it notes the
// signal and sends the process a SIGTERM, which the watcher takes, cleans up after and then
// ends the process by SIGPIPE as it would have. The writing thread waits in the handler
// meanwhile (pause is async-signal-safe), so it never goes on past a failed write.
volatile sig_atomic_t g_broken_pipe = 0;
pid_t g_watched_process = 0;  // where the watcher runs (not a child forked from it)

void OnBrokenPipe(int) {
  if (::getpid() != g_watched_process) {  // no watcher here: die of it as by default
    ::signal(SIGPIPE, SIG_DFL);
    ::raise(SIGPIPE);  // delivered when the handler returns
    return;
  }
  g_broken_pipe = 1;
  ::kill(::getpid(), SIGTERM);
  for (;;)
    ::pause();
}

// Waits for a signal with ordinary code (not a handler): removing folders recursively is not
// async-signal-safe. Holds the registry lock to the end, so no new temporary appears while the
// old ones go; then lets the signal take its default action on this thread.
[[noreturn]] void Watch() {
  const sigset_t set = InterruptSignals();
  int sig = 0;
  while (sigwait(&set, &sig) != 0) {
  }
  std::lock_guard<std::mutex> lock(RegistryMutex());
  // Another thread may still be writing into a staging folder: new names there need the lock
  // (registering a temporary, committing one), so a few passes empty it for good.
  for (const auto& p : Registry()) {
    for (int pass = 0; pass < 50; ++pass) {
      std::error_code ec;
      std::filesystem::remove_all(p, ec);
      if (!std::filesystem::exists(std::filesystem::symlink_status(p, ec))) break;
    }
  }
  // Then the earlier outputs go back where they were.
  for (const auto& [backup, original] : Backups()) {
    std::error_code ec;
    std::filesystem::rename(backup, original, ec);
    // A file's backup is a second link to it: where the original was never replaced, the
    // rename leaves both names (one file), and the spare one goes.
    if (!ec) std::filesystem::remove(backup, ec);
  }
  if (sig == SIGTERM && g_broken_pipe) sig = SIGPIPE;
  signal(sig, SIG_DFL);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  raise(sig);
  for (;;)
    pause();  // the signal ends the process
}

}  // namespace

// A process that is gone, or a zombie nobody reaped (a container whose first process does not
// reap orphans keeps a killed run's PID as a zombie), is not alive.
bool ProcessIsAlive(long pid) {
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;  // no /proc: trust kill()
  const size_t paren = line.rfind(')');        // the name may hold spaces and parentheses
  return !(paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z');
}

void RemoveLeftoversOfDeadProcesses(const std::filesystem::path& dir, const std::string& prefix) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    const long pid = std::strtol(digits.c_str(), nullptr, 10);
    if (pid > 0 && pid != ::getpid() && !ProcessIsAlive(pid)) {
      std::error_code ignored;
      std::filesystem::remove_all(it->path(), ignored);
    }
  }
}

void InstallInterruptCleanup() {
  const sigset_t set = InterruptSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  g_watched_process = ::getpid();
  struct sigaction pipe_action {};
  pipe_action.sa_handler = OnBrokenPipe;
  sigemptyset(&pipe_action.sa_mask);
  sigaction(SIGPIPE, &pipe_action, nullptr);
  // A file grown past the process's size limit (ulimit -f) is a write error like a full disk:
  // the write fails with EFBIG and the writer removes its temporary file, instead of the
  // process dying with it left behind.
  ::signal(SIGXFSZ, SIG_IGN);
  std::thread(Watch).detach();
}

void RegisterTemporaryPath(const std::filesystem::path& path) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Registry().insert(path);
}

Status RenameRegistered(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  std::error_code ec;
  std::filesystem::rename(from, to, ec);
  if (ec) return Error{to.string() + ": cannot move the finished file into place: " + ec.message()};
  auto it = Registry().find(from);
  if (it != Registry().end()) Registry().erase(it);
  return {};
}

void RegisterBackup(const std::filesystem::path& backup, const std::filesystem::path& original) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Backups()[backup] = original;
}

void UnregisterBackup(const std::filesystem::path& backup) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Backups().erase(backup);
}

namespace {
void ForgetLocked(const std::vector<std::filesystem::path>& temporaries,
                  const std::vector<std::filesystem::path>& backups) {
  for (const auto& t : temporaries) {
    auto it = Registry().find(t);
    if (it != Registry().end()) Registry().erase(it);
  }
  for (const auto& b : backups)
    Backups().erase(b);
}
}  // namespace

void ForgetTogether(const std::vector<std::filesystem::path>& temporaries,
                    const std::vector<std::filesystem::path>& backups) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  ForgetLocked(temporaries, backups);
}

Status SetAsideRegistered(const std::function<Status()>& set_aside,
                          const std::filesystem::path& backup,
                          const std::filesystem::path& original) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Status s = set_aside();
  if (s.ok()) Backups()[backup] = original;
  return s;
}

Status CommitWithCleanupHeld(const std::function<Status()>& step,
                             const std::vector<std::filesystem::path>& temporaries,
                             const std::vector<std::filesystem::path>& backups) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Status s = step();
  if (s.ok()) ForgetLocked(temporaries, backups);
  return s;
}

Status CreateRegisteredDirectory(const std::filesystem::path& dir) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  std::error_code ec;
  if (!std::filesystem::create_directory(dir, ec)) {
    return Error{dir.string() + ": cannot create the folder" +
                 (ec ? ": " + ec.message() : std::string(": it exists"))};
  }
  Registry().insert(dir);
  return {};
}

void UnregisterTemporaryPath(const std::filesystem::path& path) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto it = Registry().find(path);
  if (it != Registry().end()) Registry().erase(it);
}

RegisteredFolderRemover::~RegisteredFolderRemover() {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  UnregisterTemporaryPath(dir);
}

}  // namespace lt
