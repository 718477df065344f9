// `lidartwin lab extract` (lab_extract.h).
#include "lidartwin/jobs/lab_extract.h"

#include <fmt/core.h>

#include "lidartwin/calib/lab_extraction.h"
#include "lidartwin/datasets/intensity_unit.h"
#include "lidartwin/datasets/recording.h"
#include "lidartwin/datasets/scan_measures.h"
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
  // A lab folder is written new: refused before the recording is read, not after.
  std::error_code ec;
  if (std::filesystem::exists(o.out, ec))
    return Error{o.out.string() + ": already exists (a lab folder is written new)"};
  RecordingOptions ro;
  ro.topic = o.topic;
  auto source = OpenRecording(o.recording, o.sidecar, ro);
  if (!source.ok()) return source.error();
  const Recording& header = source->header();
  if (header.has_source && header.source.wavelength_nm > 0 &&
      std::abs(header.source.wavelength_nm - targets->wavelength_nm) > 1)
    return Error{fmt::format("{}: wavelength_nm {:g} is not the recording's {:g} nm ({})",
                             o.targets.string(), targets->wavelength_nm,
                             header.source.wavelength_nm, o.recording.string())};
  auto beams = BeamTable(o, header);
  if (!beams.ok()) return beams.error();
  // A packet capture's columns a revolution, measured from its first frames where its angle file
  // does not hold them (a PandarQT64's 600 against the import's 1800), as reproduce does: a
  // first pass over up to three frames.
  if (beams->has_value() && !header.has_source) {
    auto first = OpenRecording(o.recording, o.sidecar, ro);
    if (!first.ok()) return first.error();
    std::vector<Frame> sample;
    (void)first->ForEachFrame([&](Frame&& f) -> Status {
      sample.push_back(std::move(f));
      if (sample.size() >= 3) return Error{"enough"};  // stops the pass
      return {};
    });
    const uint32_t measured = MeasuredColumnsPerRevolution(sample);
    SensorProfile& p = **beams;
    if (measured > 0 && std::abs(double(measured) - p.columns) > 0.01 * p.columns) {
      o.log.Info(
          fmt::format("columns: {} a revolution, measured from the recording (the "
                      "calibration's import assumed {})\n",
                      measured, p.columns));
      p.columns = measured;
    }
  }
  const bool calibrated = header.intensity_unit == kIntensityPercent ||
                          header.intensity_unit == kIntensityOusterReflectivity;
  calib::LabExtractor extractor(*targets, beams->has_value() ? &**beams : nullptr, calibrated);
  if (Status s = source->ForEachFrame([&](Frame&& f) { return extractor.Add(f); }); !s.ok())
    return Error{o.recording.string() + ": " + s.message()};
  for (const std::string& note : source->header().notes)
    o.log.Note(o.recording.string() + ": " + note);
  auto lab = extractor.Finish();
  if (!lab.ok()) return Error{o.recording.string() + ": " + lab.message()};
  o.log.Info(fmt::format("{}: intensity in {} ({})\n", o.recording.string(), header.intensity_unit,
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
