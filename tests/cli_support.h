// Running the built lidartwin binary from a test, as a user would (LT_CLI is its path).
#pragma once

#include <sys/wait.h>

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
