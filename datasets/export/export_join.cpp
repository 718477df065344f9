// The join step of an export (export_run.h): every shard checked, dataset.h5 and
// manifest.json written, dataset.h5 read back.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <system_error>
#include <utility>

#include "hdf5_join.h"
#include "json_fields.h"
#include "lidartwin/base/atomic_file.h"
#include "lidartwin/base/output_set.h"
#include "lidartwin/base/parallel_for.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/datasets/export_identity.h"
#include "lidartwin/datasets/export_run.h"
#include "lidartwin/datasets/frame_journal.h"
#include "lidartwin/datasets/hdf5_frames.h"
#include "shard_record.h"

namespace lt {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

// An identity's nesting (its files' entries are objects in objects) with room to spare.
constexpr int kMaxIdentityDepth = 8;
// Shards named in a join's error; the rest are counted.
constexpr size_t kMaxListedProblems = 20;

// An exclusive flock(2) on export.json, held while the object lives.
class FolderLock {
 public:
  explicit FolderLock(int fd) : fd_(fd) {}
  FolderLock(FolderLock&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  FolderLock& operator=(FolderLock&&) = delete;
  ~FolderLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }

 private:
  int fd_;
};

Expected<FolderLock> LockExportFolder(const fs::path& identity) {
  // Open for writing where allowed: NFS emulates flock(2) with a byte-range lock, which needs
  // it for an exclusive one.
  int fd = ::open(identity.c_str(), O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
  if (fd < 0 && (errno == EACCES || errno == EROFS)) {
    fd = ::open(identity.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
  }
  if (fd < 0) return Error{identity.string() + ": cannot open: " + std::strerror(errno)};
  FolderLock lock(fd);
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) {
      return Error{identity.string() +
                   ": cannot lock the folder for the join: " + std::strerror(errno)};
    }
  }
  return lock;
}

struct CheckedShard {
  fs::path file;
  ShardRecord record;
  bool hashed_here = false;  // read and hashed by the join (not a run's fresh hash)
};

// True when `fresh` holds file's hash, taken by this process, and the file is unchanged since.
const FreshShardHash* Unchanged(const fs::path& file, const std::vector<FreshShardHash>& fresh) {
  for (const FreshShardHash& h : fresh) {
    if (h.file != file || h.hashes.sha256.empty()) continue;
    auto now = StampFile(file);
    if (now.ok() && now->bytes == h.bytes && now->inode == h.inode && now->device == h.device &&
        now->mtime_ns == h.mtime_ns) {
      return &h;
    }
  }
  return nullptr;
}

// A file's size against its record's.
Status CheckSize(const fs::path& file, uint64_t bytes, const FilePieceHashes& expected) {
  if (bytes == expected.bytes) return {};
  return Error{file.string() + ": " + std::to_string(bytes) + " bytes, not the " +
               std::to_string(expected.bytes) + " its record holds (damaged since written)"};
}

// A file's pieces as hashed now, against those `expected` (a record's): the size (the file may
// have grown since it was first looked at), then the first piece that differs is named.
Status CheckPieces(const fs::path& file, const FilePieceHashes& now,
                   const FilePieceHashes& expected) {
  if (Status s = CheckSize(file, now.bytes, expected); !s.ok()) return s;
  for (size_t i = 0; i < now.sha256.size() && i < expected.sha256.size(); ++i) {
    if (now.sha256[i] != expected.sha256[i]) {
      return Error{file.string() + ": SHA-256 of bytes " + std::to_string(i * now.piece_bytes) +
                   ".. is " + now.sha256[i] + ", not the " + expected.sha256[i] +
                   " its record holds (damaged since written)"};
    }
  }
  return {};
}

Expected<CheckedShard> CheckShard(const fs::path& folder, uint32_t shard, uint32_t shards,
                                  uint32_t frames, const std::string& identity,
                                  const std::vector<FreshShardHash>& fresh, unsigned hash_threads) {
  const std::string stem = ShardStem(shard, shards);
  const fs::path record_path = folder / (stem + ".json");
  const fs::path journal = folder / (stem + ".journal");
  const FrameRange range = ShardFrames(frames, shard, shards);
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(record_path, ec))) {  // a dangling link is read, and named
    if (fs::exists(journal, ec)) {
      auto done = FrameJournal::CountFrames(journal);  // no lock: the shard may be running
      if (!done.ok()) return Error{stem + " is unfinished: " + done.message()};
      return Error{stem + " is unfinished: " + std::to_string(*done) + " of " +
                   std::to_string(range.size()) +
                   " frames done (run it again with the same arguments to continue)"};
    }
    return Error{stem + " has not run (frames " + std::to_string(range.begin) + ".." +
                 std::to_string(range.end - 1) + ")"};
  }
  auto text = ReadTextFile(record_path, " shard record", kMaxShardRecordBytes);
  if (!text.ok()) return text.error();
  CheckedShard out;
  auto parsed =
      ParseShardRecord(*text, record_path.string(), shard, shards, frames, Sha256Hex(identity));
  if (!parsed.ok()) return parsed.error();
  out.record = std::move(parsed.value());
  const FilePieceHashes& expected = out.record.hashes;
  out.file = folder / out.record.file;
  // A regular file of its record's size first: a file of another size is damaged whatever its
  // bytes, and a device or FIFO would read without end.
  if (Status s = CheckReadableFile(out.file); !s.ok()) return s.error();
  std::error_code size_error;
  const uint64_t size = fs::file_size(out.file, size_error);
  if (size_error) return Error{out.file.string() + ": " + size_error.message()};
  if (Status s = CheckSize(out.file, size, expected); !s.ok()) return s.error();
  const FreshShardHash* known = Unchanged(out.file, fresh);
  out.hashed_here = !(known && known->hashes.piece_bytes == expected.piece_bytes);
  auto now = out.hashed_here ? HashFilePieces(out.file, expected.piece_bytes, hash_threads)
                             : Expected<FilePieceHashes>(known->hashes);
  if (!now.ok()) return Error{stem + ": " + now.message()};
  // The file is the one its shard wrote (its SHA-256 says so); its structure is checked once,
  // through the joined file, after the join.
  if (Status s = CheckPieces(out.file, *now, expected); !s.ok()) return s.error();
  return out;
}

}  // namespace

