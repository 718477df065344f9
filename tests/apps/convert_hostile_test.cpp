// Issue 11, `lidartwin convert` on hostile and field recordings, run as a user would: the wrong
// sensor family and header-only captures (finding 10), duplicated packets (finding 11), .h5 to
// .h5 keeping the source's description (finding 14), the summary naming the files written,
// and .bin layouts (KITTI, nuScenes).
#include <gtest/gtest.h>

#include <cstring>

#include "cli_support.h"
#include "lidartwin/datasets/hdf5_frames.h"
#include "test_support.h"

namespace lt {
namespace {

using test::Cli;
using test::CliRun;
using test::Q;

bool Has(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

// Nothing at all was written into `dir` (no output, no temporary, no per-frame file).
void ExpectNothingWritten(const test::TempDir& dir, const std::string& context) {
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    const std::string name = e.path().filename().string();
    EXPECT_TRUE(name.rfind("in_", 0) == 0) << context << ": left " << e.path();
  }
}

TEST(ConvertHostile, WrongSensorFamilyIsAnErrorNotZeroFrames) {
  LT_REQUIRE_REAL_DATA();
  const auto real = test::RealDataDir();
  test::TempDir dir;
  struct Case {
    std::string args, fragment;
  };
  const std::vector<Case> cases = {
      {Q(real / "ouster-sdk/OS-1-32-G_v2.1.1_1024x10.pcap") + " --calibration " +
           Q(real / "ros-velodyne/VLP16db.yaml"),
       "no Velodyne data packet"},
      {Q(real / "rust-lidar-utils/hdl32_example.pcap") + " --metadata " +
           Q(real / "ouster-sdk/OS-1-32-G_v2.1.1_1024x10.json"),
       "no lidar packet matches"},
      {Q(real / "ouster-sdk/OS-1-64_1024x10_fw20.pcap") + " --metadata " +
           Q(real / "ouster-sdk/OS-1-32-G_v2.1.1_1024x10.json"),
       "of 12608 bytes"},
      {Q(real / "rust-lidar-utils/velodyne_example_vlp16.pcap") + " --calibration " +
           Q(real / "ros-velodyne/32db.yaml"),
       "VLP-16 but the calibration has 32 lasers"},
  };
  for (const Case& c : cases) {
    for (const char* out : {"x.h5", "x.ply"}) {
      const CliRun r = Cli("convert " + c.args + " --out " + Q(dir / out));
      EXPECT_EQ(r.code, 1) << r.output;
      EXPECT_TRUE(Has(r.output, c.fragment)) << r.output;
      EXPECT_FALSE(Has(r.output, "->")) << r.output;
      ExpectNothingWritten(dir, c.args);
    }
  }
}

// A Hesai bag with its unit's fire-time file converts, each point timed by its channel; the same
// file for a Velodyne recording, or a file that is no fire-time file, is refused naming it, the
// first as a usage error (exit 2) naming its flag.
TEST(ConvertHostile, AFiretimeFileIsForHesaiRecordings) {
  LT_REQUIRE_REAL_DATA();
  const auto real = test::RealDataDir();
  test::TempDir dir;
  const std::string fire = Q(real / "hesai-sdk/Pandar64_Firetime_Correction_File.csv");
  const CliRun ok = Cli("convert " + Q(real / "nebula/hesai-pandar64") + " --calibration " +
                        Q(real / "nebula/hesai-pandar64/Pandar64.csv") + " --firetimes " + fire +
                        " --out " + Q(dir / "p64.h5"));
  EXPECT_EQ(ok.code, 0) << ok.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "p64.h5"));
  const CliRun velodyne = Cli("convert " + Q(real / "nebula/velodyne-vlp16") + " --calibration " +
                              Q(real / "nebula/velodyne-vlp16/VLP16.yaml") + " --firetimes " +
                              fire + " --out " + Q(dir / "v.h5"));
  EXPECT_EQ(velodyne.code, 2) << velodyne.output;
  EXPECT_TRUE(Has(velodyne.output, "--firetimes")) << velodyne.output;
  EXPECT_TRUE(Has(velodyne.output, "only Hesai recordings take a fire-time file"))
      << velodyne.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "v.h5"));
  const CliRun angles =
      Cli("convert " + Q(real / "nebula/hesai-pandar64") + " --calibration " +
          Q(real / "nebula/hesai-pandar64/Pandar64.csv") + " --firetimes " +
          Q(real / "nebula/hesai-pandar64/Pandar64.csv") + " --out " + Q(dir / "bad.h5"));
  EXPECT_EQ(angles.code, 1) << angles.output;
  EXPECT_TRUE(Has(angles.output, "Pandar64.csv: line")) << angles.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "bad.h5"));
  // The output may not be the fire-time file (named as one an output could have).
  std::filesystem::copy_file(real / "hesai-sdk/Pandar64_Firetime_Correction_File.csv",
                             dir / "fire.h5");
  const auto before = std::filesystem::file_size(dir / "fire.h5");
  const CliRun over = Cli("convert " + Q(real / "nebula/hesai-pandar64") + " --calibration " +
                          Q(real / "nebula/hesai-pandar64/Pandar64.csv") + " --firetimes " +
                          Q(dir / "fire.h5") + " --out " + Q(dir / "fire.h5"));
  EXPECT_EQ(over.code, 2) << over.output;
  EXPECT_TRUE(Has(over.output, "would be overwritten")) << over.output;
  EXPECT_EQ(std::filesystem::file_size(dir / "fire.h5"), before);
}

