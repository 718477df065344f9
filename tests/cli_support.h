// Running the built lidartwin binary from a test, as a user would (LT_CLI is its path).
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace lt::test {

struct CliRun {
  int code;
  std::string output;  // stdout and stderr
};

// Runs a shell command line, capturing stdout and stderr.
inline CliRun RunShell(const std::string& command) {
  const std::string cmd = command + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  CliRun r{-1, ""};
  if (!pipe) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0)
    r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// What a shell command line (output discarded) used: its exit code (-1 when it could not run),
// its peak resident memory in bytes (the largest of the processes it waited for, getrusage's
// ru_maxrss) and its CPU seconds, user + system (a cost that other work on the machine, ctest
// -j2 or a build beside it, does not inflate as it does wall time).
struct ShellUsage {
  int code = -1;
  long peak_rss_bytes = -1;
  double cpu_seconds = -1;
};

inline ShellUsage UsageOfShell(const std::string& command) {
  ShellUsage u;
  const pid_t pid = fork();
  if (pid < 0) return u;
  if (pid == 0) {
    const std::string quiet = "exec " + command + " >/dev/null 2>&1";
    execl("/bin/sh", "sh", "-c", quiet.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  struct rusage usage {};
  if (wait4(pid, &status, 0, &usage) != pid) return u;
  u.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  u.peak_rss_bytes = usage.ru_maxrss * 1024L;  // Linux reports KiB
  const auto seconds = [](const timeval& t) { return t.tv_sec + 1e-6 * t.tv_usec; };
  u.cpu_seconds = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  return u;
}

inline long PeakRssOfShell(const std::string& command, int* code) {
  const ShellUsage u = UsageOfShell(command);
  *code = u.code;
  return u.peak_rss_bytes;
}

inline CliRun Cli(const std::string& args) {
  return RunShell(std::string(LT_CLI) + " " + args);
}

// Single-quoted for the shell (built by appending: GCC 12 warns falsely on "'" + s + "'").
inline std::string Q(const std::filesystem::path& p) {
  std::string q = "'";
  q += p.string();
  q += '\'';
  return q;
}

inline std::string ReadAll(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

}  // namespace lt::test
