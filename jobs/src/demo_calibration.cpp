#include "demo_chapters.h"

#include <fmt/core.h>

#include "lidartwin/base/atomic_file.h"
#include "lidartwin/calib/calibration.h"
#include "lidartwin/calib/calibration_report.h"
#include "lidartwin/calib/lab_folder.h"
#include "lidartwin/calib/virtual_lab.h"
#include "lidartwin/compare/metrics.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::jobs {

namespace {

Expected<compare::ComparisonMetrics> AgainstRecording(
    const DemoOptions& o, const std::filesystem::path& sensor, const SimulationResult& recording,
    const std::filesystem::path& scene, const std::filesystem::path& out, uint64_t seed) {
  SimulationJob job;
  job.sensor = sensor;
  job.scene = scene;
  job.out = out;
  job.seed = seed;
  auto sim = Simulate(o, job);
  if (!sim.ok()) return sim.error();
  compare::CompareOptions options;
  options.targets = compare::TargetsFromScene(recording.scene, 0.05);
  return compare::Compare(recording.frames, sim->frames, options);
}

}  // namespace

Status CalibrationChapter(const DemoOptions& o) {
  const std::filesystem::path& root = o.root;
  const std::filesystem::path& out_dir = o.out_dir;
  const uint64_t seed = o.seed;
  auto fail = [](const std::string& m) { return Status(Error{m}); };
  const std::filesystem::path dir = out_dir / "calibration";
  const std::filesystem::path data_sheet = root / "configs/sensors/ouster_os0_128_threshold.yaml";
  const std::filesystem::path scene = root / "configs/scenes/lab_plates.yaml";
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);  // the demo's own output of an earlier run
  std::filesystem::create_directories(dir, ec);
  if (ec) return fail(dir.string() + ": cannot create (" + ec.message() + ")");
  auto sheet = LoadSensorProfile(data_sheet);
  if (!sheet.ok()) return fail(sheet.message());
  const SensorProfile unit = calib::ExampleUnitAsBuilt(*sheet);
  const auto unit_file = dir / "unit_as_built.yaml";
  if (auto s = WriteTextFileAtomically(
          unit_file, SaveSensorProfile(unit, "The demo's unit as built (the truth labgen uses)"));
      !s.ok())
    return fail(s.message());
  // 1. The unit's lab measurements, simulated; 2. calibrated from the data sheet.
  auto lab = calib::SimulateLab(unit, {seed + 1, Backend::kCpu, 25, "SN0042"});
  if (!lab.ok()) return fail(lab.message());
  if (auto s = calib::WriteLabFolder(*lab, dir / "lab"); !s.ok()) return fail(s.message());
  auto read = calib::ReadLabFolder(dir / "lab");
  if (!read.ok()) return fail(read.message());
  auto cal = calib::Calibrate(*read, *sheet, (dir / "lab").string(), "demo");
  if (!cal.ok()) return fail(cal.message());
  const auto calibrated_file = dir / "calibrated.yaml";
  if (auto s = WriteTextFileAtomically(calibrated_file,
                                       SaveSensorProfile(cal->profile, "Calibrated by the demo"));
      !s.ok())
    return fail(s.message());
  if (auto s = calib::WriteCalibrationReport(*cal, *read, data_sheet.string(),
                                             calibrated_file.string(), dir / "report");
      !s.ok())
    return fail(s.message());
  Say(o.log,
      "\ncalibration: a virtual lab of unit SN0042 ({} files, SHA-256 {}...), calibrated "
      "from the data sheet:\n",
      lab->beam_kernels.size() + lab->collector_slices.size() + lab->threshold_sweeps.size() +
          lab->reflectance_curves.size() + lab->range_intensity_curves.size(),
      read->checksum.substr(0, 12));
  for (const auto& u : cal->updates) {
    if (u.key.find("offset") != std::string::npos || u.key.find("power") == u.key.size() - 5)
      continue;
    Say(o.log, "  {:<38} {:>10.4g} -> {:>10.4g} +- {:.2g}\n", u.key, u.before, u.after, u.stddev);
  }
  // 3. The unit's recording of the lab scene, against both models.
  SimulationJob rec;
  rec.sensor = unit_file;
  rec.scene = scene;
  rec.out = dir / "unit_recording.h5";
  rec.seed = seed + 2;
  auto recording = Simulate(o, rec);
  if (!recording.ok()) return fail(recording.message());
  auto before = AgainstRecording(o, data_sheet, *recording, scene, dir / "data_sheet_sim.h5", seed);
  if (!before.ok()) return fail(before.message());
  auto after =
      AgainstRecording(o, calibrated_file, *recording, scene, dir / "calibrated_sim.h5", seed);
  if (!after.ok()) return fail(after.message());
  const auto b = compare::Summarize({*before});
  const auto a = compare::Summarize({*after});
  Say(o.log, "  against the unit's recording of {}:\n", scene.filename().string());
  Say(o.log, "  {:<24} {:>12} {:>12}\n", "", "data sheet", "calibrated");
  bool closer = true;
  for (const char* k : {"n_points_mape", "i_mean_mape", "d_error_difference_m"}) {
    const double vb = b.count(k) ? b.at(k) : NAN, va = a.count(k) ? a.at(k) : NAN;
    Say(o.log, "  {:<24} {:>12.4g} {:>12.4g}\n", k, vb, va);
    closer = closer && va < vb;
  }
  Say(o.log, "  the calibrated model is {} on all three; report: {}/report.html\n",
      closer ? "closer" : "NOT closer", (dir / "report").string());
  if (!closer) return Error{"the calibrated model is not the closer one on all three"};
  return {};
}

}  // namespace lt::jobs