TEST(ConvertHostile, HeaderOnlyCaptureIsAnError) {
  LT_REQUIRE_REAL_DATA();
  const auto real = test::RealDataDir();
  test::TempDir dir;
  const std::string bytes = test::ReadAll(real / "rust-lidar-utils/velodyne_example_vlp16.pcap");
  dir.Write("in_empty.pcap", bytes.substr(0, 24));
  for (const char* out : {"x.h5", "x.ply", "x.pcd"}) {
    const CliRun r = Cli("convert " + Q(dir / "in_empty.pcap") + " --calibration " +
                         Q(real / "ros-velodyne/VLP16db.yaml") + " --out " + Q(dir / out));
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_TRUE(Has(r.output, "in_empty.pcap: contains no packets")) << r.output;
    EXPECT_FALSE(Has(r.output, "->")) << r.output;
    ExpectNothingWritten(dir, out);
  }
}

TEST(ConvertHostile, DuplicatedPacketsAreDroppedAndReported) {
  LT_REQUIRE_REAL_DATA();
  const auto real = test::RealDataDir();
  test::TempDir dir;
  const std::string bytes = test::ReadAll(real / "rust-lidar-utils/velodyne_example_vlp16.pcap");
  // Every record twice.
  std::string twice = bytes.substr(0, 24);
  for (size_t at = 24; at + 16 <= bytes.size();) {
    uint32_t incl;
    std::memcpy(&incl, bytes.data() + at + 8, 4);
    const std::string record = bytes.substr(at, 16 + incl);
    twice += record + record;
    at += 16 + incl;
  }
  dir.Write("in_twice.pcap", twice);
  const std::string cal = " --calibration " + Q(real / "ros-velodyne/VLP16db.yaml");
  const CliRun once = Cli("convert " + Q(real / "rust-lidar-utils/velodyne_example_vlp16.pcap") +
                          cal + " --out " + Q(dir / "once.h5"));
  ASSERT_EQ(once.code, 0) << once.output;
  const CliRun doubled =
      Cli("convert " + Q(dir / "in_twice.pcap") + cal + " --out " + Q(dir / "twice.h5"));
  ASSERT_EQ(doubled.code, 0) << doubled.output;
  EXPECT_TRUE(Has(doubled.output, "dropped 84 duplicated lidar packet(s)")) << doubled.output;
  auto a = ReadHdf5Summary(dir / "once.h5");
  auto b = ReadHdf5Summary(dir / "twice.h5");
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->frames.size(), b->frames.size());
  for (size_t k = 0; k < a->frames.size(); ++k)
    EXPECT_EQ(a->frames[k].points, b->frames[k].points) << "frame " << k;
}

TEST(ConvertHostile, FieldCaptureNotesWhatWasSkipped) {
  LT_REQUIRE_REAL_DATA();
  const auto real = test::RealDataDir();
  test::TempDir dir;
  const CliRun r =
      Cli("convert " + Q(real / "rust-lidar-utils/hdl32_example.pcap") + " --calibration " +
          Q(real / "ros-velodyne/32db.yaml") + " --out " + Q(dir / "hdl.ply"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(Has(r.output,
                  "skipped 100 non-lidar packet(s) (100 Velodyne position packet(s) "
                  "on port 8308)"))
      << r.output;
  // The summary names the per-frame files really written, and the time.
  const std::string first = (dir / "hdl_000000.ply").string();
  const std::string last = (dir / "hdl_000006.ply").string();
  EXPECT_TRUE(Has(r.output, "-> " + first + " .. " + last + " (7 files) in ")) << r.output;
  EXPECT_TRUE(std::filesystem::exists(first));
  EXPECT_TRUE(std::filesystem::exists(last));
  EXPECT_FALSE(std::filesystem::exists(dir / "hdl_000007.ply"));
  EXPECT_FALSE(std::filesystem::exists(dir / "hdl.ply"));
  // A single scan is written under the name given.
  const CliRun k = Cli("convert " + Q(real / "kitti-object-vis/velodyne/000000.bin") + " --out " +
                       Q(dir / "k.pcd"));
  ASSERT_EQ(k.code, 0) << k.output;
  EXPECT_TRUE(Has(k.output, "-> " + (dir / "k.pcd").string() + " in ")) << k.output;
  // A capture of one frame too (its count is known only at its end).
  const CliRun one =
      Cli("convert " + Q(real / "ouster-sdk/OS-1-32-G_v2.1.1_1024x10.pcap") + " --metadata " +
          Q(real / "ouster-sdk/OS-1-32-G_v2.1.1_1024x10.json") + " --out " + Q(dir / "os.pcd"));
  ASSERT_EQ(one.code, 0) << one.output;
  EXPECT_TRUE(Has(one.output, "1 frame(s)")) << one.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "os.pcd"));
  EXPECT_FALSE(std::filesystem::exists(dir / "os_000000.pcd"));
}

