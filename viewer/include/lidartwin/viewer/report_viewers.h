// The report's viewer (issue 13): for each run of a report whose metrics.json records what was
// compared (CompareInputs), the worst frame pairs by return agreement, read again and embedded
// as a viewer in report.html, so a CI artefact can be opened and inspected.
#pragma once

#include <cstddef>

#include "lidartwin/compare/comparison_loader.h"
#include "lidartwin/reports/report.h"
#include "lidartwin/sim/scene.h"

namespace lt::viewer {

// How many of each run's frame pairs to show, worst first: the `count` with the lowest return
// agreement (Jaccard), ties by position.
std::vector<size_t> WorstFramePairs(const compare::ComparisonMetrics& m, size_t count);

// Fills report.run_viewers (and run_viewer_notes where a run cannot have one: no inputs
// recorded, a file gone) and report.viewer_script. Never fails: a missing viewer is a note.
void AttachViewers(reports::Report& report, size_t frames_per_run, const MeshLoader& meshes);

// The same for run `run` alone (a report of one run: its viewer's points are capped alone),
// from frames the caller holds instead of the files read again (reproduce's, as it has just
// compared them: 0.6 s of an OS-1-128 fold went to reading them back).
void AttachViewer(reports::Report& report, size_t run, const compare::LoadedComparison& loaded,
                  size_t frames_per_run);

}  // namespace lt::viewer
