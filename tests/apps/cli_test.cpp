// End-to-end tests of the lidartwin CLI, run as a user would run it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include <functional>

#include "cli_support.h"
#include "lidartwin/datasets/hdf5_arrays.h"
#include "lidartwin/datasets/hdf5_frames.h"
#include "lidartwin/sim/sensor_profile.h"
#include "sim/expect_same_config.h"
#include "test_support.h"

namespace lt {
namespace {

using test::Cli;
using test::CliRun;
using test::Q;
using test::ReadAll;
using test::RunShell;

const std::filesystem::path kOs0 = test::ConfigDir() / "sensors/ouster_os0_128.yaml";
const std::filesystem::path kLab = test::ConfigDir() / "scenes/lab_plates.yaml";

TEST(Cli, SimulateWritesHdf5AndInfoDescribesIt) {
  test::TempDir dir;
  const auto out = dir / "scan.h5";
  const CliRun sim = Cli("simulate --sensor " + Q(kOs0) + " --scene " + Q(kLab) +
                         " --frames 2 --seed 3 --out " + Q(out));
  ASSERT_EQ(sim.code, 0) << sim.output;
  EXPECT_NE(sim.output.find("2 frame(s)"), std::string::npos) << sim.output;
  const CliRun info = Cli("info " + Q(out));
  ASSERT_EQ(info.code, 0) << info.output;
  EXPECT_NE(info.output.find("sensor:   ouster_os0_128 (850 nm)"), std::string::npos)
      << info.output;
  EXPECT_NE(info.output.find("frames:   2"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("instance_id [id]"), std::string::npos) << info.output;
  const CliRun json = Cli("info --json " + Q(out));
  ASSERT_EQ(json.code, 0) << json.output;
  const auto j = nlohmann::json::parse(json.output);
  EXPECT_EQ(j["frames"].size(), 2u);
  EXPECT_EQ(j["seed"], 3);
  EXPECT_GT(j["frames"][0]["points"].get<int>(), 10000);
  // Static scene and sensor: the frames differ only where range noise moves a return across
  // the capability limit.
  EXPECT_NEAR(j["frames"][0]["points"].get<double>(), j["frames"][1]["points"].get<double>(), 100);
}

// `lab extract` on a simulated recording of the lab scene (calibrated intensity, percent): the
// 50 % plate 5 m away, given by its corners, becomes a reflectance row reading 50 % head-on.
TEST(Cli, LabExtractMakesALabFolderFromARecordingOfATarget) {
  test::TempDir dir;
  const auto rec = dir / "plates.h5";
  ASSERT_EQ(Cli("simulate --sensor " + Q(kOs0) + " --scene " + Q(kLab) +
                " --frames 2 --seed 3 --out " + Q(rec))
                .code,
            0);
  const auto targets =
      dir.Write("targets.yaml",
                "name: the lab scene's 50 % plate\nwavelength_nm: 850\ntargets:\n"
                "  - name: plate_r50_d05\n    material: lambertian_50\n    reflectance: 0.5\n"
                "    corners: [[-4.715068, -1.682447, -0.25], [-4.523728, -2.144387, -0.25],\n"
                "              [-4.523728, -2.144387, 0.25], [-4.715068, -1.682447, 0.25]]\n");
  const CliRun r =
      Cli("lab extract " + Q(rec) + " --targets " + Q(targets) + " --out " + Q(dir / "lab"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("plate_r50_d05 frame 1: 5.000 m, 0.0 deg"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("1 reflectance, 0 detection table(s)"), std::string::npos) << r.output;
  const std::string table = ReadAll(dir / "lab/reflectance_lambertian_50_d5.0.csv");
  double incidence = -1, percent = -1, sigma = -1;
  ASSERT_EQ(std::sscanf(table.substr(table.find('\n') + 1).c_str(), "%lf,%lf,%lf", &incidence,
                        &percent, &sigma),
            3)
      << table;
  EXPECT_NEAR(percent, 50, 2.5);
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "lab/manifest.yaml"));
  // Its mistakes: no targets file, and a subcommand it does not have.
  const CliRun no_targets = Cli("lab extract " + Q(rec) + " --out " + Q(dir / "lab2"));
  EXPECT_EQ(no_targets.code, 2) << no_targets.output;
  EXPECT_NE(no_targets.output.find("--targets"), std::string::npos) << no_targets.output;
  EXPECT_EQ(Cli("lab fit").code, 2);
}

TEST(Cli, SameSeedGivesByteIdenticalOutput) {
  test::TempDir dir;
  const std::string common = "simulate --sensor " + Q(kOs0) + " --scene " + Q(kLab);
  ASSERT_EQ(Cli(common + " --seed 11 --out " + Q(dir / "a.h5")).code, 0);
  ASSERT_EQ(Cli(common + " --seed 11 --threads 1 --out " + Q(dir / "b.h5")).code, 0);
  ASSERT_EQ(Cli(common + " --seed 12 --out " + Q(dir / "c.h5")).code, 0);
  EXPECT_TRUE(ReadAll(dir / "a.h5") == ReadAll(dir / "b.h5"));
  EXPECT_FALSE(ReadAll(dir / "a.h5") == ReadAll(dir / "c.h5"));
}

TEST(Cli, WritesOnePlyOrPcdPerFrame) {
  test::TempDir dir;
  const std::string common = "simulate --sensor " + Q(kOs0) + " --scene " + Q(kLab) + " --frames 2";
  ASSERT_EQ(Cli(common + " --out " + Q(dir / "scan.ply")).code, 0);
  ASSERT_EQ(Cli(common + " --out " + Q(dir / "scan.pcd")).code, 0);
  EXPECT_TRUE(std::filesystem::exists(dir / "scan_000000.ply"));
  EXPECT_TRUE(std::filesystem::exists(dir / "scan_000001.ply"));
  EXPECT_TRUE(std::filesystem::exists(dir / "scan_000001.pcd"));
  EXPECT_EQ(ReadAll(dir / "scan_000000.ply").rfind("ply\n", 0), 0u);
  // One frame is written under the name given, as the help says; a run of several into the
  // same name then replaces it too, and a run of one the numbered set: never a mix.
  const std::string one = "simulate --sensor " + Q(kOs0) + " --scene " + Q(kLab);
  ASSERT_EQ(Cli(one + " --out " + Q(dir / "single.ply")).code, 0);
  EXPECT_TRUE(std::filesystem::exists(dir / "single.ply"));
  EXPECT_FALSE(std::filesystem::exists(dir / "single_000000.ply"));
  ASSERT_EQ(Cli(common + " --out " + Q(dir / "single.ply")).code, 0);
  EXPECT_FALSE(std::filesystem::exists(dir / "single.ply"));
  EXPECT_TRUE(std::filesystem::exists(dir / "single_000001.ply"));
  ASSERT_EQ(Cli(one + " --out " + Q(dir / "single.ply")).code, 0);
  EXPECT_TRUE(std::filesystem::exists(dir / "single.ply"));
  EXPECT_FALSE(std::filesystem::exists(dir / "single_000000.ply"));
}

// "--out -": refused as a usage error naming the flag, before anything is read or created,
// wherever the output is a file set or a folder; compare prints its metrics JSON there.
TEST(CliErrors, StandardOutputIsRefusedWhereTheOutputCannotStream) {
  test::TempDir dir;
  const std::string sim = "simulate --sensor " + Q(kOs0) + " --scene " + Q(kLab);
  const std::string cli = "cd " + Q(dir.path()) + " && " + std::string(LT_CLI) + " ";
  const std::vector<std::string> lines = {
      sim + " --out -",
      "convert x.bin --out -",
      "export --sensor " + Q(kOs0) + " --scene " + Q(kLab) + " --frames 1 --out -",
      "export --join --out -",
      "report m.json --out -",
      "import-sensor m.json --out -",
      "demo --out -",
      "compare --real a.h5 --sim b.h5 --out m.json --pairs -",
      "bench --export --out -"};
  for (const std::string& line : lines) {
    const CliRun r = RunShell(cli + line);
    EXPECT_EQ(r.code, 2) << line << "\n" << r.output;
    EXPECT_NE(r.output.find("'-' (standard output) cannot take what this command writes"),
              std::string::npos)
        << line << "\n"
        << r.output;
    EXPECT_FALSE(std::filesystem::exists(dir / "-")) << line;
  }
  ASSERT_EQ(Cli(sim + " --seed 1 --out " + Q(dir / "s1.h5")).code, 0);
  ASSERT_EQ(Cli(sim + " --seed 2 --out " + Q(dir / "s2.h5")).code, 0);
  // Only the JSON on stdout (stderr dropped): it parses whole.
  const CliRun cmp = RunShell("(" + std::string(LT_CLI) + " compare --real " + Q(dir / "s1.h5") +
                              " --sim " + Q(dir / "s2.h5") + " --out - 2>/dev/null)");
  ASSERT_EQ(cmp.code, 0) << cmp.output;
  EXPECT_EQ(nlohmann::json::parse(cmp.output)["schema"], "lidartwin.metrics") << cmp.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "-"));
}

TEST(Cli, MovingSensorWithATrajectory) {
  test::TempDir dir;
  const auto traj = dir.Write("t.yaml",
                              "motion_correction: true\nposes:\n"
                              "  - {time_s: 0, position_m: [0, 0, 0]}\n"
                              "  - {time_s: 1, position_m: [2, 0, 0]}\n");
  const CliRun r = Cli("simulate --sensor " + Q(kOs0) + " --scene " + Q(kLab) + " --trajectory " +
                       Q(traj) + " --out " + Q(dir / "m.h5"));
  ASSERT_EQ(r.code, 0) << r.output;
}

TEST(Cli, StreetWithMovingTraffic) {
  // The shipped moving-object scene: the crossing car moves ~1.4 m per frame, so two frames'
  // points on it (instance 3) are centred ~1.4 m apart along y.
  test::TempDir dir;
  const auto street = test::ConfigDir() / "scenes/street_crossing.yaml";
  const auto out = dir / "street.h5";
  const CliRun r = Cli("simulate --sensor " + Q(kOs0) + " --scene " + Q(street) +
                       " --frames 2 --motion-slices 32 --out " + Q(out));
  ASSERT_EQ(r.code, 0) << r.output;
  auto frames = ReadHdf5Frames(out);
  ASSERT_TRUE(frames.ok()) << frames.message();
  ASSERT_EQ(frames->size(), 2u);
  double mean_y[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const Frame& f = (*frames)[k];
    size_t n = 0;
    for (size_t i = 0; i < f.size(); ++i) {
      if (f.instance_id[i] != 3) continue;
      mean_y[k] += f.y_m[i];
      ++n;
    }
    ASSERT_GT(n, 100u);
    mean_y[k] /= n;
  }
  EXPECT_NEAR(mean_y[1] - mean_y[0], 1.39, 0.3);
  EXPECT_NE(Cli("simulate --sensor " + Q(kOs0) + " --scene " + Q(street) +
                " --motion-slices 0 --out " + Q(dir / "x.h5"))
                .code,
            0);
  EXPECT_FALSE(std::filesystem::exists(dir / "x.h5"));
}

TEST(Cli, ConvertsRealRecordings) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  const auto real = test::RealDataDir();
  const CliRun ouster =
      Cli("convert " + Q(real / "ouster-sdk/OS-1-128_v2.3.0_1024x10_lb_n3.pcap") + " --metadata " +
          Q(real / "ouster-sdk/OS-1-128_v2.3.0_1024x10.json") + " --out " + Q(dir / "os1.h5"));
  ASSERT_EQ(ouster.code, 0) << ouster.output;
  EXPECT_NE(ouster.output.find("3 frame(s), 322536 points"), std::string::npos) << ouster.output;
  const CliRun info = Cli("info " + Q(dir / "os1.h5"));
  EXPECT_NE(info.output.find("backend ouster-pcap"), std::string::npos) << info.output;
  const CliRun velodyne =
      Cli("convert " + Q(real / "rust-lidar-utils/hdl32_example.pcap") + " --calibration " +
          Q(real / "ros-velodyne/32db.yaml") + " --out " + Q(dir / "hdl.ply"));
  ASSERT_EQ(velodyne.code, 0) << velodyne.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "hdl_000001.ply"));
  const CliRun kitti = Cli("convert " + Q(real / "kitti-object-vis/velodyne/000001.bin") +
                           " --out " + Q(dir / "k.pcd"));
  ASSERT_EQ(kitti.code, 0) << kitti.output;
  // A pcap without its metadata: a clear error and no file.
  const CliRun bare = Cli("convert " + Q(real / "rust-lidar-utils/hdl32_example.pcap") + " --out " +
                          Q(dir / "x.h5"));
  EXPECT_EQ(bare.code, 1);
  EXPECT_NE(bare.output.find("needs its sensor's metadata"), std::string::npos) << bare.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "x.h5"));
}

