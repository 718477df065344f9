// Frames in HDF5, schema v2 (datasets/schema/frames_v2.md): flat tables, one column per field
// under /points holding every frame's points in turn, a row a frame under /frames (its point
// offset and count, times, poses), waveform records under /waveforms; chunked, shuffled and
// deflate-compressed, units as attributes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "lidartwin/base/frame.h"
#include "lidartwin/base/status.h"

namespace lt {

namespace hdf5 {
struct FramePlan;     // frame_tables.h (private): the chunks a frame completes
struct EncodedFrame;  // frame_tables.h (private): those chunks compressed on another thread
class TablePlanner;   // frame_tables.h (private): the plans' state
}  // namespace hdf5

inline constexpr int kFramesSchemaVersion = 2;
inline constexpr const char* kFramesSchemaName = "lidartwin.frames";

struct DatasetInfo {
  std::string software_version;
  std::string sensor_name;
  std::string sensor_profile_yaml;
  std::string scene_yaml;
  std::string backend;  // "cpu", "cuda", or the reader for real recordings
  uint64_t seed = 0;
  double wavelength_nm = 0;
  // What /points/intensity holds (intensity_unit.h): written as that column's unit attribute
  // and read back from it. Empty when writing: "percent" (what simulations of every detector
  // but the waveform one report).
  std::string intensity_unit;
  // The scene's material names by material_id (simulations; empty elsewhere): compare names its
  // by-material bins with them when no --scene is given. Attribute "material_names", one name
  // a line, written only when there are names.
  std::vector<std::string> material_names;
};

class Hdf5FrameWriter {
 public:
  // Starts a file; nothing appears at `path` until Close() succeeds.
  static Expected<std::unique_ptr<Hdf5FrameWriter>> Create(const std::filesystem::path& path,
                                                           const DatasetInfo& info);
  ~Hdf5FrameWriter();
  Status Append(const Frame& frame);
  // Export's pipeline (the same bytes as Append): Plan each frame here, in order, on one
  // thread; encode the plans on any threads (frame_tables.h, EncodePlan); hand them to
  // AppendEncoded in the same order, on one thread (which may be another than Plan's: the two
  // share no state).
  Expected<hdf5::FramePlan> Plan(std::shared_ptr<const Frame> frame);
  // The planner: its point columns for EncodePlan, and for a resumed export to restore
  // (TablePlanner::Restore) after replaying its journal's frames through AppendEncoded. Plan's
  // thread.
  hdf5::TablePlanner& Planner();
  Status AppendEncoded(const hdf5::EncodedFrame& frame);
  // Writes the last chunks and the frame rows left, finishes the file and moves it into place.
  Status Close();

 private:
  struct Impl;
  explicit Hdf5FrameWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

struct FrameSummary {
  uint32_t index = 0;
  uint64_t points = 0;
  double start_time_s = 0;
  double end_time_s = 0;
};

struct Hdf5Summary {
  int schema_version = 0;
  DatasetInfo info;
  std::vector<FrameSummary> frames;
  std::vector<std::pair<std::string, std::string>> fields;  // name, unit of the point columns
  // Attributes present but unreadable (left empty), each naming the file and attribute.
  std::vector<std::string> warnings;
};

// What a frames file may declare before anything is allocated for it. An OS0-128 frame has
// 262,144 points; 2^26 points of every field are about 3.5 GB.
inline constexpr uint64_t kMaxHdf5PointsPerFrame = uint64_t{1} << 26;
inline constexpr uint64_t kMaxHdf5Frames = 1000000;  // simulate's --frames limit
// Values a column of a file may hold (every frame's in turn): 2^22 chunks of 65,536.
inline constexpr uint64_t kMaxHdf5ColumnValues = uint64_t{1} << 38;

// Where a frames file comes from: anywhere (its structure is first walked in a forked child,
// so that a libhdf5 crash on a corrupt file becomes an error), or this process, which has just
// written it (the export's join reading back its dataset: the same checks, in-process only,
// which halves the read-back of a file of thousands of frames).
enum class Hdf5Origin { kForeign, kWrittenHere };

// Reads a frames file one frame at a time, so converting or comparing a long file never holds
// it whole. Open() checks the schema, the frame rows and the columns (x, y, z required, every
// column as long as the rows say, declared sizes consistent with the bytes stored) without
// reading point data; ReadFrame checks the chunks it reads (datasets/schema/frames_v2.md).
class Hdf5FrameReader {
 public:
  static Expected<Hdf5FrameReader> Open(const std::filesystem::path& path,
                                        Hdf5Origin origin = Hdf5Origin::kForeign);
  Hdf5FrameReader(Hdf5FrameReader&&) noexcept;
  Hdf5FrameReader& operator=(Hdf5FrameReader&&) noexcept;
  ~Hdf5FrameReader();

  // Metadata, and per frame its index, times and point count.
  const Hdf5Summary& summary() const;
  // Frame k (0 <= k < summary().frames.size()) in full.
  Expected<Frame> ReadFrame(size_t k) const;

  struct Impl;

 private:
  explicit Hdf5FrameReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Reads metadata and per-frame point counts (no point data).
Expected<Hdf5Summary> ReadHdf5Summary(const std::filesystem::path& path,
                                      Hdf5Origin origin = Hdf5Origin::kForeign);
// Reads every frame in full.
Expected<std::vector<Frame>> ReadHdf5Frames(const std::filesystem::path& path);

}  // namespace lt
