#include "lidartwin/viewer/report_viewers.h"

#include <fmt/core.h>

#include <algorithm>
#include <numeric>

#include "lidartwin/compare/comparison_loader.h"
#include "lidartwin/viewer/document_codec.h"
#include "lidartwin/viewer/viewer_document.h"
#include "lidartwin/viewer/viewer_page.h"

namespace lt::viewer {
namespace {

// Tall enough for the views and the panel beside them on a laptop screen.
constexpr int kEmbeddedHeightPx = 640;

Expected<std::string> RunViewer(const compare::ComparisonMetrics& m, size_t index,
                                size_t frames_per_run, const MeshLoader& meshes) {
  if (!m.inputs)
    return Error{
        "its metrics.json does not record what was compared (written before "
        "lidartwin 0.1's viewer, or by a program other than compare)"};
  auto loaded = compare::LoadComparison(*m.inputs, meshes);
  if (!loaded.ok()) return loaded.error();
  auto doc = BuildViewerDocument(*loaded, *m.inputs, WorstFramePairs(m, frames_per_run));
  if (!doc.ok()) return doc.error();
  doc->title = m.label;
  auto encoded = EncodeViewerDocument(*doc);
  if (!encoded.ok()) return encoded.error();
  return EmbeddedViewer(fmt::format("ltv-run-{}", index), *encoded, kEmbeddedHeightPx);
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

void AttachViewers(reports::Report& report, size_t frames_per_run, const MeshLoader& meshes) {
  report.run_viewers.assign(report.runs.size(), "");
  report.run_viewer_notes.assign(report.runs.size(), "");
  if (frames_per_run == 0) return;
  bool any = false;
  for (size_t i = 0; i < report.runs.size(); ++i) {
    auto html = RunViewer(report.runs[i], i, frames_per_run, meshes);
    if (html.ok()) {
      report.run_viewers[i] = std::move(*html);
      any = true;
    } else {
      report.run_viewer_notes[i] = html.message();
    }
  }
  if (any) report.viewer_script = ViewerScriptElement();
}

}  // namespace lt::viewer
