// LAS 1.4 files (las.h) against the ASPRS LAS Specification 1.4 R15: the public header block's
// fields at their offsets (table 3), the Extra Bytes VLR (tables 24-25), format 6 records
// (table 7); a written frame reads back the same; damaged files are refused by byte offset.
#include "lidartwin/datasets/las.h"

#include <gtest/gtest.h>

#include <optional>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "lidartwin/datasets/frame_output.h"
#include "lidartwin/datasets/recording.h"
#include "test_support.h"

namespace lt {
namespace {

// Four points: beam 100 has two echoes (returns 1 and 2 of 2), a noise echo (class 65535) and
// a class beyond LAS's byte.
Frame FourPoints() {
  Frame f;
  f.index = 7;
  const float xyz[4][3] = {{1.23456f, -2.5f, 0.25f}, {10, 0, -1}, {-3, 4, 5}, {0.5f, 0.5f, 0}};
  const uint32_t beams[4] = {100, 100, 101, 102};
  const uint8_t returns[4] = {0, 1, 0, 0};
  const uint16_t classes[4] = {2, 64, 65535, 300};
  for (int i = 0; i < 4; ++i) {
    f.x_m.push_back(xyz[i][0]);
    f.y_m.push_back(xyz[i][1]);
    f.z_m.push_back(xyz[i][2]);
    f.range_m.push_back(
        std::sqrt(xyz[i][0] * xyz[i][0] + xyz[i][1] * xyz[i][1] + xyz[i][2] * xyz[i][2]));
    f.intensity.push_back(12.75f * (i + 1));
    f.reflectance.push_back(0.1f * i);
    f.channel.push_back(static_cast<uint16_t>(i + 3));
    f.column.push_back(1000u + i);
    f.timestamp_s.push_back(1.5 + 1e-6 * i);
    f.return_index.push_back(returns[i]);
    f.material_id.push_back(static_cast<uint16_t>(i));
    f.instance_id.push_back(90u + i);
    f.semantic_class.push_back(classes[i]);
    f.beam_id.push_back(beams[i]);
  }
  return f;
}

std::string ReadAll(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}
template <typename T>
T At(const std::string& b, size_t offset) {
  T v;
  std::memcpy(&v, b.data() + offset, sizeof(T));
  return v;
}

// The header offset of the VLR (user, record id), walking them from the header's end.
size_t VlrAt(const std::string& b, const std::string& user, uint16_t id) {
  size_t pos = At<uint16_t>(b, 94);
  for (uint32_t v = 0; v < At<uint32_t>(b, 100); ++v) {
    if (std::string(b.data() + pos + 2) == user && At<uint16_t>(b, pos + 18) == id) return pos;
    pos += 54 + At<uint16_t>(b, pos + 20);
  }
  return 0;
}

TEST(Las, HeaderAndRecordsFollowTheSpecification) {
  test::TempDir dir;
  const Frame f = FourPoints();
  ASSERT_TRUE(WriteLas(f, dir / "f.las").ok());
  const std::string b = ReadAll(dir / "f.las");
  // Extra fields: range, intensity, reflectance, channel, column, material_id, instance_id,
  // semantic_class, beam_id (4+4+4+2+4+2+4+2+4 = 30 bytes), each named lt_ + its name.
  const size_t extras = 9, record = 30 + 30;
  EXPECT_EQ(b.substr(0, 4), "LASF");
  EXPECT_EQ(At<uint16_t>(b, 6) & 0x10, 0x10);  // WKT bit, required for formats 6-10
  EXPECT_EQ(At<uint8_t>(b, 24), 1);
  EXPECT_EQ(At<uint8_t>(b, 25), 4);
  EXPECT_EQ(At<uint16_t>(b, 94), 375);
  EXPECT_EQ(At<uint16_t>(b, 4), 7);     // file source ID: the frame's index
  EXPECT_EQ(At<uint32_t>(b, 100), 3u);  // the WKT, the frame, the extra bytes
  EXPECT_EQ(At<uint8_t>(b, 104), 6);
  EXPECT_EQ(At<uint16_t>(b, 105), record);
  EXPECT_EQ(At<uint32_t>(b, 107), 0u);  // legacy count: 0 for formats 6-10
  EXPECT_EQ(At<double>(b, 131), 1e-4);
  EXPECT_EQ(At<double>(b, 179), 10.0);  // max X
  EXPECT_EQ(At<double>(b, 187), -3.0);  // min X
  EXPECT_EQ(At<uint64_t>(b, 247), 4u);
  EXPECT_EQ(At<uint64_t>(b, 255), 3u);  // first returns
  EXPECT_EQ(At<uint64_t>(b, 263), 1u);  // second returns
  // The VLRs: an OGC WKT coordinate system (LASF_Projection 2112), the frame (lidartwin 1),
  // the extra bytes (LASF_Spec 4) whose first descriptor is lt_range, a float (type 9).
  const size_t wkt = VlrAt(b, "LASF_Projection", 2112);
  ASSERT_EQ(wkt, 375u);
  EXPECT_EQ(std::string(b.data() + wkt + 54).rfind("LOCAL_CS[", 0), 0u);
  const size_t frame = VlrAt(b, "lidartwin", 1);
  ASSERT_GT(frame, 0u);
  EXPECT_EQ(At<uint16_t>(b, frame + 20), 133);
  const size_t spec = VlrAt(b, "LASF_Spec", 4);
  ASSERT_GT(spec, 0u);
  EXPECT_EQ(At<uint16_t>(b, spec + 20), 192 * extras);
  EXPECT_EQ(At<uint8_t>(b, spec + 54 + 2), 9);
  EXPECT_EQ(std::string(b.data() + spec + 54 + 4), "lt_range");
  EXPECT_EQ(At<uint32_t>(b, 96), spec + 54 + 192 * extras);
  EXPECT_EQ(b.size(), At<uint32_t>(b, 96) + 4 * record);
  // The first record: X = round(1.23456 / 1e-4), intensity 12.75 -> 13, return 1 of 2,
  // class 2, scan angle = elevation / 0.006 deg, point source = frame index, GPS time.
  const size_t p = At<uint32_t>(b, 96);
  EXPECT_EQ(At<int32_t>(b, p), 12346);
  EXPECT_EQ(At<int32_t>(b, p + 4), -25000);
  EXPECT_EQ(At<uint16_t>(b, p + 12), 13);
  EXPECT_EQ(At<uint8_t>(b, p + 14), 1 | (2 << 4));
  EXPECT_EQ(At<uint8_t>(b, p + 16), 2);
  // Scan angle: from straight down (-z) about x, 0.006 degree units.
  EXPECT_EQ(At<int16_t>(b, p + 18), std::lround(std::atan2(2.5, -0.25) * 180 / M_PI / 0.006));
  EXPECT_EQ(At<uint16_t>(b, p + 20), 7);
  EXPECT_EQ(At<double>(b, p + 22), 1.5);
  // Classes: 65535 (a noise echo) is 18, high noise; 300 is 1, unclassified.
  EXPECT_EQ(At<uint8_t>(b, p + 2 * record + 16), 18);
  EXPECT_EQ(At<uint8_t>(b, p + 3 * record + 16), 1);
  EXPECT_EQ(At<uint8_t>(b, p + record + 14), 2 | (2 << 4));  // return 2 of 2
}

TEST(Las, AFrameReadsBackTheSame) {
  test::TempDir dir;
  Frame a = FourPoints();
  a.return_type = {3, 8, 3, 6};  // strongest, second strongest, strongest, identical
  ASSERT_TRUE(WriteLas(a, dir / "f.las").ok());
  auto b = ReadLas(dir / "f.las");
  ASSERT_TRUE(b.ok()) << b.message();
  ASSERT_EQ(b->size(), a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(b->x_m[i], a.x_m[i], 0.5e-4 + 1e-6);  // the 0.1 mm scale
    EXPECT_NEAR(b->y_m[i], a.y_m[i], 0.5e-4 + 1e-6);
    EXPECT_NEAR(b->z_m[i], a.z_m[i], 0.5e-4 + 1e-6);
  }
  EXPECT_EQ(b->index, 7u);
  EXPECT_EQ(b->range_m, a.range_m);
  EXPECT_EQ(b->intensity, a.intensity);  // exact, from the extra field
  EXPECT_EQ(b->reflectance, a.reflectance);
  EXPECT_EQ(b->channel, a.channel);
  EXPECT_EQ(b->column, a.column);
  EXPECT_EQ(b->timestamp_s, a.timestamp_s);
  EXPECT_EQ(b->return_index, a.return_index);
  EXPECT_EQ(b->return_type, a.return_type);  // an extra field, lt_return_type
  EXPECT_EQ(b->material_id, a.material_id);
  EXPECT_EQ(b->instance_id, a.instance_id);
  EXPECT_EQ(b->semantic_class, a.semantic_class);  // 65535 and 300 kept in the extra field
  EXPECT_EQ(b->beam_id, a.beam_id);
  // An empty frame too.
  ASSERT_TRUE(WriteLas(Frame{}, dir / "empty.las").ok());
  auto e = ReadLas(dir / "empty.las");
  ASSERT_TRUE(e.ok()) << e.message();
  EXPECT_EQ(e->size(), 0u);
}

// Issue 36: with our frame record the header's X/Y/Z offset was ignored, so a file another tool
// re-offset (its integers moved by the offset) read back shifted.
TEST(Las, TheHeaderOffsetAppliesToOurFrames) {
  test::TempDir dir;
  const Frame a = FourPoints();
  ASSERT_TRUE(WriteLas(a, dir / "f.las").ok());
  std::string bytes = ReadAll(dir / "f.las");
  const double offset[3] = {2.5, -1.25, 0.5};
  std::memcpy(bytes.data() + 155, offset, sizeof offset);  // the header's X, Y, Z offsets
  std::ofstream(dir / "offset.las", std::ios::binary) << bytes;
  auto b = ReadLas(dir / "offset.las");
  ASSERT_TRUE(b.ok()) << b.message();
  ASSERT_EQ(b->size(), a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(b->x_m[i], a.x_m[i] + 2.5, 0.5e-4 + 1e-5);
    EXPECT_NEAR(b->y_m[i], a.y_m[i] - 1.25, 0.5e-4 + 1e-5);
    EXPECT_NEAR(b->z_m[i], a.z_m[i] + 0.5, 0.5e-4 + 1e-5);
  }
}

TEST(Las, FramesGoToOneFileEach) {
  test::TempDir dir;
  auto out = FrameOutput::Open(dir / "scan.las", DatasetInfo{});
  ASSERT_TRUE(out.ok()) << out.message();
  Frame f = FourPoints();
  ASSERT_TRUE(out->Write(f).ok());
  f.index = 8;
  ASSERT_TRUE(out->Write(f).ok());
  ASSERT_TRUE(out->Close().ok());
  ASSERT_EQ(out->written().size(), 2u);
  auto second = ReadLas(out->written()[1]);
  ASSERT_TRUE(second.ok()) << second.message();
  EXPECT_EQ(second->index, 8u);
  // And as a recording, for `convert` and `compare`.
  auto rec = ReadRecording(out->written()[0], {});
  ASSERT_TRUE(rec.ok()) << rec.message();
  EXPECT_EQ(rec->reader, "las");
  ASSERT_EQ(rec->frames.size(), 1u);
  EXPECT_EQ(rec->frames[0].size(), 4u);
}

// What LAS cannot hold or other tools change: points without finite coordinates are left
// out; the frame's index, times, poses and motion correction travel in our VLR; a class or
// intensity another tool rewrote wins over our extra field; a foreign file's offset becomes
// the frame's pose; and with SOURCE_DATE_EPOCH two writes give the same bytes.
TEST(Las, FrameMetadataForeignEditsAndReproducibleBytes) {
  test::TempDir dir;
  Frame a = FourPoints();
  a.index = 70000;
  a.motion_corrected = true;
  a.start_time_s = 3.25;
  a.end_time_s = 3.35;
  a.pose_end = {{0.5, 0.5, 0.5, 0.5}, {1, 2, 3}};
  a.x_m.push_back(std::nanf(""));
  for (auto* v : {&a.y_m, &a.z_m, &a.range_m, &a.intensity, &a.reflectance})
    v->push_back(1);
  a.channel.push_back(0);
  a.column.push_back(0);
  a.timestamp_s.push_back(0);
  a.return_index.push_back(0);
  a.material_id.push_back(0);
  a.instance_id.push_back(0);
  a.semantic_class.push_back(0);
  a.beam_id.push_back(7);
  setenv("SOURCE_DATE_EPOCH", "1790000000", 1);
  ASSERT_TRUE(WriteLas(a, dir / "a.las").ok());
  ASSERT_TRUE(WriteLas(a, dir / "b.las").ok());
  unsetenv("SOURCE_DATE_EPOCH");
  const std::string bytes = ReadAll(dir / "a.las");
  EXPECT_EQ(bytes, ReadAll(dir / "b.las"));
  EXPECT_EQ(At<uint16_t>(bytes, 92), 2026);  // 1790000000 s: 2026-09-21
  auto b = ReadLas(dir / "a.las");
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(b->size(), 4u);  // the NaN point left out
  EXPECT_EQ(b->index, 70000u);
  EXPECT_TRUE(b->motion_corrected);
  EXPECT_EQ(b->start_time_s, 3.25);
  EXPECT_EQ(b->end_time_s, 3.35);
  EXPECT_EQ(b->pose_end.rotation.w, 0.5);
  EXPECT_EQ(b->pose_end.translation.z, 3.0);
  // Another tool reclassifies point 0 as building (6) and keeps our extra bytes.
  std::string edited = bytes;
  edited[At<uint32_t>(bytes, 96) + 16] = 6;
  auto c = ParseLas(edited, "edited.las");
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->semantic_class[0], 6);
  EXPECT_EQ(c->semantic_class[2], 65535);  // untouched: our exact class
  // A foreign file: no frame VLR, an offset of 4,123,456.789 m in x.
  std::string foreign = bytes;
  const size_t frame_vlr = VlrAt(bytes, "lidartwin", 1);
  foreign.replace(frame_vlr + 2, 9, "otherTool");
  const double x_offset = 4123456.789;
  std::memcpy(&foreign[155], &x_offset, 8);
  auto d = ParseLas(foreign, "foreign.las");
  ASSERT_TRUE(d.ok()) << d.message();
  EXPECT_EQ(d->pose_end.translation.x, x_offset);
  EXPECT_NEAR(d->x_m[0], 1.23456, 1e-4);  // relative to the offset, at full precision
}

// LAS 1.0-1.2 in point formats 0-3 (PDAL's permutation set: one point written in each) and
// 1.1 / 1.4 pairs of laspy's (the same points in two versions and formats): each read as the
// specification lays its records out (LAS 1.4 R15 tables 7-17; 1.0-1.3 headers of 227 and 235
// bytes, 32-bit counts), and the same points whichever version and format carry them.
TEST(Las, EveryVersionAndLegacyFormatReadsTheSamePoints) {
  LT_REQUIRE_REAL_DATA();
  const auto pdal = test::RealDataDir() / "las" / "pdal";
  std::optional<double> gps;
  for (const char* name :
       {"1.0_0", "1.0_1", "1.1_0", "1.1_1", "1.2_0", "1.2_1", "1.2_2", "1.2_3"}) {
    auto f = ReadLas(pdal / (std::string(name) + ".las"));
    ASSERT_TRUE(f.ok()) << f.message();
    ASSERT_EQ(f->size(), 1u) << name;
    // Relative to the file's offset, which went into the pose (a georeferenced origin).
    EXPECT_NEAR(f->x_m[0] + f->pose_start.translation.x, 470692.44, 1e-3) << name;
    EXPECT_NEAR(f->y_m[0] + f->pose_start.translation.y, 4602888.9, 1e-3) << name;
    EXPECT_NEAR(f->z_m[0] + f->pose_start.translation.z, 16.0, 1e-3) << name;
    EXPECT_EQ(f->semantic_class[0], 2) << name;  // ground, byte 15's low 5 bits
    EXPECT_EQ(f->return_index[0], 1) << name;    // return number 2, byte 14's low 3 bits
    const char format = name[4];
    if (format == '1' || format == '3') {  // GPS time at byte 20
      if (!gps) gps = f->timestamp_s[0];
      EXPECT_EQ(f->timestamp_s[0], *gps) << name;
      EXPECT_GT(*gps, 0);
    } else {
      EXPECT_TRUE(f->timestamp_s.empty()) << name;  // formats 0 and 2 have no time: absent
    }
  }
  const auto laspy = test::RealDataDir() / "las" / "laspy";
  for (const auto& [a_name, b_name] :
       {std::pair{"simple1_1.las", "extrabytes.las"}, std::pair{"test1_4.las", "1_4_w_evlr.las"}}) {
    auto a = ReadLas(laspy / a_name);  // 1.1 format 1 / 1.4 format 6
    auto b = ReadLas(laspy / b_name);  // 1.4 format 3 with extra bytes / 1.4 with EVLRs
    ASSERT_TRUE(a.ok()) << a.message();
    ASSERT_TRUE(b.ok()) << b.message();
    ASSERT_EQ(a->size(), b->size()) << a_name;
    ASSERT_GT(a->size(), 999u);
    for (size_t i = 0; i < a->size(); ++i) {
      ASSERT_EQ(a->x_m[i], b->x_m[i]) << a_name << " " << i;
      ASSERT_EQ(a->z_m[i], b->z_m[i]);
      ASSERT_EQ(a->intensity[i], b->intensity[i]);
      ASSERT_EQ(a->semantic_class[i], b->semantic_class[i]);
      ASSERT_EQ(a->return_index[i], b->return_index[i]);
      ASSERT_EQ(a->timestamp_s[i], b->timestamp_s[i]);
    }
  }
}

// Damaged and foreign files: each refused with the file and the byte offset at fault.
TEST(Las, DamagedFilesAreRefusedByOffset) {
  test::TempDir dir;
  ASSERT_TRUE(WriteLas(FourPoints(), dir / "f.las").ok());
  const std::string good = ReadAll(dir / "f.las");
  auto expect = [&](std::string bytes, const std::string& what) {
    auto r = ParseLas(bytes, "d.las");
    ASSERT_FALSE(r.ok()) << "accepted, expected: " << what;
    EXPECT_NE(r.message().find("d.las"), std::string::npos) << r.message();
    EXPECT_NE(r.message().find(what), std::string::npos) << r.message();
  };
  expect(good.substr(0, 100), "shorter than a LAS header (227 bytes at least)");
  expect(good.substr(0, 300), "shorter than a LAS 1.4 header (375)");
  std::string b = good;
  b[0] = 'X';
  expect(b, "byte 0: not a LAS file");
  b = good;
  b[25] = 5;
  expect(b, "byte 24: LAS version 1.5; this reader takes LAS 1.0 to 1.4");
  b = good;
  b[104] = 11;
  expect(b, "byte 104: point data record format 11; LAS defines formats 0 to 10");
  b = good;
  b[104] = 10;  // 67 bytes a record, more than ours hold
  expect(b, "byte 105: point records of 60 bytes, format 10 needs 67");
  b = good;
  b[104] = static_cast<char>(6 | 0x80);
  expect(b, "compressed point data (LAZ)");
  b = good;
  const uint64_t many = 1000000;
  std::memcpy(&b[247], &many, 8);
  expect(b, "byte 247: 1000000 points of 60 bytes do not fit");
  b = good;
  const uint32_t far = 1u << 30;
  std::memcpy(&b[96], &far, 4);
  expect(b, "byte 96: point data at byte 1073741824");
  b = good;
  const uint16_t long_vlr = 65000;
  std::memcpy(&b[375 + 20], &long_vlr, 2);
  expect(b, "runs into the point data");
  const size_t spec = VlrAt(good, "LASF_Spec", 4);
  b = good;
  const uint16_t odd = 100;
  std::memcpy(&b[spec + 20], &odd, 2);
  expect(b, "not a whole number of 192-byte descriptors");
  b = good;
  const uint16_t short_record = 40;
  std::memcpy(&b[105], &short_record, 2);
  expect(b, "the format and the extra bytes take more");
  b = good;
  b[spec + 54 + 2] = 0;  // opaque bytes, but no count
  b[spec + 54 + 3] = 0;
  expect(b, "extra bytes of data type 0 with no byte count");
  b = good;
  b[spec + 54 + 2] = 99;
  expect(b, "extra bytes of data type 99 (unknown)");
  b = good;
  const double metre = 1.0;  // a scale of 1 m: the first point's x, 12346 m, times 1000
  const int32_t far_x = 12346000;
  std::memcpy(&b[131], &metre, 8);
  std::memcpy(&b[At<uint32_t>(good, 96)], &far_x, 4);
  expect(b, "beyond 10,000 km");
  // A field with a scale (options bit 3) is skipped, not read unscaled; the rest are read.
  b = good;
  b[spec + 54 + 3] = 0x08;  // scale bit
  auto scaled = ParseLas(b, "scaled.las");
  ASSERT_TRUE(scaled.ok()) << scaled.message();
  EXPECT_NE(scaled->range_m, FourPoints().range_m);  // recomputed from x y z, not read
  // Paths that are not LAS files.
  auto d = ReadLas(dir.path());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.message().find(dir.path().string()), std::string::npos) << d.message();
  EXPECT_FALSE(ReadLas(dir / "missing.las").ok());
  EXPECT_FALSE(WriteLas(FourPoints(), dir.path()).ok());  // a directory is never replaced
}

}  // namespace
}  // namespace lt
