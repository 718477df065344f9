// What an interrupted run leaves behind: nothing. Temporary files and folders are registered
// while they exist; on SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM or
// SIGPROF a watcher thread removes every registered path and the process then dies of the
// signal as it would have (exit status 128 + signal).
#pragma once

#include <signal.h>

#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "lidartwin/base/status.h"

namespace lt {

// The signals the watcher takes (blocked in every thread once it is installed): for a forked
// child to unblock, so that they end it as by default.
sigset_t InterruptSignals();

// Once, first thing in main(), before any other thread starts: blocks those signals in every
// thread and starts the watcher that waits for them.
void InstallInterruptCleanup();

// A file or folder (removed recursively) to delete if the process is interrupted. Safe to call
// without InstallInterruptCleanup() (tests, library use): then nothing watches.
void RegisterTemporaryPath(const std::filesystem::path& path);
void UnregisterTemporaryPath(const std::filesystem::path& path);
// Creates a folder and registers it in one step, under the lock the watcher holds to the
// process's end: an interrupt finds it registered or comes before it exists. (Created first and
// registered after, a signal between the two left it behind: found in CI by
// Interrupted.HdfAndPerFrameRunsLeaveNothingBehind, which signals as soon as it appears.)
// An existing folder or any other failure is an error naming the folder.
Status CreateRegisteredDirectory(const std::filesystem::path& dir);

// A registered folder (CreateRegisteredDirectory) removed, with what it holds, and unregistered
// when the scope that owns it ends: a job's scratch or staging folder.
struct RegisteredFolderRemover {
  RegisteredFolderRemover(std::filesystem::path folder) : dir(std::move(folder)) {}  // NOLINT
  RegisteredFolderRemover(const RegisteredFolderRemover&) = delete;                  // removed once
  RegisteredFolderRemover& operator=(const RegisteredFolderRemover&) = delete;
  ~RegisteredFolderRemover();
  const std::filesystem::path dir;
};

// An earlier output moved aside to `backup` while its replacement moves in: an interruption
// (after removing the temporaries, the replacement among them) renames it back to `original`.
void RegisterBackup(const std::filesystem::path& backup, const std::filesystem::path& original);
void UnregisterBackup(const std::filesystem::path& backup);
// Unregisters temporaries and backups in one step: the moment a replacement is complete.
void ForgetTogether(const std::vector<std::filesystem::path>& temporaries,
                    const std::vector<std::filesystem::path>& backups);

// Sets an earlier output aside (`set_aside` moves or links `original` to `backup`) and
// registers the backup in one step the cleanup cannot interleave with: a signal never finds
// the original moved and its backup unknown.
Status SetAsideRegistered(const std::function<Status()>& set_aside,
                          const std::filesystem::path& backup,
                          const std::filesystem::path& original);

// Runs `step` (the moves of a commit and its commit point) while the cleanup cannot run, and
// if it succeeds unregisters the temporaries and backups in the same step: a signal meanwhile
// waits, so the cleanup never removes a target that a move then fills (a mix of two runs).
Status CommitWithCleanupHeld(const std::function<Status()>& step,
                             const std::vector<std::filesystem::path>& temporaries,
                             const std::vector<std::filesystem::path>& backups);

// Whether process `pid` still runs (a zombie nobody reaped does not).
bool ProcessIsAlive(long pid);

// What killed runs (SIGKILL, power loss: nothing could clean up) left in `dir`: entries named
// PREFIX + PID whose process no longer exists, removed (recursively).
void RemoveLeftoversOfDeadProcesses(const std::filesystem::path& dir, const std::string& prefix);

// Renames a registered temporary onto its target and unregisters it, as one step the cleanup
// cannot interleave with: an interrupted run never gains a file after its cleanup ran.
Status RenameRegistered(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace lt
