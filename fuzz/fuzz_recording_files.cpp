// libFuzzer target: the file readers (classic pcap, Ouster metadata JSON, Velodyne calibration
// YAML, KITTI and nuScenes .bin, metrics.json, an export's shard record) on arbitrary bytes
// written to a temporary file (the last two read from memory).
// The first byte picks the reader; with LT_FUZZ_REAL_DATA set to ../shared/real-data the pcap
// bytes are also decoded as Ouster and Velodyne packets with real metadata.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "../datasets/export/shard_record.h"
#include "lidartwin/compare/metrics_json.h"
#include "lidartwin/datasets/kitti_bin.h"
#include "lidartwin/datasets/ouster.h"
#include "lidartwin/datasets/pcap.h"
#include "lidartwin/datasets/velodyne.h"

namespace {

std::filesystem::path Write(const uint8_t* data, size_t size, const char* ext) {
  const auto p = std::filesystem::temp_directory_path() /
                 ("lidartwin-fuzz-" + std::to_string(::getpid()) + ext);
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t which = data[0] % 6;
  ++data, --size;
  static const char* real = std::getenv("LT_FUZZ_REAL_DATA");
  switch (which) {
    case 0: {
      const auto p = Write(data, size, ".pcap");
      (void)lt::ReadPcapUdp(p).ok();
      if (real) {
        static auto ouster =
            lt::LoadOusterMetadata(std::string(real) + "/ouster-sdk/OS-1-128_v2.3.0_1024x10.json");
        static auto velodyne =
            lt::LoadVelodyneCalibration(std::string(real) + "/ros-velodyne/32db.yaml");
        if (ouster.ok()) (void)lt::ReadOusterPcap(p, *ouster).ok();
        if (velodyne.ok()) (void)lt::ReadVelodynePcap(p, *velodyne).ok();
      }
      std::filesystem::remove(p);
      break;
    }
    case 1: {
      const auto p = Write(data, size, ".json");
      (void)lt::LoadOusterMetadata(p).ok();
      std::filesystem::remove(p);
      break;
    }
    case 2: {
      const auto p = Write(data, size, ".yaml");
      (void)lt::LoadVelodyneCalibration(p).ok();
      std::filesystem::remove(p);
      break;
    }
    case 3: {
      const auto p = Write(data, size, ".bin");
      (void)lt::ReadKittiBin(p).ok();
      (void)lt::ReadNuscenesBin(p).ok();
      (void)lt::ChooseBinLayout(p, "").ok();
      std::filesystem::remove(p);
      break;
    }
    case 5:  // an export's shard record (shard_record.h), as the join and a resumed run read it
      (void)lt::ParseShardRecord(std::string(reinterpret_cast<const char*>(data), size),
                                 "fuzz.json", 1, 3, 7, std::string(64, 'a'))
          .ok();
      break;
    default:
      (void)lt::compare::MetricsFromJson(std::string(reinterpret_cast<const char*>(data), size),
                                         "fuzz.json")
          .ok();
  }
  return 0;
}