TEST(Cli, DemoPrintsTargetsWritesHdf5AndEndsWithAReport) {
  test::TempDir dir;
  const CliRun r = Cli("demo --out " + Q(dir.path()));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "lab_plates.h5"));
  EXPECT_NE(r.output.find("N_points"), std::string::npos);
  EXPECT_NE(r.output.find("plate_r80_d40"), std::string::npos);
  // It ends with a report against the next seed.
  EXPECT_NE(r.output.find("fidelity report: seed 0 against seed 1"), std::string::npos);
  for (const char* f :
       {"metrics.json", "report/report.json", "report/report.md", "report/report.html"})
    EXPECT_TRUE(std::filesystem::is_regular_file(dir / f)) << f;
#if LT_WITH_CERES
  // The calibration chapter: the calibrated model beats the data sheet on all three KPIs
  // against the unit's recording (the demo exits 1 otherwise), and prints both.
  EXPECT_NE(r.output.find("the calibrated model is closer on all three"), std::string::npos)
      << r.output;
  for (const char* k : {"n_points_mape", "i_mean_mape", "d_error_difference_m"})
    EXPECT_NE(r.output.rfind(k), std::string::npos) << k;
  for (const char* f : {"calibration/calibrated.yaml", "calibration/report/report.html",
                        "calibration/lab/manifest.yaml"})
    EXPECT_TRUE(std::filesystem::is_regular_file(dir / f)) << f;
#endif
}

// ---- bad input: message names the file and key, exit code non-zero, no output file ----

void ExpectFailure(const test::TempDir& dir, const std::string& args,
                   const std::vector<std::string>& fragments) {
  const auto out = dir / "out.h5";
  const CliRun r = Cli(args + " --out " + Q(out));
  EXPECT_NE(r.code, 0) << r.output;
  for (const auto& f : fragments)
    EXPECT_NE(r.output.find(f), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out)) << "an output file was left behind";
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << e.path();
  }
}

std::string SensorWith(const std::string& from, const std::string& to) {
  std::string s = ReadAll(kOs0);
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos);
  return s.replace(at, from.size(), to);
}

std::string Library() {
  return (test::ConfigDir() / "materials/library.yaml").string();
}

// Issue 11 finding 3: a directory where a capture, a KITTI scan, Ouster metadata or a Velodyne
// calibration is expected was an uncaught exception (rc 134); now rc 1, naming it.
TEST(CliErrors, ADirectoryInsteadOfAnInputFileIsNamed) {
  test::TempDir dir;
  for (const char* d : {"d.pcap", "d.bin", "d.json", "d.yaml", "d.csv"})
    std::filesystem::create_directory(dir / d);
  const std::vector<std::string> commands = {
      "convert " + Q(dir / "d.pcap") + " --metadata " + Q(dir / "d.json") + " --out " +
          Q(dir / "x.h5"),
      "convert " + Q(dir / "d.bin") + " --out " + Q(dir / "x.h5"),
      "import-sensor " + Q(dir / "d.json") + " --out " + Q(dir / "p.yaml"),
      "import-sensor " + Q(dir / "d.yaml") + " --out " + Q(dir / "p.yaml"),
      "import-sensor " + Q(dir / "d.csv") + " --out " + Q(dir / "p.yaml"),
      "compare --real " + Q(dir / "d.bin") + " --sim " + Q(dir / "d.bin") + " --out " +
          Q(dir / "m.json"),
  };
  for (const auto& c : commands) {
    const CliRun r = Cli(c);
    EXPECT_EQ(r.code, 1) << c << "\n" << r.output;
    EXPECT_NE(r.output.find("is a directory"), std::string::npos) << c << "\n" << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "x.h5"));
  EXPECT_FALSE(std::filesystem::exists(dir / "p.yaml"));
}

// Issue 11 finding 13: an explicit zero or negative rate or range was silently ignored; an
// absurd one (1e-308 Hz) made frames of 1e308 s.
TEST(CliErrors, ImportSensorRefusesAZeroRateOrRange) {
  test::TempDir dir;
  const auto meta = dir.Write("m.json", "{}");
  for (const char* flag : {"--rotation-rate-hz 0", "--rotation-rate-hz -5",
                           "--rotation-rate-hz 1e-308", "--rotation-rate-hz 1e308",
                           "--max-range-m -1", "--max-range-m 0", "--max-range-m 1e-308"}) {
    const CliRun r = Cli("import-sensor " + Q(meta) + " " + flag + " --out " + Q(dir / "p.yaml"));
    EXPECT_EQ(r.code, 2) << flag << "\n" << r.output;
    EXPECT_NE(r.output.find("must be in"), std::string::npos) << flag << "\n" << r.output;
    EXPECT_FALSE(std::filesystem::exists(dir / "p.yaml"));
  }
}

TEST(CliErrors, UnknownConfigKey) {
  test::TempDir dir;
  const auto s =
      dir.Write("s.yaml", SensorWith("rotation_rate_hz: 10", "rotation_rate_hz: 10\n  spin: fast"));
  ExpectFailure(dir, "simulate --sensor " + Q(s) + " --scene " + Q(kLab),
                {"s.yaml", "unknown key 'scan.spin'"});
}

