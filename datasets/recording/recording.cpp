#include "lidartwin/datasets/recording.h"

#include <fmt/core.h>

#include <algorithm>
#include <memory>

#include "lidartwin/base/ascii_case.h"
#include "lidartwin/base/cancellation.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/datasets/hdf5_frames.h"
#include "lidartwin/datasets/kitti_bin.h"
#include "lidartwin/datasets/las.h"
#include "lidartwin/datasets/osf.h"
#include "lidartwin/datasets/ouster.h"
#include "lidartwin/datasets/point_cloud_readers.h"
#include "lidartwin/datasets/ros_bag.h"
#include "recording/packet_recording.h"
#include "rosbag/bag_recording.h"

namespace lt {

RecordingSource::RecordingSource(Recording header, Reader reader)
    : header_(std::move(header)),
      reader_(std::move(reader)),
      stats_(std::make_shared<CaptureStats>()) {}

Status RecordingSource::ForEachFrame(const FrameSink& sink) {
  std::vector<std::string> notes;
  Status s = reader_(
      [&](Frame&& f) -> Status {
        ++frames_done_;
        if (Status stop = CheckCancelled(); !stop.ok()) return stop;
        return sink(std::move(f));
      },
      *stats_, notes);
  for (std::string& n : stats_->Notes())
    notes.push_back(std::move(n));
  header_.notes.insert(header_.notes.end(), notes.begin(), notes.end());
  return s;
}

double RecordingSource::Fraction() const {
  if (stats_->bytes_total) return static_cast<double>(stats_->bytes_read) / stats_->bytes_total;
  if (header_.frames_known) {
    return std::min(1.0, static_cast<double>(frames_done_) / header_.frames_known);
  }
  return 0;
}

namespace {

// A reader of a single-frame file.
RecordingSource::Reader OneFrame(std::function<Expected<Frame>()> read) {
  return [read = std::move(read)](const FrameSink& sink, CaptureStats&,
                                  std::vector<std::string>&) -> Status {
    auto f = read();
    if (!f.ok()) return f.error();
    return sink(std::move(f.value()));
  };
}

// An OSF file: its sensor's metadata is inside; `topic` picks a lidar stream where it has
// several (ChooseOsfStream).
Expected<RecordingSource> OpenOsfRecording(const std::filesystem::path& file,
                                           const std::filesystem::path& sidecar,
                                           const RecordingOptions& options) {
  if (!sidecar.empty()) {
    return Error{sidecar.string() + ": an OSF file carries its sensor's metadata; give " +
                 file.string() + " alone"};
  }
  if (!options.format.empty())
    return OptionError("format", "format " + options.format +
                                     ": only .bin point files take a format (" + file.string() +
                                     " is an OSF file)");
  auto osf = OpenOsf(file);
  if (!osf.ok()) return osf.error();
  auto stream = ChooseOsfStream(*osf, options.topic);
  if (!stream.ok()) return OptionError("topic", "topic " + options.topic + ": " + stream.message());
  Recording r;
  r.reader = "ouster-osf";
  r.wavelength_nm = 865;
  r.intensity_unit = OusterIntensityUnit((*stream)->sensor.profile);
  r.sensor = (*stream)->sensor.product.empty() ? "ouster" : (*stream)->sensor.product;
  const size_t index = static_cast<size_t>(*stream - osf->streams.data());
  return RecordingSource(
      std::move(r), [osf = std::move(osf.value()), index](
                        const FrameSink& sink, CaptureStats& stats, std::vector<std::string>&) {
        return ForEachOsfFrame(osf, osf.streams[index], sink, &stats);
      });
}

Expected<RecordingSource> OpenAnyRecording(const std::filesystem::path& file,
                                           const std::filesystem::path& sidecar,
                                           const RecordingOptions& options);

}  // namespace

Expected<RecordingSource> OpenRecording(const std::filesystem::path& file,
                                        const std::filesystem::path& sidecar,
                                        const RecordingOptions& options) {
  auto source = OpenAnyRecording(file, sidecar, options);
  if (source.ok() && !options.firetimes.empty() && source->header().reader.rfind("hesai-", 0) != 0)
    return OptionError("firetimes", "firetimes " + options.firetimes.string() +
                                        ": only Hesai recordings take a fire-time file (" +
                                        file.string() + " is read as " + source->header().reader +
                                        ")");
  return source;
}

namespace {

// Whether the path's name ends as a recording's or a sensor's file does (.bin, .pcap, .h5, ..).
bool NamesARecordingFile(const std::filesystem::path& path) {
  static constexpr const char* kFileExtensions[] = {
      ".bin", ".pcd", ".ply", ".las",  ".laz",  ".h5",   ".hdf5", ".pcap", ".pcapng",
      ".osf", ".bag", ".db3", ".mcap", ".json", ".yaml", ".yml",  ".xml",  ".csv"};
  const std::string ext = AsciiLowerCase(path.filename().extension().string());
  return std::find_if(std::begin(kFileExtensions), std::end(kFileExtensions),
                      [&](const char* e) { return ext == e; }) != std::end(kFileExtensions);
}

// The point-file kinds a folder of scans may hold, one frame a file.
constexpr const char* kScanFileExtensions[] = {".bin", ".pcd", ".ply", ".las"};
constexpr size_t kMaxScanFiles = 1000000;

// A folder of scans (KITTI's velodyne/ folder, a PCD sequence): every file of one point-file
// kind, in name order, one frame each, read as OpenAnyRecording reads the file alone. Other
// files are left out and counted in a note.
Expected<RecordingSource> OpenScanFolder(const std::filesystem::path& dir,
                                         const std::filesystem::path& sidecar,
                                         const RecordingOptions& options) {
  if (!sidecar.empty())
    return Error{sidecar.string() + ": only pcap recordings take metadata or calibration (" +
                 dir.string() + " is a folder of scans)"};
  std::vector<std::filesystem::path> files;
  size_t others = 0;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string ext = AsciiLowerCase(it->path().extension().string());
    // Hidden files (macOS's ._ companions of each scan) are not scans.
    const bool hidden = it->path().filename().string().starts_with(".");
    const bool scan = !hidden && std::find_if(std::begin(kScanFileExtensions),
                                              std::end(kScanFileExtensions), [&](const char* e) {
                                                return ext == e;
                                              }) != std::end(kScanFileExtensions);
    if (scan && it->is_regular_file(ec)) {
      files.push_back(it->path());
    } else {
      ++others;
    }
    if (files.size() > kMaxScanFiles)
      return Error{fmt::format("{}: more than {} scan files; give a folder of at most that many",
                               dir.string(), kMaxScanFiles)};
  }
  if (ec) return Error{dir.string() + ": cannot list the folder: " + ec.message()};
  if (files.empty())
    return Error{dir.string() +
                 ": a folder of scans holds .bin, .pcd, .ply or .las files, one frame each; "
                 "it has none"};
  std::sort(files.begin(), files.end());
  for (const auto& f : files)
    if (AsciiLowerCase(f.extension().string()) !=
        AsciiLowerCase(files.front().extension().string()))
      return Error{fmt::format("{}: holds both {} and {} files; a folder of scans holds one kind",
                               dir.string(), files.front().extension().string(),
                               f.extension().string())};
  // .bin scans carry no header: a folder whose every size fits one layout only (KITTI's 16-byte
  // points or nuScenes' 20-byte ones) is read so, though a file alone may fit both.
  RecordingOptions per_file = options;
  if (per_file.format.empty() && AsciiLowerCase(files.front().extension().string()) == ".bin") {
    bool kitti = true, nuscenes = true;
    for (const auto& f : files) {
      const auto bytes = std::filesystem::file_size(f, ec);
      if (ec) return Error{f.string() + ": cannot read its size: " + ec.message()};
      kitti = kitti && bytes % 16 == 0;
      nuscenes = nuscenes && bytes % 20 == 0;
    }
    if (kitti != nuscenes) per_file.format = kitti ? "kitti" : "nuscenes";
  }
  auto first = OpenAnyRecording(files.front(), {}, per_file);
  if (!first.ok()) return first.error();
  Recording r = first->header();
  r.notes.clear();
  r.frames_known = static_cast<uint32_t>(files.size());
  r.notes.push_back(fmt::format(
      "note: {} scans of {}, one frame each, in name order{}", files.size(), dir.string(),
      others ? fmt::format(" ({} other entries left out)", others) : std::string()));
  const std::string reader = r.reader;
  return RecordingSource(std::move(r),
                         [files, per_file, reader](const FrameSink& sink, CaptureStats&,
                                                   std::vector<std::string>& notes) -> Status {
                           for (const auto& file : files) {
                             auto one = OpenAnyRecording(file, {}, per_file);
                             if (!one.ok()) return one.error();
                             if (one->header().reader != reader)
                               return Error{fmt::format(
                                   "{}: read as {}, the folder's first scan as {}: a folder of "
                                   "scans holds one kind",
                                   file.string(), one->header().reader, reader)};
                             if (Status s = one->ForEachFrame(sink); !s.ok()) return s;
                             for (const std::string& n : one->header().notes)
                               notes.push_back(file.filename().string() + ": " + n);
                           }
                           return {};
                         });
}

Expected<RecordingSource> OpenAnyRecording(const std::filesystem::path& file,
                                           const std::filesystem::path& sidecar,
                                           const RecordingOptions& options) {
  std::error_code ec;
  if (LooksLikeRosBag(file)) {
    if (!options.format.empty())
      return OptionError("format", "format " + options.format +
                                       ": only .bin point files take a "
                                       "format (" +
                                       file.string() + " is a ROS bag)");
    return ros::OpenBagRecording(file, sidecar, options);
  }
  // A folder of scans, unless its name is a recording file's (scan.bin, capture.pcap: the file
  // the user meant, refused below as a directory).
  if (!NamesARecordingFile(file) && std::filesystem::is_directory(file, ec)) {
    if (!options.topic.empty())
      return OptionError("topic", "topic " + options.topic +
                                      ": only ROS bags and OSF files have topics (" +
                                      file.string() + " is a folder of scans)");
    return OpenScanFolder(file, sidecar, options);
  }
  const std::string ext = file.extension().string();
  if (ext == ".osf") return OpenOsfRecording(file, sidecar, options);
  if (!options.topic.empty())
    return OptionError("topic", "topic " + options.topic +
                                    ": only ROS bags and OSF files have "
                                    "topics (" +
                                    file.string() + " is neither)");
  if (Status s = CheckReadableFile(file); !s.ok()) return s.error();
  const std::string side_ext = sidecar.extension().string();
  if (!options.format.empty() && ext != ".bin") {
    return Error{"format " + options.format + ": only .bin point files take a format (" +
                 file.string() + " is known by its extension)"};
  }
  Recording r;
  if (ext == ".pcap" || ext == ".pcapng") {
    if (sidecar.empty()) {
      // A RoboSense Helios's DIFOP packets carry its angles; every other unit needs its file.
      auto helios =
          OpenPacketRecording(PacketFamily::kRobosense, PcapPackets(file), sidecar, {}, "pcap", r);
      if (helios.ok()) return helios;
      return PcapWithoutSidecar(file, helios.message());
    }
    if (side_ext == ".json") {
      auto m = LoadOusterMetadata(sidecar);
      if (!m.ok()) return m.error();
      r.reader = "ouster-pcap";
      r.wavelength_nm = 865;
      r.intensity_unit = OusterIntensityUnit(m->profile);
      r.sensor = m->product.empty() ? "ouster" : m->product;
      return RecordingSource(
          std::move(r), [file, m = std::move(m.value())](const FrameSink& sink, CaptureStats& stats,
                                                         std::vector<std::string>&) {
            return ForEachOusterFrame(file, m, sink, &stats);
          });
    }
    auto family = PacketFamilyOfSidecar(sidecar);
    if (!family.ok()) return family.error();
    return OpenPacketRecording(*family, PcapPackets(file), sidecar, options.firetimes, "pcap",
                               std::move(r));
  }
  if (!sidecar.empty()) {
    return Error{sidecar.string() + ": only pcap recordings take metadata or calibration"};
  }
  r.frames_known = 1;
  if (ext == ".bin") {
    std::string note;
    auto layout = ChooseBinLayout(file, options.format, &note);
    if (!layout.ok()) return layout.error();
    if (!note.empty()) r.notes.push_back("note: " + note);
    if (*layout == BinLayout::kNuscenes) {
      r.reader = "nuscenes-bin";
      r.intensity_unit = kIntensityNuscenes;
      r.wavelength_nm = 903;
      r.sensor = "HDL-32E (nuScenes LIDAR_TOP)";
      return RecordingSource(std::move(r), OneFrame([file] { return ReadNuscenesBin(file); }));
    }
    r.reader = "kitti-bin";
    r.intensity_unit = kIntensityPercent;  // remission 0..1 x 100 (kitti_bin.h)
    r.wavelength_nm = 905;
    r.sensor = "HDL-64E (KITTI)";
    return RecordingSource(std::move(r), OneFrame([file] { return ReadKittiBin(file); }));
  }
  if (ext == ".h5" || ext == ".hdf5") {
    auto opened = Hdf5FrameReader::Open(file);
    if (!opened.ok()) return opened.error();
    auto reader = std::make_shared<Hdf5FrameReader>(std::move(opened.value()));
    const Hdf5Summary& summary = reader->summary();
    r.reader = "hdf5";
    r.wavelength_nm = summary.info.wavelength_nm;
    r.sensor = summary.info.sensor_name;
    r.source = summary.info;
    r.has_source = true;
    r.intensity_unit =
        summary.info.intensity_unit.empty() ? kIntensityUnknown : summary.info.intensity_unit;
    r.frames_known = static_cast<uint32_t>(summary.frames.size());
    for (const auto& w : summary.warnings)
      r.notes.push_back("warning: " + w);
    // One frame in memory at a time.
    return RecordingSource(
        std::move(r),
        [reader](const FrameSink& sink, CaptureStats&, std::vector<std::string>&) -> Status {
          for (size_t k = 0; k < reader->summary().frames.size(); ++k) {
            auto frame = reader->ReadFrame(k);
            if (!frame.ok()) return frame.error();
            if (Status s = sink(std::move(frame.value())); !s.ok()) return s;
          }
          return {};
        });
  }
  if (ext == ".pcd" || ext == ".ply" || ext == ".las") {
    r.reader = ext.substr(1);  // intensity_unit: "unknown", as the file has it
    return RecordingSource(
        std::move(r), OneFrame([file, ext] {
          return ext == ".pcd" ? ReadPcd(file) : ext == ".ply" ? ReadPly(file) : ReadLas(file);
        }));
  }
  if (ext == ".laz") {
    return Error{file.string() +
                 ": LAZ (compressed LAS) is not read; decompress it to .las "
                 "first (laszip)"};
  }
  return Error{file.string() + ": unknown recording type '" + ext +
               "' (expected .pcap, .pcapng, .osf, .bin, .h5, .pcd, .ply, .las, or a ROS bag: .db3, "
               ".mcap or its folder)"};
}

}  // namespace