Expected<JoinResult> JoinExport(const fs::path& folder, const std::vector<FreshShardHash>& fresh,
                                uint32_t cores) {
  const auto t0 = std::chrono::steady_clock::now();
  const fs::path identity_path = folder / "export.json";
  auto identity = ReadTextFile(identity_path, " export identity", 1 << 20);
  if (!identity.ok()) {
    return Error{identity.message() + " (is " + folder.string() + " an export folder?)"};
  }
  // One join of a folder at a time: two at once would both write dataset.h5 and manifest.json
  // and read the other's half-written file back (found by a hostile-input pass).
  auto lock = LockExportFolder(identity_path);
  if (!lock.ok()) return lock.error();
  // An identity is a few levels deep; the manifest repeats it, and a deeper one (edited by hand)
  // would make that copy, and its printing, recurse as deep.
  if (JsonNestingDepth(*identity) > kMaxIdentityDepth) {
    return Error{identity_path.string() + ": nested deeper than an export identity (" +
                 std::to_string(kMaxIdentityDepth) + " levels)"};
  }
  const nlohmann::json id = nlohmann::json::parse(*identity, nullptr, false);
  if (id.is_discarded() || !id.is_object() || !id.contains("lidartwin_export") ||
      !id.contains("shards") || !id.contains("frames") || !id["shards"].is_number_unsigned() ||
      !id["frames"].is_number_unsigned() || id["shards"].get<uint64_t>() < 1 ||
      id["shards"].get<uint64_t>() > 99999 ||
      id["frames"].get<uint64_t>() < id["shards"].get<uint64_t>() ||
      id["frames"].get<uint64_t>() > 1000000) {
    return Error{identity_path.string() + ": not an export identity (frames, shards)"};
  }
  const uint32_t shards = id["shards"].get<uint32_t>();
  const uint32_t frames = id["frames"].get<uint32_t>();
  // Hashing a shard reads it whole: shards are checked on as many threads as there are cores,
  // and each shard's pieces on the cores left over (one shard: all of them).
  std::vector<Expected<CheckedShard>> results(shards, Error{""});
  if (cores == 0) cores = UsableCores();
  const uint32_t threads = std::max(1u, std::min(shards, cores));
  const unsigned hash_threads = std::max(1u, cores / threads);
  ForEachIndexOnThreads(shards, threads, [&](size_t i) {
    results[i] = CheckShard(folder, static_cast<uint32_t>(i), shards, frames, *identity, fresh,
                            hash_threads);
  });
  std::vector<CheckedShard> checked;
  std::string problems;
  size_t failed = 0;
  for (auto& shard : results) {
    if (!shard.ok()) {
      if (++failed <= kMaxListedProblems) problems += "\n  " + shard.message();
      continue;
    }
    checked.push_back(std::move(shard.value()));
  }
  if (failed > kMaxListedProblems) {
    problems += "\n  ... and " + std::to_string(failed - kMaxListedProblems) + " more";
  }
  if (failed > 0) {
    return Error{folder.string() + ": cannot join " + std::to_string(failed) + " of " +
                 std::to_string(shards) + " shards:" + problems};
  }
  JoinResult result;
  result.shards = static_cast<uint32_t>(checked.size());
  for (const CheckedShard& s : checked)
    result.hashed_here += s.hashed_here ? 1 : 0;
  result.dataset = folder / "dataset.h5";
  result.manifest = folder / "manifest.json";
  // Both targets are checked before anything is written, and dataset.h5 replaces the earlier one
  // only once it has been read back whole: a join that fails leaves the folder as it was.
  for (const fs::path& target : {result.dataset, result.manifest}) {
    if (Status s = CheckOutputTarget(target); !s.ok()) return s.error();
  }
  std::vector<fs::path> files;
  for (const auto& s : checked)
    files.push_back(s.file);
  AtomicOutput dataset(result.dataset);
  if (Status s = WriteJoinedFrames(dataset, files); !s.ok()) return s.error();

  // Read back: every frame, in order, with its shard's point count (in-process: the file is ours,
  // just written from shards whose checksums were just checked).
  auto joined = ReadHdf5Summary(dataset.temp_path(), Hdf5Origin::kWrittenHere);
  if (!joined.ok()) return Error{"the joined file fails its check: " + joined.message()};
  if (joined->frames.size() != frames) {
    return Error{result.dataset.string() + ": holds " + std::to_string(joined->frames.size()) +
                 " frames after joining, not " + std::to_string(frames)};
  }
  for (uint32_t i = 0; i < shards; ++i) {  // every frame in order, each shard its points
    const FrameRange range = ShardFrames(frames, i, shards);
    uint64_t points = 0;
    for (uint32_t k = range.begin; k < range.end; ++k) {
      if (joined->frames[k].index != k) {
        return Error{result.dataset.string() + ": entry " + std::to_string(k) + " is frame " +
                     std::to_string(joined->frames[k].index) + " (shards out of their ranges)"};
      }
      points += joined->frames[k].points;
    }
    if (points != checked[i].record.points) {
      return Error{checked[i].file.string() + ": its frames hold " + std::to_string(points) +
                   " points, its record " + std::to_string(checked[i].record.points)};
    }
    result.points += points;
  }
  result.frames = frames;

  auto hashes = HashFilePieces(dataset.temp_path());
  if (!hashes.ok()) return hashes.error();
  // The manifest from the checked fields alone: a record's own text never reaches it.
  Json m;
  m["identity"] = id;
  m["frames"] = frames;
  m["points"] = result.points;
  Json entry = {{"file", "dataset.h5"}};
  PutPieceHashes(entry, *hashes);
  m["dataset"] = entry;
  Json list = Json::array();
  for (const auto& s : checked)
    list.push_back(ShardRecordJson(s.record, false));
  m["shards"] = list;
  // Both files move into place as one set: an interruption or a failed move puts the earlier
  // pair back.
  AtomicOutput manifest(result.manifest);
  if (Status s = WriteText(manifest, m.dump(2) + "\n"); !s.ok()) return s.error();
  if (Status s = CommitOutputSet(
          {{dataset.temp_path(), result.dataset}, {manifest.temp_path(), result.manifest}});
      !s.ok()) {
    return s.error();
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace lt
