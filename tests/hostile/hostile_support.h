// The hostile-input suite's tools: damaged copies of a good file, runs under a file-size limit
// (a disk that fills up), runs interrupted by a signal, runs as an unprivileged user, and the
// checks every such run must pass (no crash, no temporary left, existing outputs unchanged).
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "cli_support.h"
#include "test_support.h"

namespace lt::test {

// Copies of `good` made hostile, each in `dir`: truncated at three points, and with bits flipped
// at deterministic offsets spread over the file (header, middle, tail).
struct DamagedFile {
  std::string kind;
  std::filesystem::path path;
};

inline std::vector<DamagedFile> DamagedCopies(const std::filesystem::path& good,
                                              const std::filesystem::path& dir) {
  const std::string bytes = ReadAll(good);
  const std::string stem = good.stem().string(), ext = good.extension().string();
  std::vector<DamagedFile> out;
  const auto write = [&](const std::string& kind, const std::string& content) {
    const auto p = dir / (stem + "_" + kind + ext);
    std::ofstream(p, std::ios::binary) << content;
    out.push_back({kind, p});
  };
  write("empty", "");
  for (double f : {0.05, 0.5, 0.97})
    write("truncated" + std::to_string(static_cast<int>(f * 100)),
          bytes.substr(0, static_cast<size_t>(static_cast<double>(bytes.size()) * f)));
  for (int k = 0; k < 6; ++k) {
    std::string flipped = bytes;
    // Offsets from a fixed linear congruence: the same copies in every run.
    for (int i = 0; i < 8 && !flipped.empty(); ++i) {
      const size_t at = (static_cast<size_t>(k) * 7919 + static_cast<size_t>(i) * 104729 +
                         static_cast<size_t>(k * i) * 15485863) %
                        (k < 2 ? std::min<size_t>(flipped.size(), 512) : flipped.size());
      flipped[at] = static_cast<char>(flipped[at] ^ (1 << ((k + i) % 8)));
    }
    write("bitflip" + std::to_string(k), flipped);
  }
  return out;
}

// Every file in `dir` (not recursive) whose name says it is a temporary of ours.
inline std::vector<std::string> Temporaries(const std::filesystem::path& dir) {
  std::vector<std::string> found;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.find(".tmp-") != std::string::npos) found.push_back(name);
  }
  return found;
}

// The checks of every hostile run: it ended by itself with one of the documented exit codes
// (0, 1, 2, 3; never a signal or an abort), and no temporary file is left in `out_dir`.
inline void ExpectNoCrashAndNoLeftovers(const CliRun& r, const std::filesystem::path& out_dir,
                                        const std::string& what) {
  EXPECT_GE(r.code, 0) << what << ": killed by a signal\n" << r.output;
  EXPECT_LE(r.code, 3) << what << ": exit code " << r.code << "\n" << r.output;
  EXPECT_EQ(r.output.find("terminate called"), std::string::npos) << what << "\n" << r.output;
  EXPECT_EQ(r.output.find("Assertion"), std::string::npos) << what << "\n" << r.output;
  EXPECT_TRUE(Temporaries(out_dir).empty()) << what << ": left " << Temporaries(out_dir).front();
}

// Runs `args` with files limited to `kib` KiB: writes beyond fail with EFBIG, as on a full disk
// (SIGXFSZ ignored, so the write returns the error instead of killing the process).
inline CliRun CliWithFileSizeLimit(const std::string& args, int kib) {
  return RunShell("trap '' XFSZ; ulimit -f " + std::to_string(kib) + "; exec " +
                  std::string(LT_CLI) + " " + args);
}

// The prefix that runs a command as user nobody when the tests run as root (CI does): root
// reads any file whatever its mode, so a permission test needs an ordinary user.
inline std::string AsOrdinaryUser() {
  return ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
}

// Starts the CLI, waits until `ready` (e.g. its temporary file exists), sends `sig` and returns
// the wait status. Output goes to `log`.
template <typename Ready>
int RunAndInterrupt(const std::vector<std::string>& args, const std::filesystem::path& log, int sig,
                    Ready ready) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::vector<char*> argv;
    std::string cli = LT_CLI;
    argv.push_back(cli.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    FILE* f = std::freopen(log.c_str(), "w", stdout);
    if (f) ::dup2(::fileno(stdout), 2);
    ::execv(LT_CLI, argv.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int status = 0;
  while (!ready() && std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return status;  // finished before the signal
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, sig);
  ::waitpid(pid, &status, 0);
  return status;
}

}  // namespace lt::test