Expected<Recording> ForEachRecordingFrame(const std::filesystem::path& file,
                                          const std::filesystem::path& sidecar,
                                          const RecordingOptions& options, const FrameSink& sink) {
  auto source = OpenRecording(file, sidecar, options);
  if (!source.ok()) return source.error();
  if (Status s = source->ForEachFrame(sink); !s.ok()) return s.error();
  return source->header();
}

Expected<RecordingSize> MeasureRecording(const std::filesystem::path& file,
                                         const std::filesystem::path& sidecar,
                                         const RecordingOptions& options) {
  RecordingSize size;
  auto r = ForEachRecordingFrame(file, sidecar, options, [&](Frame&& f) -> Status {
    size.points_per_frame.push_back(f.size());
    return {};
  });
  if (!r.ok()) return r.error();
  size.reader = r->reader;
  return size;
}

Expected<Recording> ReadRecording(const std::filesystem::path& file,
                                  const std::filesystem::path& sidecar,
                                  const RecordingOptions& options) {
  std::vector<Frame> frames;
  auto r = ForEachRecordingFrame(file, sidecar, options, [&](Frame&& f) -> Status {
    frames.push_back(std::move(f));
    return {};
  });
  if (!r.ok()) return r.error();
  r->frames = std::move(frames);
  return r;
}

}  // namespace lt
