// The columns the GPU packs from its compact records and sends back (internal/frame_columns.h)
// give the same points as the full records the CPU backend appends: channel, column and time
// from the beam index.
#include "internal/beam_record.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "expect_same_frames.h"
#include "internal/frame_columns.h"
#include "lidartwin/sim/sensor_profile.h"
#include "test_support.h"

namespace lt {
namespace {

// The compact records packed as columns by PutFrameColumns (the CUDA kernel's own code, run
// here), every byte of the buffer checked written: packed twice over two poisons, the two
// buffers must agree.
std::vector<unsigned char> Packed(const physics::ScanPattern<double>& scan, double frame_start,
                                  const std::vector<CompactRecord>& compact, bool pulse_width) {
  const auto n = static_cast<uint32_t>(compact.size());
  const PackedColumns p = PackColumns(n, pulse_width);
  const ColumnClock clock =
      MakeColumnClock(scan, frame_start, scan.spinning.firing_offset_s);  // host tables
  std::vector<unsigned char> out[2];
  for (int poison = 0; poison < 2; ++poison) {
    // 8-byte aligned, as the pinned buffer is.
    std::vector<uint64_t> words((p.bytes + 7) / 8, poison ? ~uint64_t{0} : 0x5a5a5a5a5a5a5a5a);
    auto* bytes = reinterpret_cast<unsigned char*>(words.data());
    for (uint32_t i = 0; i < n; ++i)
      PutFrameColumns(compact[i], i, p, pulse_width, clock, bytes);
    out[poison].assign(bytes, bytes + p.bytes);
  }
  EXPECT_EQ(out[0], out[1]) << "a byte of the packed columns was left unwritten";
  return out[0];
}

// Records of a spinning scan (channel, column and time from its tables, packed with the
// columns) and of a line scan and a Lissajous scan (filled through ScanBeam by
// AppendFrameColumns), appended to a frame that already holds points, with and without the
// echo pulse width.
TEST(CompactRecord, PackedColumnsAppendTheSamePointsAsTheFullRecord) {
  for (const char* sensor :
       {"ouster_os0_128.yaml", "blickfeld_cube1.yaml", "mems_lissajous_example.yaml"}) {
    auto profile = LoadSensorProfile(test::ConfigDir() / "sensors" / sensor);
    ASSERT_TRUE(profile.ok()) << profile.message();
    const physics::ScanPattern<double> scan = profile->Pattern();
    const uint32_t beams = physics::ScanBeamCount(scan);
    const double frame_start = 12.375;
    std::vector<BeamRecord> full;
    // The ends of the scan, and many others in no order.
    std::vector<uint32_t> picked = {0u, 1u, 4097u % beams, beams - 1, beams / 3};
    for (uint32_t i = 0; i < 30000; ++i)
      picked.push_back(static_cast<uint32_t>((uint64_t{i} * 7919) % beams));
    for (uint32_t beam : picked) {
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
      r.return_index = static_cast<uint16_t>(beam % 3);
      r.return_type = static_cast<uint8_t>(beam % physics::kReturnTypeCount);
      full.push_back(r);
    }
    std::vector<CompactRecord> compact;
    for (const BeamRecord& r : full)
      compact.push_back(Compact(r));
    const auto n = static_cast<uint32_t>(full.size());
    for (bool pulse_width : {true, false}) {
      const std::vector<unsigned char> packed = Packed(scan, frame_start, compact, pulse_width);
      EXPECT_EQ(packed.size(), size_t{n} * (pulse_width ? 56 : 52));
      Frame a, b;
      // Twice: the second call appends after the first's points.
      for (int round = 0; round < 2; ++round) {
        AppendRecords(full.data(), n, pulse_width, a);
        AppendFrameColumns(packed.data(), n, pulse_width, scan, frame_start, b);
      }
      ASSERT_EQ(a.size(), 2 * full.size());
      ASSERT_EQ(b.size(), a.size());
      // Against the records themselves, not only each other.
      for (size_t k = 0; k < a.size(); ++k) {
        const BeamRecord& r = full[k % full.size()];
        EXPECT_EQ(a.x_m[k], r.x_m);
        EXPECT_EQ(a.instance_id[k], r.instance);
        EXPECT_EQ(a.channel[k], r.channel);
        EXPECT_EQ(a.column[k], r.column);
        EXPECT_EQ(a.timestamp_s[k], r.time_s);
        EXPECT_EQ(a.return_index[k], r.return_index);
        EXPECT_EQ(a.return_type[k], r.return_type);
        EXPECT_EQ(a.beam_id[k], r.beam);
      }
      EXPECT_EQ(b.echo_pulse_width_ns.size(), pulse_width ? b.size() : 0u);
      test::ExpectSameFrames(a, b, std::string("compact against full records, ") + sensor);
    }
  }
}

}  // namespace
}  // namespace lt
