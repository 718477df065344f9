#include "isolated_call.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "lidartwin/base/interrupt_cleanup.h"

namespace lt {

namespace {
// Child exit codes: anything else (a sanitizer exits 1, a crash is a signal) means it failed.
constexpr int kProbeOk = 0;
constexpr int kProbeFoundError = 3;
}  // namespace

Status RunIsolated(const std::string& what, const std::function<bool()>& probe, unsigned seconds) {
  const pid_t pid = ::fork();
  if (pid < 0) return {};
  if (pid == 0) {
    // The parent blocks SIGINT and friends for its cleanup thread (interrupt_cleanup.h), which
    // the child does not have: here they take their default action again.
    const sigset_t interrupts = InterruptSignals();
    pthread_sigmask(SIG_UNBLOCK, &interrupts, nullptr);
    ::alarm(seconds);  // a read that never ends is killed by SIGALRM
    const bool ok = probe();
    ::_exit(ok ? kProbeOk : kProbeFoundError);  // no atexit handlers, no stdio flush
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return {};
  }
  if (WIFEXITED(status) &&
      (WEXITSTATUS(status) == kProbeOk || WEXITSTATUS(status) == kProbeFoundError)) {
    return {};
  }
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
    return Error{what + ": reading it did not finish within " + std::to_string(seconds) +
                 " s (corrupt file?)"};
  }
  const std::string how = WIFSIGNALED(status)
                              ? std::string("signal ") + std::to_string(WTERMSIG(status)) + ", " +
                                    ::strsignal(WTERMSIG(status))
                              : "exit code " + std::to_string(WEXITSTATUS(status));
  return Error{what + ": corrupt file: the library reading it failed (" + how +
               ") in a separate process; nothing was read"};
}

}  // namespace lt
