// Export shards run in this process, and the join; see export_here.h.
#include "lidartwin/jobs/export_here.h"

#include <fmt/core.h>
#include <algorithm>

#include <chrono>

#include "lidartwin/datasets/convert_recording.h"
#include "lidartwin/jobs/export_progress.h"
#include "lidartwin/jobs/export_workers.h"
#include "lidartwin/sim/simulator.h"

namespace lt::jobs {
namespace {

// What a finished shard took: its frames and points, and where the time went.
std::string ShardSummary(const ShardResult& result, double wall) {
  const std::string what = result.already_complete ? "already complete"
                           : result.resumed > 0
                               ? fmt::format("{} frames resumed from the journal, {} simulated",
                                             result.resumed, result.frames.size() - result.resumed)
                               : fmt::format("{} frames", result.frames.size());
  const uint32_t simulated = result.frames.size() - result.resumed;
  return fmt::format(
      "{}: {} ({} points) in {:.2f} s{}", result.file.string(), what, result.points, wall,
      result.seconds > 0
          ? fmt::format("; {:.2f} s loading ({:.2f} s the backend, scene and simulator; {:.2f} s "
                        "a second one, made meanwhile), {:.2f} s for the frames ({:.1f} frames/s; "
                        "{} simulator(s) at {:.1f} frames/s each, {:.2f} ms/frame "
                        "encoding summed over {} threads; writing {:.2f} ms/frame the journal, "
                        "{:.2f} the file, on two threads at once), {:.2f} s "
                        "finishing ({:.2f} s closing the file, {:.2f} s hashing it)",
                        result.load_seconds, result.first_simulator_seconds,
                        result.second_simulator_seconds, result.loop_seconds,
                        simulated / result.loop_seconds, result.simulators,
                        simulated / result.seconds, 1e3 * result.encode_seconds / simulated,
                        result.encoders, 1e3 * result.journal_seconds / simulated,
                        1e3 * result.write_seconds / simulated, result.finish_seconds,
                        result.close_seconds, result.hash_seconds)
          : "");
}

}  // namespace

Expected<std::string> WriteExportBag(const std::filesystem::path& folder) {
  ConvertOptions c;
  c.recording = folder / "dataset.h5";
  c.out = folder / "dataset.mcap";
  const auto t0 = std::chrono::steady_clock::now();
  auto written = ConvertRecording(c);
  if (!written.ok()) return written.error();
  return fmt::format("wrote {} frames ({} points) into {} in {:.2f} s\n", written->frames,
                     written->points, c.out.string(),
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

Expected<std::string> JoinExportFolder(const std::filesystem::path& folder,
                                       const std::vector<FreshShardHash>& fresh,
                                       uint32_t host_cores) {
  auto joined = JoinExport(folder, fresh, host_cores);
  if (!joined.ok()) return joined.error();
  return fmt::format(
      "joined {} frames ({} points) into {} in {:.2f} s ({} shard(s), {} hashed again); "
      "manifest {}\n",
      joined->frames, joined->points, joined->dataset.string(), joined->seconds, joined->shards,
      joined->hashed_here, joined->manifest.string());
}

Status RunShardsHere(const ShardsHereOptions& o, std::vector<FreshShardHash>* hashed) {
  const bool worker = static_cast<bool>(o.worker_lines);
  ExportProgressDisplay display(o.simulation.frames);
  for (uint32_t i = o.first; i <= o.last; ++i) {
    ExportJob job;
    job.simulation = o.simulation;
    job.folder = o.folder;
    job.shard = i;
    job.shards = o.shards;
    job.host_cores = o.host_cores;
    job.on_frame = [&](const ExportProgress& p) {
      if (worker) {
        o.worker_lines(ProgressLine(p.shard, p.done, p.total, p.resumed));
      } else {
        display.Update(p.shard, p.done, p.total, p.resumed);
        display.Draw();
      }
    };
    const auto t0 = std::chrono::steady_clock::now();
    auto result = RunExportShard(job);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!result.ok()) {
      display.Finish();
      return result.error();
    }
    if (hashed && !result->hash.hashes.sha256.empty()) hashed->push_back(result->hash);
    if (worker) {  // the parent prints, and joins with the hash taken here
      if (!result->hash.hashes.sha256.empty()) o.worker_lines(HashedLine(i, result->hash));
      o.worker_lines(SummaryLine(ShardSummary(*result, wall)));
      continue;
    }
    display.Finish();
    o.log.Note(ShardSummary(*result, wall));
  }
  return {};
}

// What the options leave to the run: the shards, one per worker where not given; the CPU
// simulator's threads, the host's cores given for the shards (its threads change no frame).
Status ResolveDefaults(ExportOptions& o) {
  if (o.simulation.backend != "cuda" &&
      std::any_of(o.devices.begin(), o.devices.end(), [](const auto& d) { return !d.empty(); }))
    return OptionError("devices", "devices needs backend cuda (they name GPUs)");
  if (o.shards == 0) o.shards = o.devices.empty() ? 1 : static_cast<uint32_t>(o.devices.size());
  if (o.simulation.threads == 0) o.simulation.threads = o.host_cores;
  return {};
}

Status RunExport(const ExportOptions& options) {
  ExportOptions o = options;
  if (Status s = ResolveDefaults(o); !s.ok()) return s;
  // A backend this machine cannot run is refused before the folder is claimed for the run:
  // else the claim (export.json, backend cuda) refuses the same folder to a rerun on the CPU.
  // Not for --prepare, which a launcher without a GPU runs.
  if (!o.prepare_only) {
    if (auto backend = ParseBackend(o.simulation.backend); backend.ok())
      if (Status s = BackendAvailable(*backend); !s.ok())
        return Error{"backend " + o.simulation.backend + ": " + s.message()};
  }
  {  // one process refuses a folder of another run here, before any worker starts
    ExportJob check;
    check.simulation = o.simulation;
    check.folder = o.folder;
    check.shard = o.only_shard.value_or(0);
    check.shards = o.shards;
    auto prepared = PrepareExportFolder(check);
    if (!prepared.ok()) return prepared.error();
  }
  if (o.prepare_only) {
    o.log.Info(fmt::format("{}: ready for {} shard(s) of {} frames\n", o.folder.string(), o.shards,
                           o.simulation.frames));
    return {};
  }
  ShardsHereOptions here;
  here.simulation = o.simulation;
  here.folder = o.folder;
  here.shards = o.shards;
  here.host_cores = o.host_cores;
  here.log = o.log;
  if (o.only_shard) {
    here.first = here.last = *o.only_shard;
    here.worker_lines = o.worker_lines;
    return RunShardsHere(here);
  }
  std::vector<FreshShardHash> hashed;
  if (o.devices.empty()) {
    here.first = 0;
    here.last = o.shards - 1;
    if (Status s = RunShardsHere(here, &hashed); !s.ok()) return s;
  } else {
    WorkerPlan plan;
    plan.executable = o.executable;
    plan.shards = o.shards;
    plan.frames = o.simulation.frames;
    plan.devices = o.devices;
    plan.folder = o.folder;
    plan.shard_args = o.worker_args;
    const auto failures = RunShardWorkers(plan, &hashed);
    if (!failures.empty()) {
      std::string text;
      for (const auto& f : failures)
        text += "\n  " + f;
      return Error{fmt::format(
          "{} shard(s) failed:{}\n(run the same command again to continue: finished frames are "
          "kept)",
          failures.size(), text)};
    }
  }
  auto joined = JoinExportFolder(o.folder, hashed, o.host_cores);
  if (!joined.ok()) return joined.error();
  o.log.Info(*joined);
  if (o.bag) {
    auto bag = WriteExportBag(o.folder);
    if (!bag.ok()) return bag.error();
    o.log.Info(*bag);
  }
  return {};
}

}  // namespace lt::jobs
