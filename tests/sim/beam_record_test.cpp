// The compact records the GPU sends back (internal/beam_record.h) give the same points as the
// full records the CPU backend appends: channel, column and time recomputed on the host.
#include "internal/beam_record.h"

#include <gtest/gtest.h>

#include <cstring>

#include "expect_same_frames.h"
#include "lidartwin/sim/sensor_profile.h"
#include "test_support.h"

namespace lt {
namespace {

TEST(CompactRecord, AppendsTheSamePointsAsTheFullRecord) {
  auto profile = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  ASSERT_TRUE(profile.ok()) << profile.message();
  const physics::ScanPattern<double> scan = profile->Pattern();
  const double frame_start = 12.375;
  std::vector<BeamRecord> full;
  for (uint32_t beam : {0u, 1u, 4097u, 131071u}) {
    const physics::BeamSample<double> b = physics::ScanBeam(scan, beam);
    BeamRecord r{};
    r.valid = 1;
    r.beam = beam;
    r.x_m = 1.5f + beam;
    r.y_m = -2.25f;
    r.z_m = 0.125f;
    r.range_m = 7.5f;
    r.intensity = 42.0f;
    r.reflectance = 0.3f;
    r.channel = b.channel;
    r.column = b.column;
    r.material = 7;
    r.instance = 70000 + beam;
    r.semantic = 6;
    r.time_s = frame_start + b.time_s;
    r.echo_pulse_width_ns = 3.25f;
    r.return_index = beam % 3;
    full.push_back(r);
  }
  std::vector<CompactRecord> compact;
  for (const BeamRecord& r : full)
    compact.push_back(Compact(r));
  Frame a, b;
  AppendRecords(full.data(), static_cast<uint32_t>(full.size()), true, a);
  AppendCompactRecords(scan, frame_start, compact.data(), static_cast<uint32_t>(compact.size()),
                       true, b);
  ASSERT_EQ(a.size(), full.size());
  ASSERT_EQ(b.size(), a.size());
  test::ExpectSameFrames(a, b, "compact against full records");
}

}  // namespace
}  // namespace lt
