// The report's viewer (issue 13): for each run of a report whose metrics.json records what was
// compared (CompareInputs), the worst frame pairs by return agreement, read again and embedded
// as a viewer in report.html, so a CI artefact can be opened and inspected.
#pragma once

#include <cstddef>

#include "lidartwin/reports/report.h"
#include "lidartwin/sim/scene.h"

namespace lt::viewer {

// How many of each run's frame pairs to show, worst first: the `count` with the lowest return
// agreement (Jaccard), ties by position.
std::vector<size_t> WorstFramePairs(const compare::ComparisonMetrics& m, size_t count);

// Fills report.run_viewers (and run_viewer_notes where a run cannot have one: no inputs
// recorded, a file gone) and report.viewer_script. Never fails: a missing viewer is a note.
void AttachViewers(reports::Report& report, size_t frames_per_run, const MeshLoader& meshes);

}  // namespace lt::viewer
