// lidartwin convert: a real recording (Ouster or Velodyne pcap, KITTI or nuScenes .bin, PCD,
// PLY, LAS, HDF5) to our HDF5 frames or to PLY/PCD/LAS, one frame per file; streamed
// (ConvertRecording).
#include <fmt/core.h>

#include <chrono>

#include "args.h"
#include "commands.h"
#include "lidartwin/datasets/convert_recording.h"
#include "lidartwin/datasets/frame_output.h"
#include "progress.h"

namespace lt::cli {

int ConvertCommand(const std::vector<std::string>& argv) {
  const ArgSpec spec{{"--metadata", "--calibration", "--out", "--format"}, {"--help"}, 1};
  auto args = Args::Parse(argv, spec);
  if (!args.ok()) {
    fmt::print(stderr, "lidartwin convert: {}\n", args.message());
    return 2;
  }
  const char* usage =
      "usage: lidartwin convert RECORDING [--metadata OUSTER.json | --calibration VELO.yaml]\n"
      "         [--format kitti|nuscenes] --out out.{h5,ply,pcd,las}\n"
      "  RECORDING: Ouster or Velodyne .pcap (with its metadata or calibration), KITTI or\n"
      "  nuScenes .bin, .pcd, .ply, .las, or lidartwin .h5. --format names the layout of a .bin\n"
      "  (needed where neither its name nor its size tells; datasets/README.md).\n";
  if (args->Has("--help")) {
    fmt::print("{}", usage);
    return 0;
  }
  if (const std::string missing = MissingArguments(*args, "RECORDING", {"--out"});
      !missing.empty()) {
    fmt::print(stderr, "lidartwin convert: {}\n{}", missing, usage);
    return 2;
  }
  if (args->Has("--metadata") && args->Has("--calibration")) {
    fmt::print(stderr, "lidartwin convert: give --metadata or --calibration, not both\n");
    return 2;
  }
  const std::string format = args->Get("--format");
  if (!format.empty() && format != "kitti" && format != "nuscenes") {
    fmt::print(stderr, "lidartwin convert: --format {}: expected kitti or nuscenes\n", format);
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  ConvertOptions options;
  options.recording = args->positionals()[0];
  options.sidecar = args->Get("--metadata", args->Get("--calibration"));
  options.out = args->Get("--out");
  options.read.format = format;
  options.software_version = LT_VERSION;
  Progress progress("convert", 100);
  options.on_frame = [&progress](uint32_t frames, uint64_t points, double fraction) {
    progress.Status(fraction, fmt::format("{} frame(s), {} points", frames, points));
  };
  auto result = ConvertRecording(options);
  progress.Finish();
  if (!result.ok()) {
    fmt::print(stderr, "lidartwin convert: error: {}\n", result.message());
    return 1;
  }
  for (const std::string& note : result->source.notes)
    fmt::print(stderr, "lidartwin convert: {}\n", note);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string written = WrittenFilesText(result->written);
  fmt::print("read {} ({}, {}): {} frame(s), {} points -> {} in {:.2f} s\n",
             options.recording.string(), result->source.reader, result->source.sensor,
             result->frames, result->points, written, seconds);
  return 0;
}

}  // namespace lt::cli
