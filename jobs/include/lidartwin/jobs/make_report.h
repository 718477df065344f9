// A report over comparison runs (`lidartwin report`, issue 9): their metrics.json files to
// report.json, report.md and report.html (reports/report.h); with a baseline and tolerances,
// the regression gate; with a viewer in the build, each run's worst frame pairs embedded in the
// page.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/jobs/job_log.h"
#include "lidartwin/sim/scene.h"

namespace lt::jobs {

// Frame pairs a run's embedded viewer may show: each is a few MB of the report.
inline constexpr uint32_t kMaxViewerFrames = 16;

struct MakeReportOptions {
  std::vector<std::filesystem::path> metrics;  // one metrics.json per run
  std::filesystem::path out;                   // the report's folder
  std::filesystem::path baseline;              // a metrics.json or report.json; empty: no gate
  std::filesystem::path tolerances;            // the gate's tolerances, with the baseline
  // Worst frame pairs per run in the page (0: none); unset: 2, and no warning in a build
  // without the viewer.
  std::optional<uint32_t> viewer_frames;
  MeshLoader mesh_loader;  // for the viewers' scenes with meshes
  // info: what was written, each regression and the gate's verdict; warning: a run without
  // its viewer, or a build without one.
  JobLog log;

  // metrics and out given, baseline and tolerances together, viewer_frames within
  // 0..kMaxViewerFrames (an error begins with the key).
  Status Validate() const;
};

// Whether the gate found a regression (false without a baseline).
Expected<bool> MakeReport(const MakeReportOptions& options);

}  // namespace lt::jobs
