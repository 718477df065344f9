// Fields a recording never had are absent from its frames, not zeros (issue 39): a real
// sensor's labels, a Velodyne's reflectance, a KITTI scan's column and time. The frames
// file leaves their columns out, names them in /points' absent_fields, and info lists them.
#include <gtest/gtest.h>

#include <algorithm>

#include "lidartwin/datasets/convert_recording.h"
#include "lidartwin/datasets/hdf5_frames.h"
#include "lidartwin/datasets/hdf5_summary_text.h"
#include "lidartwin/datasets/recording.h"
#include "test_support.h"

namespace lt {
namespace {

std::filesystem::path Real(const std::string& rel) {
  return test::RealDataDir() / rel;
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(AbsentFields, FrameReportsAndDropsThem) {
  Frame f;
  f.Append({});
  EXPECT_EQ(AbsentFields(f), (std::vector<std::string>{"echo_pulse_width", "return_type"}));
  DropFields(f, kLabelFields);
  EXPECT_TRUE(f.material_id.empty() && f.instance_id.empty() && f.semantic_class.empty());
  EXPECT_EQ(Sorted(AbsentFields(f)), Sorted({"echo_pulse_width", "return_type", "material_id",
                                             "instance_id", "semantic_class"}));
  EXPECT_TRUE(AbsentFields(Frame{}).empty());  // no points: nothing to lack
}

// Its channel is the scan line, numbered from the points' order (KittiBin.ScanLines...).
TEST(AbsentFields, KittiScanHasNoColumnTimeOrLabels) {
  LT_REQUIRE_REAL_DATA();
  auto rec = ReadRecording(Real("kitti-odometry-patchworkpp/000000.bin"), "");
  ASSERT_TRUE(rec.ok()) << rec.message();
  const Frame& f = rec->frames.at(0);
  EXPECT_EQ(Sorted(AbsentFields(f)),
            Sorted({"column", "timestamp", "return_index", "echo_pulse_width", "material_id",
                    "instance_id", "semantic_class", "beam_id", "return_type"}));
  EXPECT_EQ(f.reflectance.size(), f.size());  // KITTI's remission is there
}

TEST(AbsentFields, VelodyneHasNoReflectanceOusterNoLabels) {
  LT_REQUIRE_REAL_DATA();
  auto velodyne = ReadRecording(Real("rust-lidar-utils/velodyne_example_vlp16.pcap"),
                                Real("ros-velodyne/VLP16db.yaml"));
  ASSERT_TRUE(velodyne.ok()) << velodyne.message();
  const auto v = AbsentFields(velodyne->frames.at(0));
  for (const char* name : {"reflectance", "material_id", "instance_id", "semantic_class"})
    EXPECT_NE(std::find(v.begin(), v.end(), name), v.end()) << name;
  for (const char* name : {"channel", "column", "timestamp", "beam_id", "intensity"})
    EXPECT_EQ(std::find(v.begin(), v.end(), name), v.end()) << name;

  auto ouster = ReadRecording(Real("ouster-sdk/OS-0-128-U1_v2.3.0_1024x10.pcap"),
                              Real("ouster-sdk/OS-0-128-U1_v2.3.0_1024x10.json"));
  ASSERT_TRUE(ouster.ok()) << ouster.message();
  const auto o = AbsentFields(ouster->frames.at(0));
  for (const char* name : {"material_id", "instance_id", "semantic_class"})
    EXPECT_NE(std::find(o.begin(), o.end(), name), o.end()) << name;
  EXPECT_EQ(std::find(o.begin(), o.end(), "reflectance"), o.end());  // calibrated reflectivity
}

TEST(AbsentFields, FramesFileNamesThemAndInfoListsThem) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  ConvertOptions o;
  o.recording = Real("kitti-odometry-patchworkpp/000000.bin");
  o.out = dir / "kitti.h5";
  ASSERT_TRUE(ConvertRecording(o).ok());
  auto summary = ReadHdf5Summary(o.out);
  ASSERT_TRUE(summary.ok()) << summary.message();
  for (const auto& [name, unit] : summary->fields) {
    EXPECT_NE(name, "column");
    EXPECT_NE(name, "semantic_class");
  }
  const std::string text = Hdf5SummaryText(o.out.string(), *summary);
  EXPECT_NE(text.find("absent:   column timestamp return_index echo_pulse_width "
                      "material_id instance_id semantic_class beam_id return_type"),
            std::string::npos)
      << text;
  // Read back, the frame lacks the same fields.
  auto back = ReadRecording(o.out, "");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(Sorted(AbsentFields(back->frames.at(0))),
            Sorted({"column", "timestamp", "return_index", "echo_pulse_width", "material_id",
                    "instance_id", "semantic_class", "beam_id", "return_type"}));
}

}  // namespace
}  // namespace lt
