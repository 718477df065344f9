#include "lidartwin/jobs/export_workers.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/core.h>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <sstream>
#include <string_view>

#include "lidartwin/base/comma_list.h"
#include "lidartwin/base/host_cores.h"
#include "lidartwin/jobs/export_progress.h"

extern char** environ;

namespace lt::jobs {

std::optional<std::pair<uint32_t, uint32_t>> ParseShardOfShards(const std::string& text) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  uint32_t shard = 0, shards = 0;
  const char* b = text.data();
  auto a = std::from_chars(b, b + slash, shard);
  auto c = std::from_chars(b + slash + 1, b + text.size(), shards);
  if (a.ec != std::errc() || a.ptr != b + slash || c.ec != std::errc() ||
      c.ptr != b + text.size() || shard >= shards)
    return std::nullopt;
  return std::pair{shard, shards};
}

std::vector<std::string> WorkerArguments(const std::vector<std::string>& argv, uint32_t host_cores,
                                         uint32_t workers) {
  std::vector<std::string> out;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    const std::string name = a.substr(0, a.find('='));
    if (name == "--workers" || name == "--devices" || name == "--shards" ||
        name == "--host-cores") {
      if (name == a) ++i;  // its value is the next argument
      continue;
    }
    out.push_back(a);
  }
  out.push_back("--host-cores");
  out.push_back(
      std::to_string(CoresPerWorker(host_cores > 0 ? host_cores : UsableCores(), workers)));
  return out;
}

std::string ProgressLine(uint32_t shard, uint32_t done, uint32_t total, uint32_t resumed) {
  return fmt::format("lidartwin-progress {} {} {} {}\n", shard, done, total, resumed);
}

bool ParseProgressLine(const std::string& line, uint32_t& shard, uint32_t& done, uint32_t& total,
                       uint32_t& resumed) {
  std::istringstream in(line);
  std::string tag;
  return (in >> tag >> shard >> done >> total >> resumed) && tag == "lidartwin-progress";
}

std::string HashedLine(uint32_t shard, const FreshShardHash& hash) {
  std::string line = fmt::format("lidartwin-hashed {} {} {} {} {} {}", shard, hash.bytes,
                                 hash.inode, hash.device, hash.mtime_ns, hash.hashes.piece_bytes);
  for (const std::string& digest : hash.hashes.sha256)
    line += " " + digest;
  return line + "\n";
}

std::optional<FreshShardHash> ParseHashedLine(const std::string& line,
                                              const std::filesystem::path& folder, uint32_t shard,
                                              uint32_t shards) {
  std::istringstream in(line);
  std::string tag;
  std::string numbers[6];
  if (!(in >> tag) || tag != "lidartwin-hashed") return std::nullopt;
  for (std::string& n : numbers)
    if (!(in >> n)) return std::nullopt;
  // Each number whole, in range, and (but the time) without a sign: from_chars, where a stream
  // would take "-5" for 2^64 - 5.
  auto whole = [](const std::string& text, auto& value) {
    const char* end = text.data() + text.size();
    auto r = std::from_chars(text.data(), end, value);
    return r.ec == std::errc() && r.ptr == end;
  };
  uint32_t which = 0;
  FreshShardHash h;
  if (!whole(numbers[0], which) || !whole(numbers[1], h.bytes) || !whole(numbers[2], h.inode) ||
      !whole(numbers[3], h.device) || !whole(numbers[4], h.mtime_ns) ||
      !whole(numbers[5], h.hashes.piece_bytes) || which != shard || h.hashes.piece_bytes == 0) {
    return std::nullopt;
  }
  const uint64_t pieces = HashPieceCount(h.bytes, h.hashes.piece_bytes);
  for (std::string digest; in >> digest;) {
    if (!IsSha256Hex(digest) || h.hashes.sha256.size() == pieces) {
      return std::nullopt;
    }
    h.hashes.sha256.push_back(digest);
  }
  if (h.hashes.sha256.size() != pieces) return std::nullopt;
  h.hashes.bytes = h.bytes;
  h.file = folder / (ShardStem(shard, shards) + ".h5");
  return h;
}

std::string SummaryLine(const std::string& summary) {
  std::string line = "lidartwin-summary " + summary;
  std::replace(line.begin(), line.end(), '\n', ' ');
  return line + "\n";
}

std::optional<std::string> ParseSummaryLine(const std::string& line) {
  constexpr std::string_view kTag = "lidartwin-summary ";
  if (line.compare(0, kTag.size(), kTag) != 0) return std::nullopt;
  return line.substr(kTag.size());
}

