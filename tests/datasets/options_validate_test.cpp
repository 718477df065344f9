// Validate() of the job and option structs that the commands fill from their flags and that
// code builds (simulate, demo, reproduce, import-sensor, reconstruct): a valid struct passes,
// each rule fails with its key and problem, and the entry point that takes the struct refuses
// an invalid one before it reads or writes anything.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "lidartwin/datasets/sensor_import.h"
#include "lidartwin/datasets/simulation_run.h"
#include "lidartwin/sim/simulator.h"
#include "test_support.h"
#include "validate_rules.h"
#if LT_WITH_OPEN3D
#include "lidartwin/datasets/reconstruction.h"
#endif

namespace lt {
namespace {

using test::ExpectRules;
using test::Rule;

TEST(OptionsValidate, SimulationOptions) {
  ExpectRules<SimulationOptions>(
      {}, "simulation options",
      {{"motion_slices", [](auto& o) { o.motion_slices = 0; },
        "must be in 1..100000 (moving objects placed per frame), got 0"}});
}

SimulationJob ValidJob() {
  SimulationJob job;
  job.sensor = test::ConfigDir() / "sensors/ouster_os0_128.yaml";
  job.scene = test::ConfigDir() / "scenes/lab_plates.yaml";
  job.out = "out.h5";
  return job;
}

TEST(OptionsValidate, SimulationJob) {
  ExpectRules<SimulationJob>(
      ValidJob(), "simulation job",
      {{"sensor", [](auto& j) { j.sensor.clear(); }, "must name a sensor profile"},
       {"scene", [](auto& j) { j.scene.clear(); }, "must name a scene"},
       {"frames", [](auto& j) { j.frames = 0; }, "must be in 1..1000000, got 0"},
       {"frames", [](auto& j) { j.frames = 2000000; }, "must be in 1..1000000, got 2000000"},
       {"motion_slices", [](auto& j) { j.motion_slices = 200000; }, "must be in 1..100000"},
       {"backend", [](auto& j) { j.backend = "quantum"; },
        "--backend quantum: unknown backend (expected cpu or cuda)"},
       {"out", [](auto& j) { j.out = "x.txt"; },
        "x.txt: unknown extension '.txt' (expected .h5, .hdf5, .ply, .pcd or .las)"}});
}

TEST(OptionsValidate, RunSimulationRefusesAnInvalidJobBeforeWriting) {
  test::TempDir dir;
  SimulationJob job = ValidJob();
  job.out = dir / "out.h5";
  job.frames = 0;
  auto r = RunSimulation(job);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("simulation job: key 'frames'"), std::string::npos) << r.message();
  EXPECT_FALSE(std::filesystem::exists(job.out));
}

TEST(OptionsValidate, SensorImportOptions) {
  ExpectRules<SensorImportOptions>({}, "import-sensor options",
                                   {{"detector", [](auto& o) { o.detector = "threshold"; },
                                     "'threshold': expected ideal or capability"},
                                    {"rotation_rate_hz", [](auto& o) { o.rotation_rate_hz = -10; },
                                     "must be positive (or 0: from the metadata), got -10"},
                                    {"max_range_m", [](auto& o) { o.max_range_m = NAN; },
                                     "must be positive (or 0: the data-sheet range)"}});
  SensorImportOptions bad;
  bad.detector = "waveform";
  auto r = ImportSensorProfile("any.json", bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("key 'detector'"), std::string::npos) << r.message();
}

#if LT_WITH_OPEN3D
TEST(OptionsValidate, ReconstructOptions) {
  ExpectRules<ReconstructOptions>(
      {}, "reconstruct options",
      {{"method", [](auto& o) { o.method = "marching-cubes"; },
        "'marching-cubes' (expected range-image, surfels, poisson, ball-pivoting or tsdf)"},
       {"poisson_depth", [](auto& o) { o.poisson_depth = 3; }, "must be in 4..14, got 3"},
       {"density_quantile", [](auto& o) { o.density_quantile = 1; }, "must be in [0, 1), got 1"},
       {"voxel_m", [](auto& o) { o.voxel_m = 0; }, "must be positive, got 0"},
       {"max_gap_m", [](auto& o) { o.max_gap_m = -1; }, "must be >= 0 (0: no cut), got -1"},
       {"min_range_m", [](auto& o) { o.min_range_m = -1; }, "must be >= 0, got -1"},
       {"max_range_m", [](auto& o) { o.max_range_m = 0.5; }, "must exceed min_range_m, got 0.5"},
       {"max_incidence_deg", [](auto& o) { o.max_incidence_deg = 90; },
        "must be in (0, 90), got 90"},
       {"reflectance_bins", [](auto& o) { o.reflectance_bins = 0; }, "must be in 1..100, got 0"}});
  test::TempDir dir;
  ReconstructOptions bad;
  bad.voxel_m = 0;
  PosedFrames input;
  input.frames.resize(1);
  input.start_poses.resize(1);
  input.end_poses.resize(1);
  auto r = Reconstruct(input, bad, dir / "rec");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("key 'voxel_m'"), std::string::npos) << r.message();
  EXPECT_FALSE(std::filesystem::exists(dir / "rec"));
}
#endif

}  // namespace
}  // namespace lt
