// Validate() of the job and option structs that the commands fill from their flags and that
// code builds (simulate, demo, reproduce, import-sensor; reconstruct's are in tests/reconstruct/):
// a valid struct passes, each rule fails with its key and problem, and the entry point that
// takes the struct refuses an invalid one before it reads or writes anything.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "lidartwin/datasets/sensor_import.h"
#include "lidartwin/datasets/simulation_run.h"
#include "lidartwin/sim/simulator.h"
#include "test_support.h"
#include "validate_rules.h"

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
        "unknown backend 'quantum' (expected cpu or cuda)"},
       {"out", [](auto& j) { j.out = "x.txt"; },
        "x.txt: unknown extension '.txt' (expected .h5, .hdf5, .ply, .pcd, .las, or a ROS 2 bag: "
        ".mcap, "
        ".db3)"}});
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

}  // namespace
}  // namespace lt
