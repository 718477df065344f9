#include "lidartwin/datasets/export_run.h"

#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <system_error>
#include <thread>

#include "export_record.h"
#include "frame_producers.h"
#include "hdf5/frame_tables.h"
#include "lidartwin/base/atomic_file.h"
#include "lidartwin/base/cancellation.h"
#include "lidartwin/base/host_cores.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/datasets/export_identity.h"
#include "lidartwin/datasets/frame_journal.h"
#include "lidartwin/datasets/hdf5_frames.h"
#include "shard_record.h"
#include "task_pool.h"

namespace lt {

namespace fs = std::filesystem;

FrameRange ShardFrames(uint32_t frames, uint32_t shard, uint32_t shards) {
  const uint64_t base = frames / shards, extra = frames % shards;
  auto start = [&](uint64_t i) { return static_cast<uint32_t>(i * base + std::min(i, extra)); };
  return {start(shard), start(uint64_t{shard} + 1)};
}

std::string ShardStem(uint32_t shard, uint32_t shards) {
  char name[64];
  std::snprintf(name, sizeof(name), "shard-%05u-of-%05u", shard, shards);
  return name;
}

Status ExportJob::Validate() const {
  ConfigCheck check;
  SimulationJob sim = simulation;
  sim.out = "shard.h5";  // export writes HDF5; the folder is checked below
  sim.Check(check);
  if (folder.empty()) check.Fail("out", "must name the export folder");
  if (shards < 1 || shards > 99999) {
    check.Fail("shards", "must be in 1..99999, got " + std::to_string(shards));
  } else if (shards > simulation.frames) {
    check.Fail("shards", std::to_string(shards) + " shards for " +
                             std::to_string(simulation.frames) +
                             " frames: every shard needs at least one frame");
  }
  if (shard >= shards) {
    check.Fail("shard", "shard " + std::to_string(shard) + " of " + std::to_string(shards) +
                            " does not exist (shards are numbered 0.." +
                            std::to_string(shards - 1) + ")");
  }
  return check.ToStatus("export job");
}

Expected<FreshShardHash> StampFile(const fs::path& file) {
  struct stat st;
  if (::stat(file.c_str(), &st) != 0) {
    return Error{file.string() + ": cannot read its status: " + std::strerror(errno)};
  }
  FreshShardHash h;
  h.file = file;
  h.bytes = static_cast<uint64_t>(st.st_size);
  h.inode = static_cast<uint64_t>(st.st_ino);
  h.device = static_cast<uint64_t>(st.st_dev);
  h.mtime_ns = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
  return h;
}

namespace {

using Json = nlohmann::ordered_json;

// The folder, created if missing; a file or an unwritable folder is refused by name.
Status PrepareFolder(const fs::path& folder) {
  std::error_code ec;
  const auto st = fs::status(folder, ec);
  if (fs::exists(st) && !fs::is_directory(st)) {
    return Error{folder.string() + ": exists and is not a folder"};
  }
  if (!fs::exists(st)) {
    fs::create_directories(folder, ec);
    if (ec) return Error{folder.string() + ": cannot create folder: " + ec.message()};
  }
  return {};
}

// The cores the shard's threads may use (ExportJob::host_cores).
uint32_t JobCores(const ExportJob& job) {
  return job.host_cores > 0 ? job.host_cores : UsableCores();
}

// A finished shard's record (shard-NNNNN-of-MMMMM.json); its file's hash, stamped.
Expected<FreshShardHash> WriteShardRecord(const fs::path& file, const ExportJob& job,
                                          const FrameRange& frames, uint64_t points,
                                          const fs::path& h5, const std::string& identity) {
  auto stamp = StampFile(h5);  // before hashing: a write during it changes the time
  if (!stamp.ok()) return stamp.error();
  auto hashes = HashFilePieces(h5, kHashPieceBytes, JobCores(job));
  if (!hashes.ok()) return hashes.error();
  stamp->hashes = std::move(hashes.value());
  ShardRecord r;
  r.shard = job.shard;
  r.shards = job.shards;
  r.frames = frames;
  r.points = points;
  r.file = h5.filename().string();
  r.hashes = stamp->hashes;
  r.identity_sha256 = Sha256Hex(identity);
  if (Status s = WriteTextFileAtomically(file, ShardRecordJson(r, true).dump(2) + "\n"); !s.ok()) {
    return s.error();
  }
  return stamp;
}

// The record of a shard an earlier run finished, or nothing when there is none. The record is
// checked key by key, and its file by its size (hashing it would read it whole; the join does):
// a file damaged since is named with what to remove, not taken as complete.
Expected<std::optional<ShardRecord>> FinishedShard(const fs::path& record, const fs::path& h5,
                                                   const ExportJob& job,
                                                   const std::string& identity) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(record, ec))) return std::optional<ShardRecord>();
  auto text = ReadTextFile(record, " shard record", kMaxShardRecordBytes);
  if (!text.ok()) return text.error();
  auto r = ParseShardRecord(*text, record.string(), job.shard, job.shards, job.simulation.frames,
                            Sha256Hex(identity));
  if (!r.ok()) return r.error();
  if (!fs::exists(fs::symlink_status(h5, ec))) return std::optional<ShardRecord>();  // redone
  const std::string remove = "; remove " + h5.filename().string() + " and " +
                             record.filename().string() + " to export the shard again";
  if (Status s = CheckReadableFile(h5); !s.ok()) return Error{s.message() + remove};
  const uint64_t size = fs::file_size(h5, ec);
  if (ec || size != r->hashes.bytes) {
    return Error{h5.string() + ": " + (ec ? ec.message() : std::to_string(size) + " bytes") +
                 ", not the " + std::to_string(r->hashes.bytes) + " its record holds" + remove};
  }
  return std::optional<ShardRecord>(std::move(r.value()));
}

}  // namespace

