// lidartwin convert: a real recording (Ouster or Velodyne pcap, KITTI .bin, HDF5) to our
// HDF5 frames or to PLY/PCD, one frame per file.
#include <fmt/core.h>

#include "args.h"
#include "commands.h"
#include "lidartwin/datasets/frame_output.h"
#include "lidartwin/datasets/recording.h"

namespace lt::cli {

int ConvertCommand(const std::vector<std::string>& argv) {
  const ArgSpec spec{{"--metadata", "--calibration", "--out"}, {"--help"}, 1};
  auto args = Args::Parse(argv, spec);
  if (!args.ok()) {
    fmt::print(stderr, "lidartwin convert: {}\n", args.message());
    return 2;
  }
  if (args->Has("--help") || args->positionals().empty() || !args->Has("--out")) {
    fmt::print(
        "usage: lidartwin convert RECORDING [--metadata OUSTER.json | --calibration VELO.yaml]\n"
        "         --out out.{{h5,ply,pcd}}\n"
        "  RECORDING: Ouster or Velodyne .pcap (with its metadata or calibration), KITTI .bin,\n"
        "  or lidartwin .h5\n");
    return args->Has("--help") ? 0 : 2;
  }
  if (args->Has("--metadata") && args->Has("--calibration")) {
    fmt::print(stderr, "lidartwin convert: give --metadata or --calibration, not both\n");
    return 2;
  }
  const std::string sidecar = args->Get("--metadata", args->Get("--calibration"));
  auto rec = ReadRecording(args->positionals()[0], sidecar);
  if (!rec.ok()) {
    fmt::print(stderr, "lidartwin convert: error: {}\n", rec.message());
    return 1;
  }
  DatasetInfo info;
  info.software_version = LT_VERSION;
  info.sensor_name = rec->sensor;
  info.backend = rec->reader;
  info.wavelength_nm = rec->wavelength_nm;
  const auto frames = static_cast<uint32_t>(rec->frames.size());
  auto out = FrameOutput::Open(args->Get("--out"), info);
  if (!out.ok()) {
    fmt::print(stderr, "lidartwin convert: error: {}\n", out.message());
    return 1;
  }
  uint64_t points = 0;
  for (uint32_t k = 0; k < frames; ++k) {
    if (Status s = out->Write(rec->frames[k]); !s.ok()) {
      fmt::print(stderr, "lidartwin convert: error: {}\n", s.message());
      return 1;
    }
    points += rec->frames[k].size();
  }
  if (Status s = out->Close(); !s.ok()) {
    fmt::print(stderr, "lidartwin convert: error: {}\n", s.message());
    return 1;
  }
  fmt::print("read {} ({}, {}): {} frame(s), {} points -> {}\n", args->positionals()[0],
             rec->reader, rec->sensor, frames, points, args->Get("--out"));
  return 0;
}

}  // namespace lt::cli
