// The report's viewer (issue 13): for each run of a report whose metrics.json records what was
// compared (CompareInputs), the worst frame pairs by return agreement, read again and embedded
// as a viewer in report.html, so a CI artefact can be opened and inspected.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

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

// A viewer of frame pairs `pairs` of frames the caller holds, instead of the files read again
// (reproduce's, as it has just compared them: 0.6 s of an OS-1-128 fold went to reading them
// back), made apart from the report: reproduce makes it beside its comparisons, before their
// metrics exist (0.4 s of a fold). `in` names what was compared, `run` the report's run it is
// for (a report of one run: its points are capped alone).
Expected<std::string> ViewerOfFrames(const compare::LoadedComparison& loaded,
                                     const compare::CompareInputs& in,
                                     const std::vector<size_t>& pairs, const std::string& title,
                                     size_t run);

// Puts such a viewer on run `run` of `report`, or, where there is none, why (a note).
void AttachViewer(reports::Report& report, size_t run, Expected<std::string> viewer);

}  // namespace lt::viewer
