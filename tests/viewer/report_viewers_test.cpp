// The report's viewers made from frames held in memory (reproduce's way, issue 41): the same
// embedded viewer as the document built from those frames by hand, and put on its run, or a
// note where there is none.
#include "lidartwin/viewer/report_viewers.h"

#include <gtest/gtest.h>

#include "lidartwin/viewer/document_codec.h"
#include "lidartwin/viewer/viewer_document.h"
#include "lidartwin/viewer/viewer_page.h"
#include "ring_frame.h"

namespace lt::viewer {
namespace {

using test_frames::RingFrame;

struct HeldComparison {
  compare::LoadedComparison loaded;
  compare::CompareInputs in;
};

HeldComparison TwoFramePairs() {
  HeldComparison h;
  h.loaded.real.reader = "hdf5";
  h.loaded.sim.reader = "hdf5";
  h.loaded.real.frames = {RingFrame(11, 16, 128, 0.05), RingFrame(12, 16, 128, 0.05)};
  h.loaded.sim.frames = {RingFrame(13, 16, 128, 0.05), RingFrame(14, 16, 128, 0.05)};
  h.loaded.options.association.method = compare::AssociationMethod::kBeam;
  h.in.real_file = "real.h5";
  h.in.sim_file = "sim.h5";
  h.in.real_frames = {1, 2};
  h.in.sim_frames = {0, 1};
  return h;
}

TEST(ReportViewers, AViewerOfHeldFramesIsTheDocumentOfThoseFramesEmbedded) {
  const HeldComparison h = TwoFramePairs();
  const auto viewer = ViewerOfFrames(h.loaded, h.in, {1}, "fold 1", 3);
  ASSERT_TRUE(viewer.ok()) << viewer.message();
  // The same page built by hand from the public pieces: the document of pair 1 alone.
  auto doc = BuildViewerDocument(h.loaded, h.in, {1});
  ASSERT_TRUE(doc.ok()) << doc.message();
  doc->title = "fold 1";
  ASSERT_EQ(doc->frames.size(), 1u);
  EXPECT_EQ(doc->frames[0].real_index, 2u);
  auto encoded = EncodeViewerDocument(*doc);
  ASSERT_TRUE(encoded.ok()) << encoded.message();
  EXPECT_EQ(*viewer, EmbeddedViewer("ltv-run-3", *encoded, 640));
  // Another pair is another page.
  const auto other = ViewerOfFrames(h.loaded, h.in, {0}, "fold 1", 3);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(*other, *viewer);
}

TEST(ReportViewers, APairThatIsNotHeldIsAnErrorNotACrash) {
  const HeldComparison h = TwoFramePairs();
  const auto viewer = ViewerOfFrames(h.loaded, h.in, {7}, "fold", 0);
  ASSERT_FALSE(viewer.ok());
  EXPECT_NE(viewer.message().find("frame pair 7 does not exist"), std::string::npos);
  // A pair held on the real side only.
  HeldComparison uneven = TwoFramePairs();
  uneven.loaded.sim.frames.pop_back();
  const auto one_sided = ViewerOfFrames(uneven.loaded, uneven.in, {1}, "fold", 0);
  ASSERT_FALSE(one_sided.ok());
  EXPECT_NE(one_sided.message().find("frame pair 1 does not exist (1 compared)"),
            std::string::npos);
}

TEST(ReportViewers, AViewerGoesOnItsRunAndAnErrorBecomesItsNote) {
  reports::Report report;
  report.runs.resize(3);
  AttachViewer(report, 1, std::string("<div>the viewer</div>"));
  ASSERT_EQ(report.run_viewers.size(), 3u);
  ASSERT_EQ(report.run_viewer_notes.size(), 3u);
  EXPECT_EQ(report.run_viewers[1], "<div>the viewer</div>");
  EXPECT_EQ(report.viewer_script, ViewerScriptElement());
  EXPECT_TRUE(report.run_viewers[0].empty() && report.run_viewers[2].empty());

  reports::Report without;
  without.runs.resize(1);
  AttachViewer(without, 0, Error{"this build has no viewer"});
  EXPECT_TRUE(without.run_viewers[0].empty());
  EXPECT_EQ(without.run_viewer_notes[0], "this build has no viewer");
  EXPECT_TRUE(without.viewer_script.empty());

  // A run the report does not hold: nothing is put anywhere.
  reports::Report short_report;
  short_report.runs.resize(1);
  AttachViewer(short_report, 4, std::string("<div/>"));
  EXPECT_EQ(short_report.run_viewers, std::vector<std::string>{""});
  EXPECT_TRUE(short_report.viewer_script.empty());
}

}  // namespace
}  // namespace lt::viewer