TEST(CliErrors, MissingConfigKey) {
  test::TempDir dir;
  const auto s = dir.Write("s.yaml", SensorWith("wavelength_nm: 850\n", ""));
  ExpectFailure(dir, "simulate --sensor " + Q(s) + " --scene " + Q(kLab),
                {"s.yaml", "missing required key 'wavelength_nm'"});
}

TEST(CliErrors, WrongUnits) {
  test::TempDir dir;
  const auto s = dir.Write("s.yaml", SensorWith("wavelength_nm: 850", "wavelength_nm: 0.85"));
  ExpectFailure(dir, "simulate --sensor " + Q(s) + " --scene " + Q(kLab),
                {"s.yaml", "'wavelength_nm'", "micrometres"});
}

TEST(CliErrors, NonPositiveRotationRate) {
  test::TempDir dir;
  const auto s = dir.Write("s.yaml", SensorWith("rotation_rate_hz: 10", "rotation_rate_hz: -1"));
  ExpectFailure(dir, "simulate --sensor " + Q(s) + " --scene " + Q(kLab),
                {"s.yaml", "'scan.rotation_rate_hz'", "must be positive"});
}

// The sensor-model tier's bad inputs (issue 9): each a clear error naming the file, the key
// and the problem, and nothing written.
TEST(CliErrors, BadKernelFilesAndThresholdDetectorValues) {
  test::TempDir dir;
  const std::string threshold =
      ReadAll(test::ConfigDir() / "sensors/ouster_os0_128_threshold.yaml");
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = threshold;
    const auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  const std::string table_beam =
      "beam:\n  footprint: table\n  kernel_file: k.csv\n  sub_rays: 16\n";
  const std::string gaussian_beam = threshold.substr(
      threshold.find("beam:"), threshold.find("detector:") - threshold.find("beam:"));
  struct Case {
    const char* kernel;  // k.csv contents, or nullptr
    std::string sensor;
    std::vector<std::string> fragments;
  };
  const Case cases[] = {
      {"x,-1,0\n0,nan,1\n1,1,1\n",
       with(gaussian_beam, table_beam),
       {"k.csv", "'beam.kernel_file'", "not finite"}},
      {"x,-1,0\n0,-2,1\n1,1,1\n",
       with(gaussian_beam, table_beam),
       {"k.csv", "'beam.kernel_file'", "negative"}},
      {"x,-1,0\n0,0,0\n1,0,0\n", with(gaussian_beam, table_beam), {"k.csv", "all values are zero"}},
      {"x,-1,0\n0,1,1\n1,1\n", with(gaussian_beam, table_beam), {"k.csv:3", "expected 3 columns"}},
      {nullptr,
       with("threshold_nw: 576", "threshold_nw: 0"),
       {"s.yaml", "'detector.threshold_nw'", "must be positive"}},
      {nullptr,
       with("pulse_width_ns: 5", "pulse_width_ns: -1"),
       {"s.yaml", "'detector.pulse_width_ns'", "must be positive"}},
      {nullptr,
       with("max_echoes: 2", "max_echoes: 9"),
       {"s.yaml", "'detector.max_echoes'", "1..8"}},
      {nullptr,
       with("max_echoes: 2", "max_echoes: 0"),
       {"s.yaml", "'detector.max_echoes'", "1..8"}},
  };
  for (const Case& c : cases) {
    if (c.kernel) dir.Write("k.csv", c.kernel);
    const auto s = dir.Write("s.yaml", c.sensor);
    ExpectFailure(dir, "simulate --sensor " + Q(s) + " --scene " + Q(kLab), c.fragments);
  }
  // A material whose response is out of range.
  const std::string lib = ReadAll(test::ConfigDir() / "materials/library.yaml");
  std::string bad = lib;
  bad.replace(bad.find("transmittance: 0.92"), 19, "transmittance: 1.5");
  dir.Write("library.yaml", bad);
  std::string scene = ReadAll(kLab);
  scene.replace(scene.find("materials: ../materials/library.yaml"), 36, "materials: library.yaml");
  const auto sc = dir.Write("scene.yaml", scene);
  ExpectFailure(dir, "simulate --sensor " + Q(kOs0) + " --scene " + Q(sc),
                {"library.yaml", ".transmittance' (line", "must be a fraction"});
}

TEST(CliErrors, LaserconfigArraysOfDifferentLengths) {
  test::TempDir dir;
  dir.Write("b.laserconfig",
            R"({"azimuthResolution": 1, "elevationOffsets": [1, 2], "azimuthOffsets": [0, 0],
                "firingSequence": [0]})");
  const auto s = dir.Write("s.yaml",
                           "name: t\nwavelength_nm: 905\nmax_range_m: 100\nscan:\n"
                           "  type: laserconfig\n  file: b.laserconfig\n  horizontal_samples: 16\n"
                           "  rotation_rate_hz: 10\ndetector: {type: ideal}\n");
  ExpectFailure(dir, "simulate --sensor " + Q(s) + " --scene " + Q(kLab),
                {"b.laserconfig", "arrays differ in length", "firingSequence 1"});
}

TEST(CliErrors, EmptyScene) {
  test::TempDir dir;
  const auto c = dir.Write("c.yaml", "materials: " + Library() + "\nobjects: []\n");
  ExpectFailure(dir, "simulate --sensor " + Q(kOs0) + " --scene " + Q(c),
                {"c.yaml", "the scene has no objects"});
}

TEST(CliErrors, MissingMeshFile) {
  test::TempDir dir;
  const auto c = dir.Write("c.yaml", "materials: " + Library() +
                                         "\nobjects:\n  - {name: car, type: mesh, file: car.ply, "
                                         "material: wood}\n");
  ExpectFailure(dir, "simulate --sensor " + Q(kOs0) + " --scene " + Q(c),
                {"c.yaml", "'objects[0].file'", "car.ply: cannot open: No such file"});
#if LT_WITH_OPEN3D
  // Issue 11 review: a symlink loop aborted (an uncaught filesystem_error) and a FIFO blocked
  // the mesh loader for ever.
  std::filesystem::create_symlink(dir / "car.ply", dir / "loop.ply");
  std::filesystem::rename(dir / "loop.ply", dir / "car.ply");
  ExpectFailure(dir, "simulate --sensor " + Q(kOs0) + " --scene " + Q(c),
                {"car.ply: cannot open: Too many levels of symbolic links"});
  std::filesystem::remove(dir / "car.ply");
  ASSERT_EQ(::mkfifo((dir / "car.ply").c_str(), 0600), 0);
  ExpectFailure(dir, "simulate --sensor " + Q(kOs0) + " --scene " + Q(c),
                {"car.ply: not a regular file"});
#endif
}

TEST(CliErrors, NanVerticesInAMesh) {
#if !LT_WITH_OPEN3D
  GTEST_SKIP() << "built without Open3D: no mesh files";
#endif
  test::TempDir dir;
  dir.Write("car.ply",
            "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
            "property float z\nelement face 1\nproperty list uchar int vertex_indices\n"
            "end_header\n0 0 0\n1 nan 0\n0 1 0\n3 0 1 2\n");
  const auto c = dir.Write("c.yaml", "materials: " + Library() +
                                         "\nobjects:\n  - {name: car, type: mesh, file: car.ply, "
                                         "material: wood}\n");
  ExpectFailure(dir, "simulate --sensor " + Q(kOs0) + " --scene " + Q(c),
                {"c.yaml", "object 'car'", "vertex 1 is not finite"});
}

TEST(CliErrors, BadCommandLine) {
  test::TempDir dir;
  ExpectFailure(dir, "simulate --sensor " + Q(kOs0) + " --scene " + Q(kLab) + " --colour red",
                {"unknown option --colour"});
  ExpectFailure(dir, "simulate --sensor " + Q(kOs0) + " --scene " + Q(kLab) + " --frames two",
                {"--frames", "'two'"});
  ExpectFailure(dir, "simulate --sensor " + Q(dir / "nope.yaml") + " --scene " + Q(kLab),
                {"nope.yaml", "cannot open"});
  ExpectFailure(dir, "simulate --sensor " + Q(kOs0) + " --scene " + Q(kLab) + " --backend quantum",
                {"--backend quantum", "unknown backend"});
}