Expected<std::string> PrepareExportFolder(const ExportJob& job) {
  if (Status s = job.Validate(); !s.ok()) return s.error();
  auto identity = ExportIdentity(job.simulation, job.shards);
  if (!identity.ok()) return identity.error();
  if (Status s = PrepareFolder(job.folder); !s.ok()) return s.error();
  if (Status s = ClaimExportFolder(job.folder, *identity); !s.ok()) return s.error();
  return identity;
}

namespace {

Expected<ShardResult> RunShard(const ExportJob& job) {
  auto prepared = PrepareExportFolder(job);
  if (!prepared.ok()) return prepared.error();
  const std::string& identity = *prepared;
  const auto t_load = std::chrono::steady_clock::now();
  auto loaded = LoadSimulation(job.simulation);
  if (!loaded.ok()) return loaded.error();

  ShardResult result;
  result.first_simulator_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_load).count();
  result.frames = ShardFrames(job.simulation.frames, job.shard, job.shards);
  const std::string stem = ShardStem(job.shard, job.shards);
  result.file = job.folder / (stem + ".h5");
  const fs::path record = job.folder / (stem + ".json");
  const fs::path journal_path = job.folder / (stem + ".journal");
  auto earlier = FinishedShard(record, result.file, job, identity);
  if (!earlier.ok()) return earlier.error();
  std::error_code ec;
  if (earlier->has_value()) {
    fs::remove(journal_path, ec);  // a run killed between the record and this removal
    result.already_complete = true;
    result.points = (*earlier)->points;
    if (job.on_frame) {
      job.on_frame({job.shard, result.frames.size(), result.frames.size(), result.frames.size()});
    }
    return result;
  }

