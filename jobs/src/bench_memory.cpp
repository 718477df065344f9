// Peak memory of simulate and convert, short job against long job (issue 11); see bench_runs.h.
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include "lidartwin/base/interrupt_cleanup.h"
#include "lidartwin/bench/cpu_bench.h"
#include "lidartwin/bench/memory_bench.h"
#include "lidartwin/jobs/bench_runs.h"

namespace lt::jobs {
namespace {

struct Pair {
  std::string job;
  std::string size_small, size_large;
  bench::ChildRun small, large;
  double Growth() const {
    return small.max_rss_kib ? static_cast<double>(large.max_rss_kib) / small.max_rss_kib - 1 : 0;
  }
};

std::string Row(const Pair& p) {
  return fmt::format(
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

Status MemoryBenchOptions::Validate() const {
  if (!(frames_short >= 1 && frames_short < frames_long && frames_long <= 1000000))
    return OptionError(
        "frames_short",
        fmt::format(
            "frames_short: {} and {} are not two counts short,long in 1..1000000, the short below "
            "the long",
            frames_short, frames_long));
  if (!(repeats_short >= 1 && repeats_short < repeats_long && repeats_long <= 1000))
    return OptionError(
        "repeats_short",
        fmt::format(
            "repeats_short: {} and {} are not two counts short,long in 1..1000, the short below "
            "the long",
            repeats_short, repeats_long));
  return {};
}

Expected<BenchTable> BenchMemory(const MemoryBenchOptions& o) {
  if (Status s = o.Validate(); !s.ok()) return s.error();
  const std::filesystem::path program = std::filesystem::read_symlink(o.executable);
  const RegisteredFolderRemover scratch{std::filesystem::temp_directory_path() /
                                        ("lidartwin-bench-memory-" + std::to_string(::getpid()))};
  std::error_code stale;
  std::filesystem::remove_all(scratch.dir, stale);  // a killed bench's, whose PID came round again
  if (Status s = CreateRegisteredDirectory(scratch.dir); !s.ok()) return s.error();
  std::vector<Pair> pairs;
  const auto run_pair = [&](Pair p, const std::vector<std::string>& small,
                            const std::vector<std::string>& large) -> Status {
    p.small.args = small;
    p.large.args = large;
    for (bench::ChildRun* r : {&p.small, &p.large}) {
      o.log.Note(fmt::format("running lidartwin {} ...", fmt::join(r->args, " ")));
      if (Status s = bench::RunChild(program, *r); !s.ok() || r->exit_code != 0)
        return Error{
            fmt::format("{} failed (exit {}) {}", p.job, r->exit_code, s.ok() ? "" : s.message())};
    }
    pairs.push_back(std::move(p));
    return {};
  };
  const auto sensor = (o.root / "configs/sensors/ouster_os0_128.yaml").string();
  const auto scene = (o.root / "configs/scenes/lab_plates.yaml").string();
  const auto simulate = [&](uint32_t n) {
    return std::vector<std::string>{"simulate",
                                    "--sensor",
                                    sensor,
                                    "--scene",
                                    scene,
                                    "--frames",
                                    fmt::format("{}", n),
                                    "--out",
                                    (scratch.dir / "sim.h5").string()};
  };
  if (Status s = run_pair({"simulate",
                           fmt::format("{} frames", o.frames_short),
                           fmt::format("{} frames", o.frames_long),
                           {},
                           {}},
                          simulate(o.frames_short), simulate(o.frames_long));
      !s.ok())
    return s.error();
  if (std::filesystem::exists(o.capture)) {
    std::vector<std::string> cmd[2];
    std::string sizes[2];
    const uint32_t repeats[2] = {o.repeats_short, o.repeats_long};
    for (int k = 0; k < 2; ++k) {
      const auto long_capture = scratch.dir / fmt::format("capture_x{}.pcap", repeats[k]);
      if (Status s = bench::WriteRepeatedCapture(o.capture, long_capture, repeats[k]); !s.ok())
        return s.error();
      sizes[k] = fmt::format("{:.0f} MB pcap", std::filesystem::file_size(long_capture) / 1e6);
      cmd[k] = {"convert",       long_capture.string(),
                "--calibration", o.calibration.string(),
                "--out",         (scratch.dir / "conv.h5").string()};
    }
    if (Status s = run_pair({"convert", sizes[0], sizes[1], {}, {}}, cmd[0], cmd[1]); !s.ok())
      return s.error();
  } else {
    o.log.Warn(o.capture.string() + " not found; convert not measured");
  }
  const auto machine = bench::ReadMachineInfo();
  BenchTable out;
  out.text = fmt::format("machine: {} ({}, {} hardware threads), {}\n", machine.host, machine.cpu,
                         machine.hardware_threads, machine.date_utc);
  out.text += fmt::format("{:<10} {:>16} {:>14} {:>10} | {:>16} {:>14} {:>10} | {:>8}\n", "job",
                          "short", "max RSS", "time", "long", "max RSS", "time", "growth");
  out.json["machine"] = {
      {"host", machine.host}, {"cpu", machine.cpu}, {"date_utc", machine.date_utc}};
  for (const auto& p : pairs) {
    out.text += Row(p);
    out.json["memory"].push_back(ToJson(p));
  }
  return out;
}

}  // namespace lt::jobs