// Without a GPU (or without the CUDA build) --backend cuda fails with a clear message and
// no file; with one it simulates.
TEST(CliErrors, CudaBackendWithoutAGpuIsAClearError) {
  test::TempDir dir;
  const auto out = dir / "g.h5";
  const CliRun r = Cli("simulate --sensor " + Q(kOs0) + " --scene " + Q(kLab) +
                       " --backend cuda --out " + Q(out));
  if (r.code == 0) {
    EXPECT_TRUE(std::filesystem::exists(out));
  } else {
    EXPECT_NE(r.output.find("--backend cuda"), std::string::npos) << r.output;
    // Said for a person (no GPU, no driver, an old driver), not as the CUDA runtime's text.
    EXPECT_EQ(r.output.find("CUDA driver version is insufficient"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

TEST(CliErrors, InfoOnACorruptFile) {
  test::TempDir dir;
  const CliRun r = Cli("info " + Q(dir.Write("x.h5", "\x89HDF\r\n\x1a\n garbage")));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("x.h5"), std::string::npos) << r.output;
}

// compare + report on two seeds of the lab scene: the seeds differ only in range noise (sigma
// 1 cm each), so the mean |range difference| is sqrt(2) * 1 cm * sqrt(2/pi) = 1.128 cm and
// the targets' N_points agree within a few points.
TEST(Cli, CompareAndReportTwoSeedsOfTheLabScene) {
  test::TempDir dir;
  for (int seed : {1, 2}) {
    const CliRun sim =
        Cli("simulate --sensor " + Q(kOs0) + " --scene " + Q(kLab) + " --seed " +
            std::to_string(seed) + " --out " + Q(dir / ("s" + std::to_string(seed) + ".h5")));
    ASSERT_EQ(sim.code, 0) << sim.output;
  }
  const CliRun cmp = Cli("compare --real " + Q(dir / "s1.h5") + " --sim " + Q(dir / "s2.h5") +
                         " --scene " + Q(kLab) + " --out " + Q(dir / "m.json"));
  ASSERT_EQ(cmp.code, 0) << cmp.output;
  EXPECT_NE(cmp.output.find("by beam"), std::string::npos) << cmp.output;
  const auto m = nlohmann::json::parse(ReadAll(dir / "m.json"));
  EXPECT_EQ(m["schema"], "lidartwin.metrics");
  EXPECT_NEAR(m["summary"]["depth_abs_mean_m"].get<double>(), 0.01128, 0.0005);
  EXPECT_LT(m["summary"]["n_points_mape"].get<double>(), 0.05);
  EXPECT_EQ(m["targets"].size(), 32u);  // every object of the scene but the ground
  const CliRun rep = Cli("report " + Q(dir / "m.json") + " --out " + Q(dir / "rep"));
  ASSERT_EQ(rep.code, 0) << rep.output;
  const std::string html = ReadAll(dir / "rep/report.html");
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(ReadAll(dir / "rep/report.md").find("| plate_r80_d40 |"), std::string::npos);
  // Against itself as the baseline: nothing got worse.
  const auto tolerances = test::SourceDir() / "tests/regression/tolerances.yaml";
  const CliRun gate = Cli("report " + Q(dir / "m.json") + " --baseline " + Q(dir / "m.json") +
                          " --tolerances " + Q(tolerances) + " --out " + Q(dir / "gate"));
  EXPECT_EQ(gate.code, 0) << gate.output;
  EXPECT_NE(gate.output.find("regression gate: passed"), std::string::npos) << gate.output;
}

// The CI gate must fail on planted regressions: a noisier range (depth errors grow) and a
// detector that needs 10 % more reflectance at its maximum range (far returns drop).
TEST(Cli, RegressionGateFailsOnPlantedRegressions) {
  test::TempDir dir;
  const std::string profile = ReadAll(kOs0);
  struct Plant {
    std::string from, to, metric;
  };
  for (const Plant& p : {Plant{"range_noise_sigma_m: 0.01 ", "range_noise_sigma_m: 0.02 ",
                               "REGRESSION depth_abs_mean_m"},
                         Plant{"reflectance_at_max_range: 0.8 ", "reflectance_at_max_range: 0.88 ",
                               "REGRESSION return_agreement"}}) {
    std::string planted = profile;
    const auto pos = planted.find(p.from);
    ASSERT_NE(pos, std::string::npos) << p.from;
    planted.replace(pos, p.from.size(), p.to);
    const auto sensor = dir.Write("planted.yaml", planted);
    const CliRun gate = RunShell("SENSOR=" + Q(sensor) + " bash " +
                                 Q(test::SourceDir() / "scripts/regression-gate.sh") + " " +
                                 std::string(LT_CLI) + " " + Q(dir / "gate"));
    const std::string& out = gate.output;
    EXPECT_EQ(gate.code, 3) << out;
    EXPECT_NE(out.find(p.metric), std::string::npos) << out;
    EXPECT_NE(out.find("regression gate: FAILED"), std::string::npos) << out;
    EXPECT_NE(ReadAll(dir / "gate/report/report.md").find("REGRESSION"), std::string::npos);
  }
}

#if LT_WITH_OPEN3D
// What reconstruct wrote through the writers of the scene and material schemas reads back from
// them to the same scene and library.
void ExpectWrittenSceneReadsBack(const std::filesystem::path& scene_file) {
  auto scene = LoadSceneDescription(scene_file);
  ASSERT_TRUE(scene.ok()) << scene.message();
  auto again = ParseSceneDescription(SaveScene(*scene), scene_file);
  ASSERT_TRUE(again.ok()) << again.message();
  test::ExpectSameSceneDescription(*scene, *again, scene_file.string());
  auto library = LoadMaterialLibrary(scene->materials);
  ASSERT_TRUE(library.ok()) << library.message();
  auto library_again = ParseMaterialLibrary(SaveMaterialLibrary(*library), scene->materials);
  ASSERT_TRUE(library_again.ok()) << library_again.message();
  test::ExpectSameLibrary(*library, *library_again, scene->materials);
}

// reconstruct on a simulated lab frame: the ground's reflectance comes back from the intensity
// (asphalt, R0 = 0.2687 at 850 nm), and the reconstructed scene, simulated again, lies where
// the original surfaces were (range error of paired beams a few centimetres).
TEST(Cli, ReconstructRecoversGeometryAndReflectance) {
  test::TempDir dir;
  ASSERT_EQ(Cli("simulate --sensor " + Q(kOs0) + " --scene " + Q(kLab) + " --seed 1 --out " +
                Q(dir / "lab.h5"))
                .code,
            0);
  const CliRun rec = Cli("reconstruct " + Q(dir / "lab.h5") + " --depth 9 --out " + Q(dir / "rec"));
  ASSERT_EQ(rec.code, 0) << rec.output;
  // range-image thins nothing: the points in range, never its surfels' vertices as "thinned".
  EXPECT_NE(rec.output.find(" in range -> "), std::string::npos) << rec.output;
  EXPECT_EQ(rec.output.find("after thinning"), std::string::npos) << rec.output;
  // The largest reflectance class is the ground.
  const std::string materials = ReadAll(dir / "rec/materials.yaml");
  double best_r = -1;
  size_t best_n = 0;
  for (size_t p = materials.find("reflectance: "); p != std::string::npos;
       p = materials.find("reflectance: ", p + 1)) {
    const double r = std::stod(materials.substr(p + 13));
    const size_t q = materials.find("estimated from ", p) + 15;
    const size_t n = std::stoul(materials.substr(q));
    if (n > best_n) best_n = n, best_r = r;
  }
  EXPECT_NEAR(best_r, 0.2687, 0.03) << materials;
  ExpectWrittenSceneReadsBack(dir / "rec/scene.yaml");
  ASSERT_EQ(Cli("simulate --sensor " + Q(kOs0) + " --scene " + Q(dir / "rec/scene.yaml") +
                " --seed 2 --out " + Q(dir / "again.h5"))
                .code,
            0);
  const CliRun cmp = Cli("compare --real " + Q(dir / "lab.h5") + " --sim " + Q(dir / "again.h5") +
                         " --min-range-m 1 --out " + Q(dir / "m.json"));
  ASSERT_EQ(cmp.code, 0) << cmp.output;
  const auto m = nlohmann::json::parse(ReadAll(dir / "m.json"));
  EXPECT_GT(m["summary"]["associated_fraction"].get<double>(), 0.9) << cmp.output;
  EXPECT_LT(m["summary"]["depth_abs_mean_m"].get<double>(), 0.05) << cmp.output;
}

// The whole loop on the real OS-1-128 capture: frame 2 simulated from frames 0 and 1. The
// bounds are today's measured fidelity (docs/validation.md, 2026-11-23) with a margin, so the
// loop keeps working and does not silently get worse: beams pair by channel and column, return
// agreement 0.88, median |range error| 2.7 cm, Chamfer 0.078 m, reflectivity error 4.9.
TEST(Cli, ReproduceOnTheRealOs1Capture) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  const auto os1 = test::RealDataDir() / "ouster-sdk";
  const CliRun r =
      Cli("reproduce --recording " + Q(os1 / "OS-1-128_v2.3.0_1024x10_lb_n3.pcap") +
          " --metadata " + Q(os1 / "OS-1-128_v2.3.0_1024x10.json") + " --poses " +
          Q(os1 / "OS-1-128_v2.3.0_1024x10_lb_n3_poses_kitti.txt") +
          " --pose-at end --simulate-frame 2 --detector recording --out " + Q(dir / "rep"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("pairs by beam"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("real frame 1"), std::string::npos) << r.output;  // the floor beside
  // The profile simulated: the capability detector bounded by the weakest return, at the most
  // likely range (no noise); the directions frames 0 and 1 returned nothing from dropped.
  EXPECT_NE(r.output.find("range noise off"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("blocked directions: "), std::string::npos) << r.output;
  auto simulated = LoadSensorProfile(dir / "rep/sensor.yaml");
  ASSERT_TRUE(simulated.ok()) << simulated.message();
  EXPECT_EQ(simulated->detector.kind, DetectorKind::kCapability);
  EXPECT_EQ(simulated->detector.range_noise_sigma_m, 0);
  EXPECT_GT(simulated->blocked_directions.Intervals(), 100u);
  const auto m = nlohmann::json::parse(ReadAll(dir / "rep/metrics.json"));
  EXPECT_EQ(m["real_points"].get<uint64_t>(), 107532u);
  const auto& s = m["summary"];
  EXPECT_GT(s["return_agreement"].get<double>(), 0.86);
  EXPECT_GT(s["drop_accuracy"].get<double>(), 0.88);
  EXPECT_LT(s["depth_abs_median_m"].get<double>(), 0.035);
  EXPECT_LT(s["chamfer_m"].get<double>(), 0.09);
  EXPECT_LT(s["intensity_abs_mean"].get<double>(), 5.5);
  const auto floor = nlohmann::json::parse(ReadAll(dir / "rep/floor_metrics.json"));
  EXPECT_NEAR(floor["summary"]["return_agreement"].get<double>(), 0.929, 0.005);
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "rep/report/report.html"));
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "rep/sensor.yaml"));
  // Every config it wrote came from the writer of its schema and reads back the same.
  ExpectWrittenSceneReadsBack(dir / "rep/scene/scene.yaml");
  auto trajectory = LoadTrajectory(dir / "rep/trajectory.yaml");
  ASSERT_TRUE(trajectory.ok()) << trajectory.message();
  EXPECT_EQ(trajectory->poses.size(), 2u);
  auto trajectory_again =
      ParseTrajectory(SaveTrajectory(*trajectory), dir / "rep/trajectory_again.yaml");
  ASSERT_TRUE(trajectory_again.ok()) << trajectory_again.message();
  test::ExpectSameTrajectory(*trajectory, *trajectory_again);
  // The simulated frame alone may not be reconstructed from.
  const CliRun bad = Cli("reproduce --recording " + Q(os1 / "OS-1-128_v2.3.0_1024x10_lb_n3.pcap") +
                         " --metadata " + Q(os1 / "OS-1-128_v2.3.0_1024x10.json") +
                         " --simulate-frame 2 --reconstruct-frames 1,2 --out " + Q(dir / "bad"));
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("must not be among"), std::string::npos) << bad.output;

  // A given profile (issue 40: calibration -> profile -> fidelity as one command): the run's own
  // sensor.yaml given back simulates the same frame, so the metrics are the same to the bit.
  const std::string common = "reproduce --recording " +
                             Q(os1 / "OS-1-128_v2.3.0_1024x10_lb_n3.pcap") + " --metadata " +
                             Q(os1 / "OS-1-128_v2.3.0_1024x10.json") + " --poses " +
                             Q(os1 / "OS-1-128_v2.3.0_1024x10_lb_n3_poses_kitti.txt") +
                             " --pose-at end --simulate-frame 2";
  std::filesystem::copy_file(dir / "rep/sensor.yaml", dir / "unit.yaml");
  const CliRun given =
      Cli(common + " --sensor " + Q(dir / "unit.yaml") + " --out " + Q(dir / "given"));
  ASSERT_EQ(given.code, 0) << given.output;
  EXPECT_NE(given.output.find("as given"), std::string::npos) << given.output;
  const auto again = nlohmann::json::parse(ReadAll(dir / "given/metrics.json"));
  EXPECT_EQ(again["summary"], m["summary"]);
  EXPECT_EQ(again["sim_points"], m["sim_points"]);
  // A profile with fewer channels than the recording numbers is refused before anything runs.
  const CliRun narrow =
      Cli(common + " --sensor " +
          Q(std::filesystem::path(LT_SOURCE_DIR) / "configs/sensors/velodyne_vlp16.yaml") +
          " --out " + Q(dir / "narrow"));
  EXPECT_EQ(narrow.code, 2) << narrow.output;
  EXPECT_NE(narrow.output.find("--sensor"), std::string::npos) << narrow.output;
  EXPECT_NE(narrow.output.find("16 channels, the recording numbers 128"), std::string::npos)
      << narrow.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "narrow/metrics.json"));
}

