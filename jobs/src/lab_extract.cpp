// `lidartwin lab extract` (lab_extract.h).
#include "lidartwin/jobs/lab_extract.h"

#include <fmt/core.h>

#include "lidartwin/calib/lab_extraction.h"
#include "lidartwin/datasets/intensity_unit.h"
#include "lidartwin/datasets/recording.h"
#include "lidartwin/datasets/sensor_import.h"

namespace lt::jobs {
namespace {

// The sensor's beam table, for the detection rows: an .h5's own profile (a simulation's), else
// the one imported from the metadata or calibration (an .osf holds its own); none otherwise.
Expected<std::optional<SensorProfile>> BeamTable(const LabExtractOptions& o, const Recording& rec) {
  if (rec.has_source && !rec.source.sensor_profile_yaml.empty()) {
    auto p = ParseSensorProfile(rec.source.sensor_profile_yaml, o.recording);
    if (!p.ok()) return p.error();
    return std::optional<SensorProfile>(std::move(*p));
  }
  const bool osf = o.recording.extension() == ".osf";
  if (o.sidecar.empty() && !osf) return std::optional<SensorProfile>();
  auto yaml = ImportSensorProfile(o.sidecar.empty() ? o.recording : o.sidecar, {});
  if (!yaml.ok()) return yaml.error();
  auto p = ParseSensorProfile(*yaml, o.sidecar.empty() ? o.recording : o.sidecar);
  if (!p.ok()) return p.error();
  return std::optional<SensorProfile>(std::move(*p));
}

}  // namespace

Status LabExtractOptions::Validate() const {
  if (recording.empty()) return OptionError("recording", "recording: no recording given");
  if (targets.empty()) return OptionError("targets", "targets: no targets file given");
  if (out.empty()) return OptionError("out", "out: no lab folder given");
  return {};
}

Status LabExtract(const LabExtractOptions& o) {
  if (Status s = o.Validate(); !s.ok()) return s;
  auto targets = calib::ReadLabTargets(o.targets);
  if (!targets.ok()) return targets.error();
  RecordingOptions ro;
  ro.topic = o.topic;
  auto rec = ReadRecording(o.recording, o.sidecar, ro);
  if (!rec.ok()) return rec.error();
  for (const std::string& note : rec->notes)
    o.log.Note(o.recording.string() + ": " + note);
  auto beams = BeamTable(o, *rec);
  if (!beams.ok()) return beams.error();
  const bool calibrated = rec->intensity_unit == kIntensityPercent ||
                          rec->intensity_unit == kIntensityOusterReflectivity;
  auto lab =
      calib::ExtractLab(rec->frames, *targets, beams->has_value() ? &**beams : nullptr, calibrated);
  if (!lab.ok()) return Error{o.recording.string() + ": " + lab.message()};
  o.log.Info(fmt::format("{}: {} frame(s), intensity in {} ({})\n", o.recording.string(),
                         rec->frames.size(), rec->intensity_unit,
                         calibrated ? "calibrated: reflectance tables"
                                    : "raw: range-intensity tables in counts, conversion fitted"));
  for (const auto& obs : lab->observations)
    o.log.Info(fmt::format(
        "  {} frame {}: {:.3f} m, {:.1f} deg, {} returns, intensity {:.4g} +- {:.3g}{}\n",
        obs.target, obs.frame, obs.range_m, obs.incidence_deg, obs.returns, obs.mean_intensity,
        obs.intensity_sd,
        obs.beams ? fmt::format(", {} of {} beams detected", obs.detected, obs.beams) : ""));
  if (Status s = calib::WriteLabFolder(lab->lab, o.out); !s.ok()) return s;
  o.log.Info(fmt::format(
      "wrote lab folder {}: {} range-intensity, {} reflectance, {} detection table(s)\n",
      o.out.string(), lab->lab.range_intensity_curves.size(), lab->lab.reflectance_curves.size(),
      lab->lab.threshold_sweeps.size()));
  return {};
}

}  // namespace lt::jobs