// Finding 14: .h5 to .h5 keeps the sensor profile, scene, software version, seed and backend.
TEST(ConvertHostile, Hdf5ToHdf5KeepsTheSourceDescription) {
  test::TempDir dir;
  const CliRun sim = Cli(
      "simulate --sensor " + Q(test::ConfigDir() / "sensors/velodyne_vlp16.yaml") + " --scene " +
      Q(test::ConfigDir() / "scenes/lab_plates.yaml") + " --seed 7 --out " + Q(dir / "sim.h5"));
  ASSERT_EQ(sim.code, 0) << sim.output;
  const CliRun conv = Cli("convert " + Q(dir / "sim.h5") + " --out " + Q(dir / "copy.h5"));
  ASSERT_EQ(conv.code, 0) << conv.output;
  auto a = ReadHdf5Summary(dir / "sim.h5");
  auto b = ReadHdf5Summary(dir / "copy.h5");
  ASSERT_TRUE(a.ok()) << a.message();
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_FALSE(a->info.sensor_profile_yaml.empty());
  EXPECT_FALSE(a->info.scene_yaml.empty());
  EXPECT_EQ(b->info.sensor_profile_yaml, a->info.sensor_profile_yaml);
  EXPECT_EQ(b->info.scene_yaml, a->info.scene_yaml);
  EXPECT_EQ(b->info.software_version, a->info.software_version);
  EXPECT_EQ(b->info.seed, 7u);
  EXPECT_EQ(b->info.backend, a->info.backend);
  EXPECT_NE(b->info.backend, "hdf5");
  EXPECT_EQ(b->info.sensor_name, a->info.sensor_name);
  EXPECT_EQ(b->info.wavelength_nm, a->info.wavelength_nm);
  ASSERT_EQ(b->frames.size(), a->frames.size());
  for (size_t k = 0; k < a->frames.size(); ++k)
    EXPECT_EQ(b->frames[k].points, a->frames[k].points);
}

std::string Floats(const std::vector<float>& v) {
  std::string b(v.size() * 4, '\0');
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TEST(ConvertHostile, BinLayoutNeedsFormatWhereAmbiguous) {
  test::TempDir dir;
  // 80 bytes: four nuScenes points or five KITTI points.
  dir.Write("in_scan.bin",
            Floats({1, 2, 2, 37, 5, -3, 0, 4, 255, 31, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2}));
  const CliRun amb = Cli("convert " + Q(dir / "in_scan.bin") + " --out " + Q(dir / "x.pcd"));
  EXPECT_EQ(amb.code, 1) << amb.output;
  EXPECT_TRUE(Has(amb.output, "in_scan.bin: 80 bytes fit both")) << amb.output;
  EXPECT_TRUE(Has(amb.output, "give the format: kitti or nuscenes")) << amb.output;
  ExpectNothingWritten(dir, "ambiguous");
  const CliRun n =
      Cli("convert " + Q(dir / "in_scan.bin") + " --format nuscenes --out " + Q(dir / "n.pcd"));
  ASSERT_EQ(n.code, 0) << n.output;
  EXPECT_TRUE(Has(n.output, "(nuscenes-bin, HDL-32E (nuScenes LIDAR_TOP)): 1 frame(s), 4 points"))
      << n.output;
  const CliRun k =
      Cli("convert " + Q(dir / "in_scan.bin") + " --format kitti --out " + Q(dir / "k.pcd"));
  ASSERT_EQ(k.code, 0) << k.output;
  EXPECT_TRUE(Has(k.output, "1 frame(s), 5 points")) << k.output;
  // The nuScenes name needs no --format.
  std::filesystem::copy_file(dir / "in_scan.bin", dir / "in_LIDAR_TOP.pcd.bin");
  const CliRun named =
      Cli("convert " + Q(dir / "in_LIDAR_TOP.pcd.bin") + " --out " + Q(dir / "named.h5"));
  ASSERT_EQ(named.code, 0) << named.output;
  EXPECT_TRUE(Has(named.output, "4 points")) << named.output;
  const CliRun bad =
      Cli("convert " + Q(dir / "in_scan.bin") + " --format las --out " + Q(dir / "b.pcd"));
  EXPECT_EQ(bad.code, 2) << bad.output;
  EXPECT_TRUE(Has(bad.output, "--format las")) << bad.output;
}

}  // namespace
}  // namespace lt
