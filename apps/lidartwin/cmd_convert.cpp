// lidartwin convert: a real recording (Ouster or Velodyne pcap, KITTI or nuScenes .bin, PCD,
// PLY, LAS, HDF5) to our HDF5 frames or to PLY/PCD/LAS, one frame per file; streamed
// (ConvertRecording).
#include <fmt/core.h>

#include <chrono>

#include "command.h"
#include "commands.h"
#include "lidartwin/base/terminal_progress.h"
#include "lidartwin/datasets/convert_recording.h"
#include "lidartwin/datasets/frame_output.h"

namespace lt::cli {

int ConvertCommand(const std::vector<std::string>& argv) {
  const Command convert{
      "convert",
      "",
      {{"--metadata", "--calibration", "--firetimes", "--out", "--format", "--topic"}, {}, 1},
      {{"topic", "--topic"},
       {"out", "--out"},
       {"format", "--format"},
       {"firetimes", "--firetimes"}}};
  return RunCommand(convert, argv, [](const Args& args) -> Expected<int> {
    if (Status s = FirstError({Require(args, "RECORDING", {"--out"}),
                               RefuseStandardOutput(args, {{"--out", kFramesOutput}})});
        !s.ok())
      return s.error();
    if (args.Has("--metadata") && args.Has("--calibration"))
      return FlagError("--metadata", "give --metadata or --calibration, not both");
    const std::string format = args.Get("--format");
    if (!format.empty() && format != "kitti" && format != "nuscenes")
      return FlagError("--format", "--format " + format + ": expected kitti or nuscenes");
    const auto start = std::chrono::steady_clock::now();
    ConvertOptions o;
    o.recording = args.positionals()[0];
    o.sidecar = args.Get("--metadata", args.Get("--calibration"));
    o.out = args.Get("--out");
    o.read.format = format;
    o.read.topic = args.Get("--topic");
    o.read.firetimes = args.Get("--firetimes");
    o.software_version = LT_VERSION;
    Progress progress("convert", 100);
    o.on_frame = [&progress](uint32_t frames, uint64_t points, double fraction) {
      progress.Status(fraction, fmt::format("{} frame(s), {} points", frames, points));
    };
    auto result = ConvertRecording(o);
    progress.Finish();
    if (!result.ok()) return result.error();
    for (const std::string& note : result->source.notes)
      fmt::print(stderr, "lidartwin convert: {}\n", note);
    fmt::print("read {} ({}, {}): {} frame(s), {} points -> {} in {:.2f} s\n", o.recording.string(),
               result->source.reader, result->source.sensor, result->frames, result->points,
               WrittenFilesText(result->written),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return 0;
  });
}

}  // namespace lt::cli
