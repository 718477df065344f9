#include "lidartwin/viewer/report_viewers.h"

#include <fmt/core.h>

#include <algorithm>
#include <numeric>
#include <utility>

#include "lidartwin/compare/comparison_loader.h"
#include "lidartwin/viewer/document_codec.h"
#include "lidartwin/viewer/viewer_document.h"
#include "lidartwin/viewer/viewer_page.h"

namespace lt::viewer {
namespace {

// Tall enough for the views and the panel beside them on a laptop screen.
constexpr int kEmbeddedHeightPx = 640;

// The checks both ways in share: what was compared is recorded, with its per-frame agreement.
Status CanShow(const compare::ComparisonMetrics& m) {
  if (!m.inputs)
    return Error{
        "its metrics.json does not record what was compared (written before "
        "lidartwin 0.1's viewer, or by a program other than compare)"};
  if (m.per_frame.empty())
    return Error{"its metrics.json has no per-frame agreement to find the worst frames by"};
  return {};
}

// Run `index`'s embedded viewer of frame pairs `pairs` of its loaded frames; points_so_far is
// the report's running count against kMaxViewerPoints.
Expected<std::string> ViewerOfPairs(const compare::LoadedComparison& loaded,
                                    const compare::CompareInputs& in,
                                    const std::vector<size_t>& pairs, const std::string& title,
                                    size_t index, uint64_t* points_so_far) {
  auto doc = BuildViewerDocument(loaded, in, pairs);
  if (!doc.ok()) return doc.error();
  doc->title = title;
  // One cap for the whole report, not per run: a report of many runs stays a page a browser
  // opens.
  uint64_t points = 0;
  for (const ViewerFrame& f : doc->frames)
    points += f.pairing.real.size() + f.pairing.sim.size();
  if (*points_so_far + points > kMaxViewerPoints)
    return Error{
        fmt::format("the report's viewers already hold {} points; this run's {} would "
                    "pass the limit of {} (fewer frames per run, or fewer runs)",
                    *points_so_far, points, kMaxViewerPoints)};
  *points_so_far += points;
  auto encoded = EncodeViewerDocument(*doc);
  if (!encoded.ok()) return encoded.error();
  return EmbeddedViewer(fmt::format("ltv-run-{}", index), *encoded, kEmbeddedHeightPx);
}

// One run's embedded viewer (its worst frame pairs) from its loaded frames.
Expected<std::string> ViewerOf(const compare::ComparisonMetrics& m,
                               const compare::LoadedComparison& loaded, size_t index,
                               size_t frames_per_run, uint64_t* points_so_far) {
  return ViewerOfPairs(loaded, *m.inputs, WorstFramePairs(m, frames_per_run), m.label, index,
                       points_so_far);
}

Expected<std::string> RunViewer(const compare::ComparisonMetrics& m, size_t index,
                                size_t frames_per_run, const MeshLoader& meshes,
                                uint64_t* points_so_far) {
  if (Status s = CanShow(m); !s.ok()) return s.error();
  if (Status s = compare::CheckInputsUnchanged(*m.inputs); !s.ok()) return s.error();
  auto loaded = compare::LoadComparison(*m.inputs, meshes);
  if (!loaded.ok()) return loaded.error();
  return ViewerOf(m, *loaded, index, frames_per_run, points_so_far);
}

// Run i's viewer or the note why it has none, and the script once any run has one.
void Attach(reports::Report& report, size_t i, Expected<std::string> html) {
  if (html.ok()) {
    report.run_viewers[i] = std::move(*html);
    report.viewer_script = ViewerScriptElement();
  } else {
    report.run_viewer_notes[i] = html.message();
  }
}

}  // namespace

std::vector<size_t> WorstFramePairs(const compare::ComparisonMetrics& m, size_t count) {
  std::vector<size_t> order(m.per_frame.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return m.per_frame[a].Agreement() < m.per_frame[b].Agreement();
  });
  order.resize(std::min(order.size(), count));
  std::vector<size_t> pairs;
  for (size_t k : order)
    pairs.push_back(m.per_frame[k].pair);
  return pairs;
}

Expected<std::string> ViewerOfFrames(const compare::LoadedComparison& loaded,
                                     const compare::CompareInputs& in,
                                     const std::vector<size_t>& pairs, const std::string& title,
                                     size_t run) {
  uint64_t points = 0;  // this run alone: a report of one run, as reproduce writes
  return ViewerOfPairs(loaded, in, pairs, title, run, &points);
}

void AttachViewer(reports::Report& report, size_t run, Expected<std::string> viewer) {
  report.run_viewers.resize(report.runs.size());
  report.run_viewer_notes.resize(report.runs.size());
  if (run >= report.runs.size()) return;
  Attach(report, run, std::move(viewer));
}

void AttachViewers(reports::Report& report, size_t frames_per_run, const MeshLoader& meshes) {
  report.run_viewers.assign(report.runs.size(), "");
  report.run_viewer_notes.assign(report.runs.size(), "");
  if (frames_per_run == 0) return;
  uint64_t points = 0;
  for (size_t i = 0; i < report.runs.size(); ++i)
    Attach(report, i, RunViewer(report.runs[i], i, frames_per_run, meshes, &points));
}

}  // namespace lt::viewer
