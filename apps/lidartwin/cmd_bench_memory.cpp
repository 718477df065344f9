// `lidartwin bench --memory`: peak memory of simulate and convert, short job against long job
// (issue 11: frames stream to their writer, so the long job's peak stays within 10 % of the
// short one's).
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "args.h"
#include "bench_memory.h"
#include "built_in.h"
#include "commands.h"
#include "lidartwin/bench/cpu_bench.h"
#include "lidartwin/bench/memory_bench.h"
#include "lidartwin/datasets/interrupt_cleanup.h"

namespace lt::cli {

namespace {

struct Pair {
  std::string job;
  std::string size_small, size_large;
  bench::ChildRun small, large;
  double Growth() const {
    return small.max_rss_kib ? static_cast<double>(large.max_rss_kib) / small.max_rss_kib - 1 : 0;
  }
};

void Print(const Pair& p) {
  fmt::print(
      "{:<10} {:>16} {:>10.1f} MiB {:>8.1f} s | {:>16} {:>10.1f} MiB {:>8.1f} s | {:+6.1f} %\n",
      p.job, p.size_small, p.small.max_rss_kib / 1024.0, p.small.seconds, p.size_large,
      p.large.max_rss_kib / 1024.0, p.large.seconds, 100 * p.Growth());
}

nlohmann::json ToJson(const Pair& p) {
  const auto run = [](const std::string& size, const bench::ChildRun& r) {
    return nlohmann::json{{"size", size},
                          {"max_rss_mib", r.max_rss_kib / 1024.0},
                          {"seconds", r.seconds},
                          {"exit_code", r.exit_code}};
  };
  return {{"job", p.job},
          {"small", run(p.size_small, p.small)},
          {"large", run(p.size_large, p.large)},
          {"growth", p.Growth()}};
}

}  // namespace

int BenchMemory(const Args& args) {
  auto frames = args.GetDoubleList("--memory-frames", {10, 1000});
  auto repeats = args.GetDoubleList("--capture-repeats", {4, 40});
  // Two whole counts each, short before long: frames as simulate takes them, repeats of a
  // capture of about 1 MB up to about 1 GB.
  const auto counts_ok = [](const std::vector<double>& v, double hi) {
    return v.size() == 2 && v[0] >= 1 && v[1] <= hi && v[0] < v[1] &&
           v[0] == static_cast<uint64_t>(v[0]) && v[1] == static_cast<uint64_t>(v[1]);
  };
  if (!frames.ok() || !repeats.ok() || !counts_ok(*frames, 1000000) || !counts_ok(*repeats, 1000)) {
    fmt::print(stderr,
               "lidartwin bench: --memory-frames takes two whole counts short,long in 1..1000000 "
               "and --capture-repeats two in 1..1000, the short below the long\n");
    return 2;
  }
  const std::filesystem::path self = "/proc/self/exe";
  const std::filesystem::path program = std::filesystem::read_symlink(self);
  const std::filesystem::path root = ConfigRoot();
  const auto scratch = std::filesystem::temp_directory_path() /
                       ("lidartwin-bench-memory-" + std::to_string(::getpid()));
  std::error_code stale;
  std::filesystem::remove_all(scratch, stale);  // a killed bench's, whose PID came round again
  // Created registered: removed if the bench is interrupted.
  if (Status s = CreateRegisteredDirectory(scratch); !s.ok()) {
    fmt::print(stderr, "lidartwin bench: {}\n", s.message());
    return 1;
  }
  std::vector<Pair> pairs;
  const auto run_pair = [&](Pair p, const std::vector<std::string>& small,
                            const std::vector<std::string>& large) -> bool {
    p.small.args = small;
    p.large.args = large;
    for (bench::ChildRun* r : {&p.small, &p.large}) {
      fmt::print(stderr, "bench --memory: {} ...\n", fmt::join(r->args, " "));
      if (Status s = bench::RunChild(program, *r); !s.ok() || r->exit_code != 0) {
        fmt::print(stderr, "lidartwin bench: {} failed (exit {}) {}\n", p.job, r->exit_code,
                   s.ok() ? "" : s.message());
        return false;
      }
    }
    pairs.push_back(std::move(p));
    return true;
  };
  const auto sensor = (root / "configs/sensors/ouster_os0_128.yaml").string();
  const auto scene = (root / "configs/scenes/lab_plates.yaml").string();
  const auto simulate = [&](double n) {
    return std::vector<std::string>{"simulate",
                                    "--sensor",
                                    sensor,
                                    "--scene",
                                    scene,
                                    "--frames",
                                    fmt::format("{}", n),
                                    "--out",
                                    (scratch / "sim.h5").string()};
  };
  bool ok = run_pair({"simulate",
                      fmt::format("{} frames", (*frames)[0]),
                      fmt::format("{} frames", (*frames)[1]),
                      {},
                      {}},
                     simulate((*frames)[0]), simulate((*frames)[1]));
  const auto capture = args.Get(
      "--capture", (root / "../shared/real-data/rust-lidar-utils/hdl32_example.pcap").string());
  const auto calibration =
      args.Get("--calibration", (root / "../shared/real-data/ros-velodyne/32db.yaml").string());
  if (ok && std::filesystem::exists(capture)) {
    std::vector<std::string> cmd[2];
    std::string sizes[2];
    for (int k = 0; k < 2; ++k) {
      const auto long_capture = scratch / fmt::format("capture_x{}.pcap", (*repeats)[k]);
      if (Status s = bench::WriteRepeatedCapture(capture, long_capture,
                                                 static_cast<uint32_t>((*repeats)[k]));
          !s.ok()) {
        fmt::print(stderr, "lidartwin bench: {}\n", s.message());
        ok = false;
        break;
      }
      sizes[k] = fmt::format("{:.0f} MB pcap", std::filesystem::file_size(long_capture) / 1e6);
      cmd[k] = {"convert", long_capture.string(),         "--calibration", calibration,
                "--out",   (scratch / "conv.h5").string()};
    }
    ok = ok && run_pair({"convert", sizes[0], sizes[1], {}, {}}, cmd[0], cmd[1]);
  } else if (ok) {
    fmt::print(stderr, "lidartwin bench: {} not found; convert not measured (--capture)\n",
               capture);
  }
  std::error_code ec;
  std::filesystem::remove_all(scratch, ec);
  UnregisterTemporaryPath(scratch);
  if (!ok) return 1;
  const auto machine = bench::ReadMachineInfo();
  fmt::print("machine: {} ({}, {} hardware threads), {}\n", machine.host, machine.cpu,
             machine.hardware_threads, machine.date_utc);
  fmt::print("{:<10} {:>16} {:>14} {:>10} | {:>16} {:>14} {:>10} | {:>8}\n", "job", "short",
             "max RSS", "time", "long", "max RSS", "time", "growth");
  for (const auto& p : pairs)
    Print(p);
  if (args.Has("--json")) {
    nlohmann::json j;
    j["machine"] = {{"host", machine.host}, {"cpu", machine.cpu}, {"date_utc", machine.date_utc}};
    for (const auto& p : pairs)
      j["memory"].push_back(ToJson(p));
    std::ofstream(args.Get("--json")) << j.dump(2) << "\n";
  }
  return 0;
}

}  // namespace lt::cli