// Issue 41's re-simulation as another sensor, where the recording holds the truth: the
// OS-1-128's frame 1 (from frames 0 and 2) reconstructed from every fourth channel (a 32-beam
// sensor) and simulated as the full 128 (the sparse-to-dense question), and reconstructed from
// all 128 and simulated as the 64-beam subset of every other channel (`--as`), compared on its
// 64 lasers. Measured 2026-11-30 (docs/validation.md, "Another sensor"): the same-sensor run
// 0.946 / 2.54 cm, sparse to dense 0.929 / 3.35 cm, the 64-beam subset 0.945 / 2.54 cm; on
// 2026-12-02, with the frames placed on the surface along their beams, sparse to dense 0.930 /
// 2.72 cm. A sensor that is not a subset (the VLP-16, 1,808 columns against the recording's
// 1,024) has no truth: the simulation alone is written.
TEST(Cli, ReproduceTheOs1AsSubsetsOfItsLasers) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  const auto os1 = test::RealDataDir() / "ouster-sdk";
  const std::string common = "reproduce --recording " +
                             Q(os1 / "OS-1-128_v2.3.0_1024x10_lb_n3.pcap") + " --metadata " +
                             Q(os1 / "OS-1-128_v2.3.0_1024x10.json") + " --poses " +
                             Q(os1 / "OS-1-128_v2.3.0_1024x10_lb_n3_poses_kitti.txt") +
                             " --pose-at end --simulate-frame 1";
  auto summary = [&](const std::string& name) {
    return nlohmann::json::parse(ReadAll(dir / name / "metrics.json"))["summary"];
  };
  const CliRun same = Cli(common + " --out " + Q(dir / "same"));
  ASSERT_EQ(same.code, 0) << same.output;
  const auto s = summary("same");
  // The default, most likely frame (ADR 0029) through the beam's footprint and a threshold
  // from the frames' weakest returns (ADR 0035): measured 0.951 and 1.88 cm (the ideal
  // detector: 0.949).
  EXPECT_GT(s["return_agreement"].get<double>(), 0.945);
  EXPECT_LT(s["depth_abs_median_m"].get<double>(), 0.022);
  EXPECT_NE(same.output.find("detector: threshold at "), std::string::npos) << same.output;
  auto same_profile = LoadSensorProfile(dir / "same/sensor.yaml");
  ASSERT_TRUE(same_profile.ok()) << same_profile.message();
  EXPECT_EQ(same_profile->detector.kind, DetectorKind::kThreshold);
  EXPECT_EQ(same_profile->detector.max_echoes, 1u);
  EXPECT_EQ(same_profile->footprint.sub_rays, 8u);  // jobs/reproduce.h, kFootprintSubRays
  // The threshold is the 1st percentile of the frames' returns' powers under its link budget:
  // 54.1 nW from frames 0 and 2 (54.0 from frames 1 and 2, whose percentiles docs/validation.md
  // lists).
  EXPECT_NEAR(same_profile->detector.threshold_w * 1e9, 54, 5);
  // The ideal detector asked for by name is what it was.
  const CliRun ideal = Cli(common + " --detector ideal --out " + Q(dir / "ideal"));
  ASSERT_EQ(ideal.code, 0) << ideal.output;
  EXPECT_EQ(LoadSensorProfile(dir / "ideal/sensor.yaml")->detector.kind, DetectorKind::kIdeal);
  EXPECT_LT(summary("ideal")["return_agreement"].get<double>(),
            s["return_agreement"].get<double>());

  const CliRun sparse = Cli(common + " --reconstruct-channel-step 4 --out " + Q(dir / "sparse"));
  ASSERT_EQ(sparse.code, 0) << sparse.output;
  EXPECT_NE(sparse.output.find("channels 0, 4, 8, .. only"), std::string::npos) << sparse.output;
  const auto d = summary("sparse");
  EXPECT_GE(d["return_agreement"].get<double>(), 0.85);    // the issue's target
  EXPECT_LE(d["depth_abs_median_m"].get<double>(), 0.03);  // the issue's target (2.7 cm)
  EXPECT_NE(sparse.output.find("placed on the reconstructed surface"), std::string::npos)
      << sparse.output;
  const auto sparse_metrics = nlohmann::json::parse(ReadAll(dir / "sparse/metrics.json"));
  EXPECT_EQ(sparse_metrics["real_points"].get<uint64_t>(),
            nlohmann::json::parse(ReadAll(dir / "same/metrics.json"))["real_points"]
                .get<uint64_t>());  // compared on every channel

  auto profile = LoadSensorProfile(dir / "same/sensor.yaml");
  ASSERT_TRUE(profile.ok()) << profile.message();
  for (auto* table :
       {&profile->elevation_rad, &profile->azimuth_offset_rad, &profile->firing_offset_s}) {
    std::vector<double> every_other;
    for (size_t c = 0; c < table->size(); c += 2)
      every_other.push_back((*table)[c]);
    *table = every_other;
  }
  std::vector<std::vector<AzimuthInterval>> blocked_64;  // the kept lasers' blocked directions
  for (size_t c = 0; c < profile->blocked_directions.channel.size(); c += 2)
    blocked_64.push_back(profile->blocked_directions.channel[c]);
  profile->blocked_directions.channel = blocked_64;
  const auto os1_64 = dir.Write("os1_64.yaml", SaveSensorProfile(*profile, "every other channel"));
  const CliRun as64 = Cli(common + " --as " + Q(os1_64) + " --out " + Q(dir / "as"));
  ASSERT_EQ(as64.code, 0) << as64.output;
  EXPECT_NE(as64.output.find("is 64 of the recording's 128 lasers"), std::string::npos)
      << as64.output;
  const auto a = summary("as");
  // Within 10 % of the same-sensor reproduction (the issue's target).
  EXPECT_GE(a["return_agreement"].get<double>(), 0.9 * s["return_agreement"].get<double>());
  EXPECT_LE(a["depth_abs_median_m"].get<double>(), 1.1 * s["depth_abs_median_m"].get<double>());
  EXPECT_LE(a["depth_abs_p90_m"].get<double>(), 1.1 * s["depth_abs_p90_m"].get<double>());
  EXPECT_LE(a["intensity_abs_mean"].get<double>(), 1.1 * s["intensity_abs_mean"].get<double>());
  const auto as_metrics = nlohmann::json::parse(ReadAll(dir / "as/metrics.json"));
  EXPECT_LT(as_metrics["real_points"].get<uint64_t>(), 60000u);  // its 64 lasers' returns

  const std::string vlp16 =
      Q(std::filesystem::path(LT_SOURCE_DIR) / "configs/sensors/velodyne_vlp16.yaml");
  const CliRun other = Cli(common + " --as " + vlp16 + " --out " + Q(dir / "vlp16"));
  ASSERT_EQ(other.code, 0) << other.output;
  EXPECT_NE(other.output.find("not a subset of the recorded lasers"), std::string::npos)
      << other.output;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "vlp16/sim.h5"));
  EXPECT_FALSE(std::filesystem::exists(dir / "vlp16/metrics.json"));
  auto written = LoadSensorProfile(dir / "vlp16/sensor.yaml");
  ASSERT_TRUE(written.ok()) << written.message();
  EXPECT_EQ(written->elevation_rad.size(), 16u);
  // Into a folder holding an earlier run's metrics it refuses, naming it; with --sensor too.
  const CliRun over = Cli(common + " --as " + vlp16 + " --out " + Q(dir / "same"));
  EXPECT_EQ(over.code, 2) << over.output;
  EXPECT_NE(over.output.find("earlier run's metrics.json"), std::string::npos) << over.output;
  const CliRun both =
      Cli(common + " --as " + vlp16 + " --sensor " + vlp16 + " --out " + Q(dir / "both"));
  EXPECT_EQ(both.code, 2) << both.output;
  EXPECT_NE(both.output.find("--as"), std::string::npos) << both.output;
}