  // A killed run's journal continues if it is this run's; its frames go into a fresh file.
  auto journal = FrameJournal::OpenOrCreate(journal_path, identity);
  if (!journal.ok()) return journal.error();
  if (journal->header() != identity) {
    const std::string difference = IdentityDifference(journal->header(), identity);
    return Error{journal_path.string() + ": written by another run (" +
                 (difference.empty() ? std::string("identity text differs") : difference) +
                 "); remove it to start the shard over"};
  }
  if (journal->frames() > 0 && (journal->next_index() - journal->frames() != result.frames.begin ||
                                journal->next_index() > result.frames.end)) {
    return Error{journal_path.string() + ": holds frames " +
                 std::to_string(journal->next_index() - journal->frames()) + ".." +
                 std::to_string(journal->next_index() - 1) + ", not of this shard's " +
                 std::to_string(result.frames.begin) + ".." +
                 std::to_string(result.frames.end - 1)};
  }
  auto writer = Hdf5FrameWriter::Create(result.file, (*loaded)->info);
  if (!writer.ok()) return writer.error();
  // The journal's frames go into the fresh file as they went into the killed run's (the same
  // calls, so the same bytes); the planner then takes up the chunks they left unfinished.
  hdf5::PendingRows pending;
  hdf5::PointColumns columns;
  ReplayTotals totals;
  Status replayed = journal->Replay([&](uint32_t index, std::string&& payload) -> Status {
    auto e = EncodedFrameOf(payload);
    if (!e.ok()) return e.error();
    if (!e->row || e->row->index != index) {
      return Error{"holds no row of frame " + std::to_string(index)};
    }
    if (Status s = CheckRecordFollows(*e, totals); !s.ok()) return s;
    result.points += e->row->points;
    pending.Add(*e->row);
    columns = e->columns;
    return (*writer)->AppendEncoded(*e);
  });
  if (!replayed.ok()) return replayed.error();
  Simulator& simulator = *(*loaded)->simulator;
  Status restored = (*writer)->Planner().Restore(
      pending, columns, [&](uint32_t k) -> Expected<std::shared_ptr<const Frame>> {
        auto f = simulator.Simulate(k);
        if (!f.ok()) return f.error();
        return std::make_shared<const Frame>(std::move(f.value()));
      });
  if (!restored.ok()) return Error{journal_path.string() + ": " + restored.message()};
  result.resumed = static_cast<uint32_t>(journal->frames());
  ExportProgress progress{job.shard, result.resumed, result.frames.size(), result.resumed};
  if (job.on_frame) job.on_frame(progress);

  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  const uint64_t rays_per_frame = simulator.RaysPerFrame();
  Hdf5FrameWriter& hdf5 = **writer;
  FrameJournal& log = *journal;
  // Frames simulated on their threads (FrameProducers) and planned here (hdf5_frames.h, Plan);
  // each frame's chunks encoded by a pool thread; its journal record and its chunks written in
  // order by two writer threads (below). At most in_flight frames are being encoded or written
  // at once (two a pool thread, plus two: a frame that completes chunks keeps a thread about 15
  // chunk encodings long, one that completes none almost nothing, and the writers take them in
  // order), and a plan holds the frames of its chunks only, so memory does not grow with the
  // frame count. Two cores are left to the simulation and the writing (ExportEncoderThreads).
  const uint32_t encoders = ExportEncoderThreads(JobCores(job));
  result.encoders = encoders;
  const size_t in_flight = 2 * encoders + 2;
  struct Encoded {
    uint32_t index = 0;
    uint64_t points = 0;
    double seconds = 0;  // encoding it
    hdf5::EncodedFrame chunks;
  };
  std::optional<TaskPool<Expected<Encoded>>> pool;
  try {
    pool.emplace(encoders);
  } catch (const std::exception& ex) {
    return Error{std::string("cannot start the encoding threads: ") + ex.what()};
  }
  // Frames go through two writer threads in order: the journal's, then the HDF5 file's, so
  // that frame k's chunks go into the file while frame k + 1's record goes into the journal
  // (one thread doing both in turn capped the street's export at 1,590 frames/s: 0.63 ms a
  // frame, about 45 % of it the journal's). The file never holds a frame its journal lacks.
  std::deque<std::future<Expected<Encoded>>> queue;  // encoding or encoded, in order
  std::deque<Encoded> journaled;                     // in the journal, next for the file
  std::mutex mutex;
  std::condition_variable changed;
  bool finished = false;      // no more frames come (the loop's end, or a failure)
  bool journal_done = false;  // the journal thread has ended
  Status write_error;
  double journal_seconds = 0, file_seconds = 0;  // each thread's own
  auto fail = [&](Status s) {                    // under the lock
    if (write_error.ok()) write_error = s;
    finished = true;
    queue.clear();
    journaled.clear();
  };
  auto journal_loop = [&] {
    for (;;) {
      std::future<Expected<Encoded>> next;
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return !queue.empty() || finished; });
        if (queue.empty() || !write_error.ok()) break;
        next = std::move(queue.front());
      }
      // An exception (no memory) becomes the write error: this thread always ends, and the
      // frames before it stay in the journal.
      Status s;
      std::optional<Encoded> done;
      try {
        auto encoded = next.get();
        const auto t_write = std::chrono::steady_clock::now();
        if (!encoded.ok()) {
          s = Error{result.file.string() + ": " + encoded.message()};
        } else {
          s = log.AppendRecord(JournalRecordOf(encoded->chunks));
          done = std::move(encoded.value());
        }
        journal_seconds += since(t_write);
      } catch (const std::exception& ex) {
        s = Error{result.file.string() + ": cannot write a frame: " + ex.what()};
      }
      std::lock_guard<std::mutex> lock(mutex);
      if (s.ok() && write_error.ok()) {
        try {
          journaled.push_back(std::move(*done));
          queue.pop_front();
        } catch (const std::exception& ex) {  // no memory: the frame stays out of the file
          s = Error{result.file.string() + ": cannot write a frame: " + ex.what()};
        }
      }
      if (!s.ok()) fail(s);
      changed.notify_all();
    }
    std::lock_guard<std::mutex> lock(mutex);
    journal_done = true;
    changed.notify_all();
  };
  auto file_loop = [&] {
    for (;;) {
      std::optional<Encoded> next;
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return !journaled.empty() || journal_done; });
        if (journaled.empty() || !write_error.ok()) return;
        next = std::move(journaled.front());
      }
      // An exception (no memory, a progress callback's) becomes the write error, as above.
      Status s;
      try {
        const auto t_write = std::chrono::steady_clock::now();
        s = hdf5.AppendEncoded(next->chunks);
        file_seconds += since(t_write);
      } catch (const std::exception& ex) {
        s = Error{result.file.string() + ": cannot write a frame: " + ex.what()};
      }
      std::lock_guard<std::mutex> lock(mutex);
      if (s.ok() && write_error.ok()) {
        journaled.pop_front();
        result.encode_seconds += next->seconds;
        result.points += next->points;
        ++progress.done;
        try {
          if (job.on_frame) job.on_frame(progress);
        } catch (const std::exception& ex) {
          s = Error{std::string("progress report failed: ") + ex.what()};
        }
      }
      if (!s.ok()) fail(s);
      changed.notify_all();
    }
  };
  std::thread journal_thread, writer_thread;
  try {
    journal_thread = std::thread(journal_loop);
    writer_thread = std::thread(file_loop);
  } catch (const std::exception& ex) {  // no thread: the one started ends before this returns
    {
      std::lock_guard<std::mutex> lock(mutex);
      finished = true;
      changed.notify_all();
    }
    if (journal_thread.joinable()) journal_thread.join();
    return Error{std::string("cannot start the writer threads: ") + ex.what()};
  }
  // On a GPU a second simulator over the same scene: while one copies its frame back and fills
  // the frame's arrays, the other's kernels run (without one, the first does all the frames).
  // It is made on its own thread while the first simulates (it builds the scene's trees again:
  // 0.14 s of a 2-second street export on the H200) and joins the frames when it is ready.
  std::unique_ptr<Simulator> second;
  struct Made {
    Expected<std::unique_ptr<Simulator>> simulator;
    double seconds;
  };
  std::future<Made> making_second;  // waits for it when let go
  std::optional<FrameProducers> producers;
  Status simulate_error;
  // Everything from here to the writer's end is in one try: an exception becomes an error and
  // the writer threads are always joined (a joinable thread destroyed would end the process).
  auto t_loop = std::chrono::steady_clock::now();
  try {
    result.simulators = 1;
    if (simulator.backend() == Backend::kCuda && result.frames.size() - result.resumed > 1) {
      // Where no thread can start, libstdc++ defers it instead of throwing (both flags): a
      // deferred future never reads as ready, so the first simulator does all the frames.
      making_second = std::async(std::launch::async | std::launch::deferred, [&] {
        const auto t_second = std::chrono::steady_clock::now();
        auto another = CreateSimulatorLike(**loaded, job.simulation);
        return Made{std::move(another), since(t_second)};
      });
    }
    result.load_seconds = since(t_load);
    t_loop = std::chrono::steady_clock::now();
    producers.emplace(std::vector<Simulator*>{&simulator}, result.frames.begin + result.resumed,
                      result.frames.end);
    for (uint32_t k = result.frames.begin + result.resumed; producers && k < result.frames.end;
         ++k) {
      if (Status stop = CheckCancelled(); !stop.ok()) {
        simulate_error = stop.error();  // the journal keeps the frames written so far
        break;
      }
      if (making_second.valid() &&
          making_second.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        // Without it (an error, no memory, no thread), the first does all the frames.
        try {
          Made another = making_second.get();
          result.second_simulator_seconds = another.seconds;
          if (another.simulator.ok()) {
            second = std::move(another.simulator.value());
            producers->Add(second.get());
            result.simulators = 2;
          }
        } catch (const std::exception&) {
        }
      }
      double seconds = 0;
      auto frame = producers->Next(&seconds);
      if (!frame.ok()) {
        simulate_error = frame.error();
        break;
      }
      result.seconds += seconds;
      result.rays += rays_per_frame;
      auto shared = std::make_shared<const Frame>(std::move(frame.value()));
      auto plan = hdf5.Plan(shared);
      if (!plan.ok()) {
        simulate_error = plan.error();
        break;
      }
      // An exception (no memory, no thread) becomes an error: the writer threads are always
      // joined and the journal keeps every frame written before it.
      auto encode = [&since, f = std::move(shared), plan = std::move(plan.value()),
                     columns = hdf5.Planner().columns()]() -> Expected<Encoded> {
        try {
          const auto t_encode = std::chrono::steady_clock::now();
          Encoded e;
          e.index = f->index;
          e.points = f->size();
          e.chunks = hdf5::EncodePlan(plan, columns);
          e.seconds = since(t_encode);
          return e;
        } catch (const std::exception& ex) {
          return Error{"frame " + std::to_string(f->index) + ": cannot encode: " + ex.what()};
        }
      };
      std::future<Expected<Encoded>> task;
      try {
        task = pool->Submit(std::move(encode));
      } catch (const std::exception& ex) {  // no memory for the task: the writer still joins
        simulate_error = Error{std::string("cannot queue a frame for encoding: ") + ex.what()};
        break;
      }
      std::unique_lock<std::mutex> lock(mutex);
      if (finished) break;  // the writer failed
      queue.push_back(std::move(task));
      changed.notify_all();
      changed.wait(lock, [&] { return queue.size() + journaled.size() < in_flight || finished; });
    }
  } catch (const std::exception& ex) {
    simulate_error = Error{result.file.string() + ": " + ex.what()};
  }
  producers.reset();  // after an error, the simulators stop here
  {
    std::lock_guard<std::mutex> lock(mutex);
    finished = true;
    changed.notify_all();
  }
  journal_thread.join();
  writer_thread.join();
  result.loop_seconds = since(t_loop);
  result.journal_seconds = journal_seconds;
  result.write_seconds = file_seconds;
  if (!simulate_error.ok()) return simulate_error.error();
  if (!write_error.ok()) return write_error.error();
  // The file first; then the journal goes while the file is hashed for its record, the two
  // overlapping: the kernel frees its pages when it is closed (0.04-0.07 s for a 2000-frame
  // journal on the H100 machine, once a new journal was no longer truncated: frame_journal.cpp;
  // 0.5 s before). A kill before the record leaves a state the next run completes: with the
  // journal, from its frames; after its removal, a finished file without its record, which the
  // next run writes again from the start (the same bytes; a risk of that second only).
  const auto t_finish = std::chrono::steady_clock::now();
  if (Status s = (*writer)->Close(); !s.ok()) return s.error();
  result.close_seconds = since(t_finish);
  auto release_journal = [&journal, &journal_path] {
    std::error_code e;
    fs::remove(journal_path, e);
    journal = Error{"released"};  // closes it: the kernel frees its pages here
  };
  std::thread releasing;
  try {
    releasing = std::thread(release_journal);
  } catch (const std::exception&) {  // no thread: released here, before the hashing
    release_journal();
  }
  struct JoinAtExit {
    std::thread& t;
    ~JoinAtExit() {
      if (t.joinable()) t.join();
    }
  } join_releasing{releasing};
  const auto t_hash = std::chrono::steady_clock::now();
  auto hashed = WriteShardRecord(record, job, result.frames, result.points, result.file, identity);
  if (!hashed.ok()) return hashed.error();
  result.hash_seconds = since(t_hash);
  result.hash = std::move(hashed.value());
  if (releasing.joinable()) releasing.join();
  result.finish_seconds = since(t_finish);
  return result;
}

}  // namespace

// An exception (no memory, a simulator's, a callback's) becomes an error naming the shard: every
// thread RunShard starts is joined before its scope ends, so none is left to end the process.
Expected<ShardResult> RunExportShard(const ExportJob& job) {
  try {
    return RunShard(job);
  } catch (const std::exception& ex) {
    return Error{(job.folder / ShardStem(job.shard, job.shards)).string() + ": " + ex.what()};
  }
}

}  // namespace lt