namespace {

struct Child {
  pid_t pid = -1;
  int out = -1;  // read end of its stdout
  uint32_t shard = 0;
  size_t worker = 0;
  std::string pending;  // a partial line
};

// Starts `lidartwin export ARGS --shard i/N --report-progress` with its stdout on a pipe.
Child Spawn(const WorkerPlan& plan, uint32_t shard, size_t worker, std::string& error) {
  Child c;
  c.shard = shard;
  c.worker = worker;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    error = std::string("cannot make a pipe: ") + std::strerror(errno);
    return c;
  }
  std::vector<std::string> args = {"lidartwin", "export"};
  args.insert(args.end(), plan.shard_args.begin(), plan.shard_args.end());
  args.push_back("--shard");
  args.push_back(fmt::format("{}/{}", shard, plan.shards));
  args.push_back("--report-progress");
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    if (!plan.devices[worker].empty() && std::strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21) == 0) {
      continue;
    }
    env.emplace_back(*e);
  }
  if (!plan.devices[worker].empty()) env.push_back("CUDA_VISIBLE_DEVICES=" + plan.devices[worker]);
  std::vector<char*> envp;
  for (auto& e : env)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  const int rc =
      posix_spawn(&c.pid, plan.executable.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    c.pid = -1;
    error = std::string("cannot start a worker: ") + std::strerror(rc);
    return c;
  }
  c.out = fds[0];
  return c;
}

// The child's exit status, once it has ended.
int Reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::string ExitText(int status) {
  if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
  return "ended abnormally";
}

}  // namespace

std::vector<std::string> RunShardWorkers(const WorkerPlan& plan,
                                         std::vector<FreshShardHash>* hashed) {
  std::vector<std::string> failures;
  std::vector<std::string> summaries;  // the workers' shard summaries, printed at the end
  ExportProgressDisplay display(plan.frames);
  std::vector<Child> running;
  uint32_t next = 0;
  auto start_next = [&](size_t worker) {
    while (next < plan.shards) {
      std::string error;
      Child c = Spawn(plan, next, worker, error);
      if (c.pid > 0) {
        running.push_back(std::move(c));
        ++next;
        return;
      }
      failures.push_back(fmt::format("shard {}: {}", next++, error));
    }
  };
  for (size_t w = 0; w < plan.devices.size(); ++w)
    start_next(w);
  while (!running.empty()) {
    std::vector<pollfd> fds;
    for (const auto& c : running)
      fds.push_back({c.out, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), 200) < 0 && errno != EINTR) {
      // Cannot watch the workers any more: stop them all rather than join a partial folder.
      const std::string why = std::strerror(errno);
      for (Child& c : running) {
        ::kill(c.pid, SIGTERM);
        ::close(c.out);
        Reap(c.pid);
        failures.push_back(
            fmt::format("shard {}: stopped (cannot watch the workers: {})", c.shard, why));
      }
      running.clear();
      next = plan.shards;
      break;
    }
    // Read what each child wrote; note the ones whose pipe closed (they exited).
    std::vector<bool> ended(running.size(), false);
    for (size_t i = 0; i < running.size(); ++i) {
      if (fds[i].revents == 0) continue;
      Child& c = running[i];
      char buffer[4096];
      const ssize_t n = ::read(c.out, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ended[i] = true;
        continue;
      }
      c.pending.append(buffer, static_cast<size_t>(n));
      for (size_t eol; (eol = c.pending.find('\n')) != std::string::npos;) {
        const std::string line = c.pending.substr(0, eol);
        uint32_t shard, done, total, resumed;
        if (ParseProgressLine(line, shard, done, total, resumed)) {
          display.Update(shard, done, total, resumed);
        } else if (auto h = ParseHashedLine(line, plan.folder, c.shard, plan.shards); h && hashed) {
          hashed->push_back(std::move(*h));
        } else if (auto summary = ParseSummaryLine(line)) {
          summaries.push_back(std::move(*summary));
        }
        c.pending.erase(0, eol + 1);
      }
    }
    // Reap them, and give each freed worker the next shard.
    std::vector<Child> still;
    std::vector<size_t> freed;
    for (size_t i = 0; i < running.size(); ++i) {
      if (!ended[i]) {
        still.push_back(std::move(running[i]));
        continue;
      }
      Child& c = running[i];
      ::close(c.out);
      const int status = Reap(c.pid);
      if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        failures.push_back(fmt::format("shard {}: {}", c.shard, ExitText(status)));
      }
      freed.push_back(c.worker);
    }
    running = std::move(still);
    for (size_t worker : freed)
      start_next(worker);
    display.Draw();
  }
  display.Finish();
  std::sort(summaries.begin(), summaries.end());  // each begins with its shard's file: in order
  for (const std::string& summary : summaries)
    fmt::print(stderr, "{}\n", summary);
  if (failures.empty() && display.seconds() > 0) {
    fmt::print(stderr, "export: {} frames simulated in {:.2f} s by {} workers ({:.1f} frames/s)\n",
               display.simulated(), display.seconds(), plan.devices.size(),
               display.simulated() / display.seconds());
  }
  return failures;
}

Expected<std::vector<std::string>> ParseGpuList(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& d : CommaSeparated(text)) {
    if (d.empty() || d.find_first_not_of("0123456789") != std::string::npos || d.size() > 3)
      return OptionError("devices", "devices: '" + d + "' is not a GPU number (expected e.g. 0,1)");
    if (std::find(out.begin(), out.end(), d) != out.end())
      return OptionError("devices", "devices: GPU " + d + " is listed twice");
    out.push_back(d);
  }
  return out;
}

}  // namespace lt::jobs