// `resimulate` (issue 41): the OS-1-128 drive as a VLP-16 would have seen it, frames 1 and 2 from
// the scene of frames 0 and 2, at the capture's poses: two frames in the VLP-16's 16 channels,
// nothing to compare them with. A stretch past the recording's end, or no --as, is refused.
TEST(Cli, ResimulateTheOs1DriveAsAnotherSensor) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  const auto os1 = test::RealDataDir() / "ouster-sdk";
  const std::string common =
      "resimulate " + Q(os1 / "OS-1-128_v2.3.0_1024x10_lb_n3.pcap") + " --metadata " +
      Q(os1 / "OS-1-128_v2.3.0_1024x10.json") + " --poses " +
      Q(os1 / "OS-1-128_v2.3.0_1024x10_lb_n3_poses_kitti.txt") +
      " --pose-at end --reconstruct-frames 0,2 --as " +
      Q(std::filesystem::path(LT_SOURCE_DIR) / "configs/sensors/velodyne_vlp16.yaml");
  const CliRun r = Cli(common + " --first-frame 1 --out " + Q(dir / "vlp"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("frames 1..2 simulated through it"), std::string::npos) << r.output;
  auto frames = ReadHdf5Frames(dir / "vlp/sim.h5");
  ASSERT_TRUE(frames.ok()) << frames.message();
  ASSERT_EQ(frames->size(), 2u);
  for (const Frame& f : *frames) {
    EXPECT_GT(f.size(), 10000u);  // a VLP-16 sees ~25,000 returns of the yard
    EXPECT_LT(*std::max_element(f.channel.begin(), f.channel.end()), 16);
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "vlp/metrics.json"));
  auto trajectory = LoadTrajectory(dir / "vlp/trajectory.yaml");
  ASSERT_TRUE(trajectory.ok()) << trajectory.message();
  EXPECT_EQ(trajectory->poses.size(), 3u);  // two frames' starts and the last one's end

  const CliRun past = Cli(common + " --first-frame 1 --frames 3 --out " + Q(dir / "past"));
  EXPECT_EQ(past.code, 2) << past.output;
  EXPECT_NE(past.output.find("--frames 3 from frame 1: the recording has 3 frames"),
            std::string::npos)
      << past.output;
  const CliRun no_as =
      Cli("resimulate " + Q(os1 / "OS-1-128_v2.3.0_1024x10_lb_n3.pcap") + " --metadata " +
          Q(os1 / "OS-1-128_v2.3.0_1024x10.json") + " --out " + Q(dir / "none"));
  EXPECT_EQ(no_as.code, 2) << no_as.output;
  EXPECT_NE(no_as.output.find("--as"), std::string::npos) << no_as.output;
}

// `reproduce` of a nebula bag (its folder's BAG, with the calibration file beside it), into
// dir/rep.
CliRun ReproduceNebulaBag(const test::TempDir& dir, const std::string& bag,
                          const std::string& calibration, const std::string& frames) {
  const auto path = test::RealDataDir() / "nebula" / bag;
  return Cli("reproduce --recording " + Q(path) + " --calibration " +
             Q(path.parent_path() / calibration) + " " + frames + " --out " + Q(dir / "rep"));
}

// A RoboSense Helios bag reproduced without its angle file: the sensor and the frames take the
// DIFOP's 32 lasers (the shared unit's; its fixture's 16-line file puts half the channels on the
// wrong lasers: frame 2's return agreement 0.836 so, 0.894 with the DIFOP's; 0.920 with the
// column phase seen from the lens and no ground disc under the still sensor, its floor 0.922).
TEST(Cli, ReproduceAHeliosBagWithTheAnglesOfItsDifop) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  const auto bag =
      test::RealDataDir() / "nebula" / "robosense-helios16p" / "rosbag2_2023_08_03-11_02_46_0.db3";
  const CliRun r =
      Cli("reproduce --recording " + Q(bag) +
          " --simulate-frame 2 --reconstruct-frames 0,1,3,4 --static --out " + Q(dir / "rep"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("(32 lasers) from the DIFOP packet"), std::string::npos) << r.output;
  const auto m = nlohmann::json::parse(ReadAll(dir / "rep/metrics.json"));
  EXPECT_GT(m["summary"]["return_agreement"].get<double>(), 0.91);
  auto profile = LoadSensorProfile(dir / "rep/sensor.yaml");
  ASSERT_TRUE(profile.ok()) << profile.message();
  EXPECT_EQ(profile->SpinningView().channels, 32u);
}

// A sparser sensor's scene (--reconstruct-channel-step) comes with the poses that sensor finds:
// ICP and the held-out frame's placement run on the kept lasers' returns, not on every laser's
// (which a 32-beam sensor never recorded: on the OS-1-128 the full sensor's poses took the
// 32-beam median to 2.7-2.9 cm, its own to 4.0-6.4 cm; docs/validation.md).
TEST(Cli, ReproduceFromEveryNthChannelFindsItsPosesOnThem) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  const auto bag =
      test::RealDataDir() / "nebula" / "robosense-helios16p" / "rosbag2_2023_08_03-11_02_46_0.db3";
  const std::string common =
      "reproduce --recording " + Q(bag) + " --simulate-frame 2 --reconstruct-frames 1,3";
  const CliRun all = Cli(common + " --out " + Q(dir / "all"));
  const CliRun half = Cli(common + " --reconstruct-channel-step 2 --out " + Q(dir / "half"));
  ASSERT_EQ(all.code, 0) << all.output;
  ASSERT_EQ(half.code, 0) << half.output;
  EXPECT_NE(half.output.find("as ICP and the held-out frame's placement see them too"),
            std::string::npos)
      << half.output;
  // The pairwise registration report of each: other points, other poses.
  const auto report = [](const std::string& out) {
    const size_t at = out.find("frame 1 -> 2: moved");
    return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
  };
  ASSERT_FALSE(report(all.output).empty()) << all.output;
  ASSERT_FALSE(report(half.output).empty()) << half.output;
  EXPECT_NE(report(all.output), report(half.output));
}

