#include "lidartwin/datasets/recording.h"

#include <algorithm>
#include <memory>

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
      return Error{file.string() +
                   ": a pcap needs its sensor's metadata (Ouster .json) or calibration "
                   "(Velodyne .yaml, Hesai or RoboSense .csv)"};
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