// A raw-intensity sensor's loop on a ROS 2 bag of Hesai packets (issue 40): the Pandar40P's
// frame 3 from its other full revolutions. Its intensity lies within 1.5 times the real-vs-real
// floor (docs/validation.md, "Intensity of raw-intensity sensors"), and the per-laser gains
// reproduce fitted are in the profile it wrote, for the simulator to apply.
TEST(Cli, ReproduceARawIntensityBagWithinItsIntensityFloor) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  const CliRun r =
      ReproduceNebulaBag(dir, "hesai-pandar40p/1673400149412331409_0.db3", "Pandar40P.csv",
                         "--simulate-frame 3 --reconstruct-frames 1,2,4");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("per-laser gains fitted on"), std::string::npos) << r.output;
  const double sim =
      nlohmann::json::parse(ReadAll(dir / "rep/metrics.json"))["summary"]["intensity_abs_mean"]
          .get<double>();
  const double floor = nlohmann::json::parse(
                           ReadAll(dir / "rep/floor_metrics.json"))["summary"]["intensity_abs_mean"]
                           .get<double>();
  EXPECT_LT(sim, 1.5 * floor) << sim << " against " << floor;
  auto profile = LoadSensorProfile(dir / "rep/sensor.yaml");
  ASSERT_TRUE(profile.ok()) << profile.message();
  EXPECT_EQ(profile->intensity_gains.gain.size(), 40u);
}

// A Hesai angle file does not say its model's horizontal resolution: reproduce measures the
// PandarXT16's 2000 columns a revolution from the capture (the import assumes 1800) and aligns
// the held-out frame's column phase, so the simulated beams land on the real ones (return
// agreement 0.70-0.74 with 1800 columns, 0.82 now; docs/validation.md, 2026-11-30).
// The XT16 bag's frame 2 from its frames 1 and 3, `pose_flags` added.
CliRun ReproduceXt16Frame2(const test::TempDir& dir, const std::string& pose_flags) {
  return ReproduceNebulaBag(dir, "hesai-xt16/1732848127890747768_0.db3", "PandarXT16.csv",
                            "--simulate-frame 2 --reconstruct-frames 1,3 " + pose_flags);
}

TEST(Cli, ReproduceMeasuresTheColumnsAHesaiAngleFileDoesNotHold) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  const CliRun r = ReproduceXt16Frame2(dir, "");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("columns: 2000 a revolution, measured"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("its start azimuth moved to match"), std::string::npos) << r.output;
  const auto m = nlohmann::json::parse(ReadAll(dir / "rep/metrics.json"));
  EXPECT_GT(m["summary"]["return_agreement"].get<double>(), 0.8);
  auto profile = LoadSensorProfile(dir / "rep/sensor.yaml");
  ASSERT_TRUE(profile.ok()) << profile.message();
  EXPECT_EQ(profile->columns, 2000u);
  // A desk capture: ICP's few millimetres are its noise, and the run says so; every frame was
  // seen from where the simulated one was, so returns are read through their own faces.
  EXPECT_NE(r.output.find("poses: ICP moved the sensor at most"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("read through its own face up to 89 deg"), std::string::npos) << r.output;
}

// The XT16 bag with static poses, as docs/validation.md runs it: its intensity within 1.5 times
// its real-vs-real floor (issue 40's target; 1.55 against 1.26 over its three folds, before
// apparent reflectance and own-face readings 4.33), and the reconstructed scene holding
// apparent materials for what read brighter than a white target.
TEST(Cli, ReproduceAStillRawIntensityBagWithinItsIntensityFloor) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  const CliRun r = ReproduceXt16Frame2(dir, "--static");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto metric = [&](const char* file) {
    return nlohmann::json::parse(ReadAll(dir / "rep" / file))["summary"]["intensity_abs_mean"]
        .get<double>();
  };
  EXPECT_LT(metric("metrics.json"), 1.5 * metric("floor_metrics.json"));
  EXPECT_NE(ReadAll(dir / "rep/scene/materials.yaml").find("apparent: true"), std::string::npos);
}
#endif

TEST(CliErrors, CompareAndReportRejectBadInput) {
  test::TempDir dir;
  const CliRun missing = Cli("compare --real a.h5 --out m.json");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.output.find("--real, --sim and --out are required"), std::string::npos);
  const CliRun bad_bins = Cli("compare --real a.h5 --sim b.h5 --out m.json --distance-bins 0,x");
  EXPECT_EQ(bad_bins.code, 2);
  EXPECT_NE(bad_bins.output.find("--distance-bins"), std::string::npos) << bad_bins.output;
  const CliRun no_file = Cli("compare --real " + Q(dir / "absent.h5") + " --sim " +
                             Q(dir / "absent.h5") + " --out " + Q(dir / "m.json"));
  EXPECT_EQ(no_file.code, 1);
  EXPECT_NE(no_file.output.find("absent.h5"), std::string::npos) << no_file.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "m.json"));
  const auto bad = dir.Write("bad.json", R"({"schema": "lidartwin.metrics", "schema_version": 1})");
  const CliRun rep = Cli("report " + Q(bad) + " --out " + Q(dir / "r"));
  EXPECT_EQ(rep.code, 1);
  EXPECT_NE(rep.output.find("bad.json: label: missing"), std::string::npos) << rep.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "r/report.html"));
  const CliRun half = Cli("report " + Q(bad) + " --out " + Q(dir / "r") + " --baseline " + Q(bad));
  EXPECT_EQ(half.code, 2);
  EXPECT_NE(half.output.find("--baseline and --tolerances go together"), std::string::npos);
}

}  // namespace
}  // namespace lt

#if LT_WITH_CERES
namespace lt {
namespace {

const std::filesystem::path kOs0Threshold =
    test::ConfigDir() / "sensors/ouster_os0_128_threshold.yaml";

// A true unit for labgen: the data-sheet profile with every calibrated quantity changed.
std::filesystem::path WriteTrueUnit(const test::TempDir& tmp) {
  std::string s = ReadAll(kOs0Threshold);
  auto swap = [&](const std::string& a, const std::string& b) {
    const size_t at = s.find(a);
    ASSERT_NE(at, std::string::npos) << a;
    s.replace(at, a.size(), b);
  };
  swap("peak_power_w: 20", "peak_power_w: 16");
  swap("threshold_nw: 576",
       "threshold_nw: 700\n  signal_noise_nw: 90\n  pulse_energy_jitter: 0.02\n"
       "  overlap_range_m: 0.8\n  overlap_sharpness: 2.5");
  swap("divergence_h_fwhm_mrad: 3.14", "divergence_h_fwhm_mrad: 3.8");
  return tmp.Write("truth.yaml", s);
}

TEST(CliCalibrate, LabgenThenCalibrateWritesAProfileThatSimulatesAndAReport) {
  test::TempDir tmp;
  const auto truth = WriteTrueUnit(tmp);
  const CliRun gen = Cli("labgen --profile " + Q(truth) + " --out " + Q(tmp / "lab") + " --seed 3");
  ASSERT_EQ(gen.code, 0) << gen.output;
  const CliRun cal = Cli("calibrate " + Q(tmp / "lab") + " --base " + Q(kOs0Threshold) + " --out " +
                         Q(tmp / "new.yaml") + " --report " + Q(tmp / "report"));
  ASSERT_EQ(cal.code, 0) << cal.output;
  EXPECT_NE(cal.output.find("detector.threshold_nw"), std::string::npos) << cal.output;
  const std::string profile = ReadAll(tmp / "new.yaml");
  EXPECT_NE(profile.find("lab_sha256: "), std::string::npos);
  EXPECT_NE(profile.find("signal_noise_nw: "), std::string::npos);
  const std::string html = ReadAll(tmp / "report/report.html");
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(ReadAll(tmp / "report/report.md").find("| detector.peak_power_w |"), std::string::npos);
  // simulate uses the calibrated profile unchanged.
  const CliRun sim = Cli("simulate --sensor " + Q(tmp / "new.yaml") + " --scene " + Q(kLab) +
                         " --frames 1 --out " + Q(tmp / "sim.h5"));
  EXPECT_EQ(sim.code, 0) << sim.output;
}

// The docs' example: labgen and calibrate run on the shipped unit, from its data sheet.
TEST(CliCalibrate, LabgenAndCalibrateRunOnTheShippedLabExample) {
  test::TempDir tmp;
  const auto unit = test::ConfigDir() / "sensors/ouster_os0_128_threshold_lab_example.yaml";
  const CliRun gen =
      Cli("labgen --profile " + Q(unit) + " --out " + Q(tmp / "lab") + " --seed 5 --backend cpu");
  ASSERT_EQ(gen.code, 0) << gen.output;
  const CliRun cal = Cli("calibrate " + Q(tmp / "lab") + " --base " + Q(kOs0Threshold) + " --out " +
                         Q(tmp / "unit.yaml") + " --report " + Q(tmp / "report"));
  ASSERT_EQ(cal.code, 0) << cal.output;
  EXPECT_NE(cal.output.find("detector.signal_noise_nw"), std::string::npos) << cal.output;
}

// A profile the lab cannot measure exits 1 before anything is written, naming the keys to add
// (the VLP-16 wrote an empty lab; the threshold data sheet was refused one key at a time).
TEST(CliCalibrate, LabgenRefusesAProfileItCannotMeasureWithNothingWritten) {
  test::TempDir tmp;
  const CliRun vlp =
      Cli("labgen --profile " + Q(test::ConfigDir() / "sensors/velodyne_vlp16.yaml") + " --out " +
          Q(tmp / "lab") + " --backend cpu");
  EXPECT_EQ(vlp.code, 1) << vlp.output;
  EXPECT_NE(vlp.output.find("key 'detector.type': is ideal"), std::string::npos) << vlp.output;
  EXPECT_FALSE(std::filesystem::exists(tmp / "lab"));
  const CliRun sheet =
      Cli("labgen --profile " + Q(kOs0Threshold) + " --out " + Q(tmp / "lab") + " --backend cpu");
  EXPECT_EQ(sheet.code, 1) << sheet.output;
  EXPECT_NE(sheet.output.find("detector.signal_noise_nw"), std::string::npos) << sheet.output;
  // Its full overlap is declared in the lab (fit: {overlap: none}), no longer refused.
  EXPECT_EQ(sheet.output.find("detector.overlap_range_m"), std::string::npos) << sheet.output;
  EXPECT_FALSE(std::filesystem::exists(tmp / "lab"));
}

// Issue 36: labgen's bad option values exited 1 where every other command's exit 2.
TEST(CliCalibrate, LabgenOptionValuesOutOfRangeAreUsageErrors) {
  test::TempDir tmp;
  const auto truth = WriteTrueUnit(tmp);
  for (const char* bad : {" --seed nan", " --seed -1", " --seed 1.5", " --backend gpu"}) {
    const CliRun r = Cli("labgen --profile " + Q(truth) + " --out " + Q(tmp / "lab") + bad);
    EXPECT_EQ(r.code, 2) << bad << "\n" << r.output;
    EXPECT_FALSE(std::filesystem::exists(tmp / "lab")) << bad;
  }
}

// Each bad lab folder: exit 1, the message names the file (and line or key), nothing written.
TEST(CliCalibrate, BadLabFoldersAreRefusedWithNothingWritten) {
  test::TempDir tmp;
  const auto truth = WriteTrueUnit(tmp);
  ASSERT_EQ(Cli("labgen --profile " + Q(truth) + " --out " + Q(tmp / "good") + " --seed 1").code,
            0);
  struct Case {
    const char* name;
    std::function<void(const std::filesystem::path&)> spoil;
    const char* expected;
  };
  auto edit = [](const std::filesystem::path& f, const std::string& a, const std::string& b) {
    std::string s = ReadAll(f);
    const size_t at = s.find(a);
    ASSERT_NE(at, std::string::npos) << a;
    s.replace(at, a.size(), b);
    std::ofstream(f, std::ios::binary | std::ios::trunc) << s;
  };
  const std::vector<Case> cases = {
      {"missing file",
       [](const auto& d) { std::filesystem::remove(d / "detection_threshold.csv"); },
       "detection_threshold.csv: cannot open"},
      {"unknown kind",
       [&](const auto& d) {
         edit(d / "manifest.yaml", "kind: range_intensity", "kind: range_intensty");
       },
       "unknown measurement kind 'range_intensty'"},
      {"unknown key",
       [&](const auto& d) { edit(d / "manifest.yaml", "sensor_serial:", "sensor_serail:"); },
       "sensor_serail"},
      {"units contradict the manifest",
       [&](const auto& d) {
         edit(d / "manifest.yaml", "file: range_intensity.csv",
              "file: range_intensity.csv\n    units: {range: mm}");
       },
       "range_intensity.csv:1: column 'range_m' is in m but the manifest's units.range says mm"},
      {"NaN value", [&](const auto& d) { edit(d / "range_intensity.csv", "\n0.", "\nnan,"); },
       "range_intensity.csv:2:"},
      {"too few points",
       [&](const auto& d) {
         std::ofstream(d / "range_intensity.csv", std::ios::trunc)
             << "range_m,signal_nw\n1,100\n2,25\n";
       },
       "usable points"},
      {"all-zero image",
       [&](const auto& d) {
         Hdf5Array h{{5}, {-2, -1, 0, 1, 2}}, counts{{4, 5, 5}, std::vector<double>(100, 0.0)};
         std::filesystem::remove(d / "beam_kernel.h5");
         ASSERT_TRUE(WriteHdf5Arrays(d / "beam_kernel.h5",
                                     {{"h_angle", h}, {"v_angle", h}, {"counts", counts}})
                         .ok());
       },
       "beam_kernel.h5: image 0 (exposure 1.000000 us) is dark"},
      {"not a lab folder", [](const auto& d) { std::filesystem::remove_all(d); },
       "not a lab folder"},
      {"a measurement linked to a device",
       [](const auto& d) {
         std::filesystem::remove(d / "range_intensity.csv");
         std::filesystem::create_symlink("/dev/zero", d / "range_intensity.csv");
       },
       "leads outside the lab folder"},
      {"one file named twice",
       [&](const auto& d) {
         edit(d / "manifest.yaml", "file: collector_vertical.csv",
              "file: ./collector_horizontal.csv");
       },
       "'./collector_horizontal.csv' is named twice"},
      {"a unit for a quantity the measurement does not have",
       [&](const auto& d) {
         edit(d / "manifest.yaml", "file: range_intensity.csv",
              "file: range_intensity.csv\n    units: {rnage: mm}");
       },
       "units.rnage' (line"},
      {"negative intensity",
       [&](const auto& d) {
         std::ofstream(d / "reflectance_lambertian_50.csv", std::ios::trunc)
             << "incidence_deg,intensity_percent\n0,50\n10,-49\n20,47\n";
       },
       "reflectance_lambertian_50.csv:3: intensity must be in [0, 1e6] percent"},
      {"a threshold sweep that is a bare step",
       [&](const auto& d) {
         std::ofstream(d / "detection_threshold.csv", std::ios::trunc)
             << "range_m,attenuation_db,trials,detections\n5,9,400,0\n5,8,400,0\n5,7,400,400\n"
                "5,6,400,400\n";
       },
       "no signal level inside the transition"},
      {"no wavelength",
       [&](const auto& d) { edit(d / "manifest.yaml", "wavelength_nm:", "wavelength_um:"); },
       "wavelength_nm"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto lab = tmp / "bad";
    std::filesystem::remove_all(lab);
    std::filesystem::copy(tmp / "good", lab, std::filesystem::copy_options::recursive);
    c.spoil(lab);
    const auto out = tmp / "new.yaml";
    const CliRun r = Cli("calibrate " + Q(lab) + " --base " + Q(kOs0Threshold) + " --out " +
                         Q(out) + " --report " + Q(tmp / "report"));
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(out));
    EXPECT_FALSE(std::filesystem::exists(tmp / "report"));
  }
}

// Outputs that would overwrite something else are refused before any work.
TEST(CliCalibrate, OutputsThatWouldReplaceSomethingElseAreRefused) {
  test::TempDir tmp;
  const auto truth = WriteTrueUnit(tmp);
  ASSERT_EQ(Cli("labgen --profile " + Q(truth) + " --out " + Q(tmp / "lab") + " --seed 1").code, 0);
  const std::string base_copy = tmp.Write("base.yaml", ReadAll(kOs0Threshold)).string();
  std::filesystem::create_directory(tmp / "a_dir");
  tmp.Write("a_file", "x");
  const std::string manifest_before = ReadAll(tmp / "lab/manifest.yaml");
  struct Case {
    std::string out, report, expected;
  };
  const std::vector<Case> cases = {
      {base_copy, (tmp / "r").string(), "is the base profile"},
      {(tmp / "a_dir").string(), (tmp / "r").string(), "is not a regular file"},
      {"/dev/null", (tmp / "r").string(), "is not a regular file"},
      {(tmp / "lab/manifest.yaml").string(), (tmp / "r").string(), "inside the lab folder"},
      {(tmp / "new.yaml").string(), (tmp / "lab/report").string(), "inside the lab folder"},
      {(tmp / "new.yaml").string(), (tmp / "a_file").string(), "is not a folder"},
      {(tmp / "missing/new.yaml").string(), (tmp / "r").string(), "does not exist"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.out + " / " + c.report);
    const CliRun r = Cli("calibrate " + Q(tmp / "lab") + " --base " + Q(base_copy) + " --out " +
                         Q(c.out) + " --report " + Q(c.report));
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(tmp / "r"));
  }
  EXPECT_EQ(ReadAll(base_copy), ReadAll(kOs0Threshold));
  EXPECT_EQ(ReadAll(tmp / "lab/manifest.yaml"), manifest_before);
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
  // The same seed gives the same lab, byte for byte (no timestamps in the HDF5 file).
  ASSERT_EQ(Cli("labgen --profile " + Q(truth) + " --out " + Q(tmp / "lab2/") + " --seed 1").code,
            0);
  EXPECT_EQ(ReadAll(tmp / "lab/beam_kernel.h5"), ReadAll(tmp / "lab2/beam_kernel.h5"));
}

}  // namespace
}  // namespace lt
#endif
