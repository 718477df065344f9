// Ouster metadata and pcap reading against the real captures in ../shared/real-data/ouster-sdk.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>

#include "cli_support.h"
#include "lidartwin/datasets/ouster.h"
#include "test_support.h"

namespace lt {
namespace {

std::filesystem::path Ouster(const std::string& name) {
  return test::RealDataDir() / "ouster-sdk" / name;
}

struct Capture {
  const char* pcap;
  const char* json;
  size_t frames;
  uint32_t columns;  // valid columns per frame
  uint32_t rows;
  bool dual;
};

// Every capture in the folder: legacy (fw 2.0, 2.1), low data rate (2.3), FuSa dual (3.1).
const Capture kCaptures[] = {
    {"OS-0-128-U1_v2.3.0_1024x10.pcap", "OS-0-128-U1_v2.3.0_1024x10.json", 1, 1024, 128, false},
    {"OS-1-128_v2.3.0_1024x10_lb_n3.pcap", "OS-1-128_v2.3.0_1024x10.json", 3, 1024, 128, false},
    {"OS-1-32-G_v2.1.1_1024x10.pcap", "OS-1-32-G_v2.1.1_1024x10.json", 1, 1024, 32, false},
    {"OS-1-64_1024x10_fw20.pcap", "OS-1-64_sensor_config_reduced.json", 1, 1024, 64, false},
    {"OS-1-128_767798045_1024x10_20230712_120049.pcap",
     "OS-1-128_767798045_1024x10_20230712_120049.json", 1, 128, 128, true},
};

TEST(OusterPcap, EveryCaptureDecodesToPlausibleFrames) {
  LT_REQUIRE_REAL_DATA();
  for (const Capture& c : kCaptures) {
    SCOPED_TRACE(c.pcap);
    auto meta = LoadOusterMetadata(Ouster(c.json));
    ASSERT_TRUE(meta.ok()) << meta.message();
    EXPECT_EQ(meta->pixels_per_column, c.rows);
    EXPECT_EQ(meta->Dual(), c.dual);
    auto frames = ReadOusterPcap(Ouster(c.pcap), meta.value());
    ASSERT_TRUE(frames.ok()) << frames.message();
    ASSERT_EQ(frames->size(), c.frames);
    for (const Frame& f : frames.value()) {
      std::set<uint32_t> columns(f.column.begin(), f.column.end());
      EXPECT_LE(columns.size(), c.columns);
      // Columns with at least one return, and returns per beam: the OS-1-64 capture sees
      // nothing over 45 % of its turn (all its 1024 columns are valid packets).
      EXPECT_GE(columns.size(), c.columns / 2);
      EXPECT_GT(f.size(), c.columns * c.rows / 5);
      size_t second = 0;
      for (size_t k = 0; k < f.size(); ++k) {
        ASSERT_LT(f.channel[k], c.rows);
        ASSERT_GT(f.range_m[k], 0.0f);
        ASSERT_LT(f.range_m[k], 524.3f);  // the 19-bit field in mm
        // XYZ is the range along the beam from an origin a few cm off the sensor centre.
        const double norm =
            std::sqrt(f.x_m[k] * f.x_m[k] + f.y_m[k] * f.y_m[k] + f.z_m[k] * f.z_m[k]);
        ASSERT_NEAR(norm, f.range_m[k], 0.06) << "point " << k;
        // The beam's altitude angle, seen from the beam origin.
        if (f.range_m[k] > 5) {
          const double alt = std::asin((f.z_m[k] - meta->lidar_to_sensor[11] * 1e-3 -
                                        meta->beam_origin_z_mm * 1e-3) /
                                       f.range_m[k]) *
                             180 / 3.14159265358979;
          ASSERT_NEAR(alt, meta->altitude_deg[f.channel[k]], 0.5) << "point " << k;
        }
        second += f.return_index[k] == 1;
      }
      EXPECT_EQ(second > 0, c.dual);
      EXPECT_NEAR(f.end_time_s - f.start_time_s, 0.1, 1e-9);
      std::printf("[ouster] %s frame %u: %zu points, %zu columns, %zu second returns\n", c.pcap,
                  f.index, f.size(), columns.size(), second);
    }
  }
}

TEST(OusterPcap, ThreeFrameCaptureSplitsByFrameIdAndAdvancesInTime) {
  LT_REQUIRE_REAL_DATA();
  auto meta = LoadOusterMetadata(Ouster("OS-1-128_v2.3.0_1024x10.json"));
  ASSERT_TRUE(meta.ok()) << meta.message();
  auto frames = ReadOusterPcap(Ouster("OS-1-128_v2.3.0_1024x10_lb_n3.pcap"), meta.value());
  ASSERT_TRUE(frames.ok() && frames->size() == 3);
  for (int k = 1; k < 3; ++k)
    EXPECT_NEAR((*frames)[k].start_time_s - (*frames)[k - 1].start_time_s, 0.1, 0.002);
}

// The legacy layout's reflectivity is 16 bits: firmware 2.1 fills it with the calibrated
// 0..255 scale, firmware 2.0 (the OS-1-64 capture) with about signal x R^2, which 8 bits wrapped.
TEST(OusterPcap, LegacyReflectivityIsSixteenBits) {
  LT_REQUIRE_REAL_DATA();
  auto meta64 = LoadOusterMetadata(Ouster("OS-1-64_sensor_config_reduced.json"));
  ASSERT_TRUE(meta64.ok()) << meta64.message();
  auto f64 = ReadOusterPcap(Ouster("OS-1-64_1024x10_fw20.pcap"), meta64.value());
  ASSERT_TRUE(f64.ok()) << f64.message();
  size_t above_scale = 0, near_signal_r2 = 0, bright = 0;
  for (const Frame& f : f64.value()) {
    for (size_t k = 0; k < f.size(); ++k) {
      const double refl = 100.0 * f.reflectance[k];
      const double s_r2 = f.intensity[k] * f.range_m[k] * f.range_m[k];
      above_scale += refl > 255.5;
      if (s_r2 > 1000) {
        ++bright;
        near_signal_r2 += std::abs(refl - s_r2) < 0.1 * s_r2;
      }
    }
  }
  EXPECT_GT(above_scale, 1000u);
  EXPECT_GT(near_signal_r2, bright * 9 / 10) << near_signal_r2 << " of " << bright;
  auto meta32 = LoadOusterMetadata(Ouster("OS-1-32-G_v2.1.1_1024x10.json"));
  ASSERT_TRUE(meta32.ok()) << meta32.message();
  auto f32 = ReadOusterPcap(Ouster("OS-1-32-G_v2.1.1_1024x10.pcap"), meta32.value());
  ASSERT_TRUE(f32.ok()) << f32.message();
  for (const Frame& f : f32.value())
    for (size_t k = 0; k < f.size(); ++k)
      ASSERT_LE(f.reflectance[k], 2.55f + 1e-6f) << "point " << k;
}

TEST(OusterMetadata, EveryRealMetadataFileLoads) {
  LT_REQUIRE_REAL_DATA();
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(Ouster("metadata"))) {
    if (e.path().extension() != ".json") continue;
    auto m = LoadOusterMetadata(e.path());
    EXPECT_TRUE(m.ok()) << m.message();
    if (m.ok()) {
      EXPECT_EQ(m->altitude_deg.size(), m->pixels_per_column);
    }
    ++n;
  }
  EXPECT_GE(n, 26u);
}

TEST(OusterMetadata, MalformedFilesAreRejectedWithFileAndKey) {
  LT_REQUIRE_REAL_DATA();
  const std::pair<const char*, const char*> bad[] = {
      {"complete_but_all_zeros_legacy.json", "'beam_altitude_angles' are all zero"},
      {"garbled_legacy_and_nonlegacy.json", "'lidar_data_format' is missing"},
      {"incomplete_data_format_legacy.json", "'data_format.columns_per_frame' is missing"},
      {"incomplete_data_format_nonlegacy.json", "'lidar_data_format.pixels_per_column' is missing"},
      {"incorrect_nbeam_angles_legacy_113.json", "has 64 values but beam_altitude_angles has 63"},
  };
  for (const auto& [file, fragment] : bad) {
    auto m = LoadOusterMetadata(Ouster("metadata/malformed") / file);
    ASSERT_FALSE(m.ok()) << file;
    EXPECT_NE(m.message().find(file), std::string::npos) << m.message();
    EXPECT_NE(m.message().find(fragment), std::string::npos) << m.message();
  }
  // Missing keys the decoding does not need (calibration status, sensor info) are accepted.
  for (const char* file :
       {"incomplete_no_calref_nonlegacy.json", "incomplete_no_sensor_info_nonlegacy.json",
        "legacy_with_calibration_status.json"}) {
    auto m = LoadOusterMetadata(Ouster("metadata/malformed") / file);
    EXPECT_TRUE(m.ok()) << m.message();
  }
}

// Issue 11 review: values that would put every point at infinity (1e300 mm offsets, 1e300 deg
// angles) and numbers beyond double range were accepted or aborted.
TEST(OusterMetadata, AbsurdValuesAndHugeNumbersAreNamed) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  const std::string good = test::ReadAll(Ouster("OS-1-32-G_v2.1.1_1024x10.json"));
  const std::pair<std::string, std::string> edits[] = {
      {"\"beam_altitude_angles\": [", "'beam_altitude_angles' [0] = 1e+300 is beyond +-90 deg"},
      {"\"lidar_to_sensor_transform\": [", "'lidar_to_sensor_transform' [0] = 1e+300"},
  };
  for (const auto& [key, expected] : edits) {
    std::string text = good;
    const size_t at = text.find(key);
    ASSERT_NE(at, std::string::npos) << key;
    text.insert(at + key.size(), "1e300, ");
    // One value too many now: put the array back to its length by dropping its last value.
    const size_t close = text.find(']', at);
    const size_t last_comma = text.rfind(',', close);
    text.erase(last_comma, close - last_comma);
    auto m = LoadOusterMetadata(dir.Write("m.json", text));
    ASSERT_FALSE(m.ok()) << key;
    EXPECT_NE(m.message().find(expected), std::string::npos) << m.message();
  }
  std::string huge = good;
  const std::string key = "\"beam_altitude_angles\": [";
  huge.insert(huge.find(key) + key.size(), "1e400, ");
  auto h = LoadOusterMetadata(dir.Write("huge.json", huge));
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.message().find("huge.json: not readable JSON"), std::string::npos) << h.message();
}

// Sizes a sensor cannot have are refused before anything is sized from them (an OSF file's
// embedded metadata sized its field images: 262,144 beams took 4 GB).
TEST(OusterMetadata, SizesAndRatesNoSensorHasAreNamed) {
  LT_REQUIRE_REAL_DATA();
  const std::string good = test::ReadAll(Ouster("OS-0-128_v3.0.1_1024x10.json"));
  const std::pair<std::string, std::string> edits[] = {
      {"\"pixels_per_column\": 128",
       "key 'lidar_data_format.pixels_per_column' must be a whole "
       "number in 1..256"},
      {"\"columns_per_frame\": 1024",
       "key 'lidar_data_format.columns_per_frame' must be a whole "
       "number in 1..8192"},
      {"\"lidar_mode\": \"1024x10\"", "columns in 1..8192 and a rate in 1..100 Hz expected"},
  };
  const std::string replacement[] = {"\"pixels_per_column\": 262144", "\"columns_per_frame\": -1",
                                     "\"lidar_mode\": \"1024x1e-300\""};
  for (size_t k = 0; k < 3; ++k) {
    std::string text = good;
    const size_t at = text.find(edits[k].first);
    ASSERT_NE(at, std::string::npos) << edits[k].first;
    text.replace(at, edits[k].first.size(), replacement[k]);
    auto m = ParseOusterMetadata(text, "m.json");
    ASSERT_FALSE(m.ok()) << replacement[k];
    EXPECT_NE(m.message().find(edits[k].second), std::string::npos) << m.message();
  }
}

// Issue 11 review: an OS-0 capture read with an OS-1's metadata of the same data format decoded
// to plausible points with the wrong angles; the packet header's serial number tells.
TEST(OusterPcap, ACaptureWithAnotherUnitsMetadataIsRefused) {
  LT_REQUIRE_REAL_DATA();
  auto other = LoadOusterMetadata(Ouster("OS-1-128_v2.3.0_1024x10.json"));
  ASSERT_TRUE(other.ok()) << other.message();
  auto frames = ReadOusterPcap(Ouster("OS-0-128-U1_v2.3.0_1024x10.pcap"), other.value());
  ASSERT_FALSE(frames.ok());
  EXPECT_NE(frames.message().find("come from the sensor with serial number 122150000150, but"),
            std::string::npos)
      << frames.message();
  EXPECT_NE(frames.message().find("metadata of serial 122201000998"), std::string::npos);
}

TEST(OusterPcap, TruncatedCaptureAndWrongMetadataNameTheByteOffset) {
  LT_REQUIRE_REAL_DATA();
  test::TempDir dir;
  std::ifstream in(Ouster("OS-1-32-G_v2.1.1_1024x10.pcap"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  const auto cut = dir.Write("cut.pcap", bytes.substr(0, 100000));
  auto meta32 = LoadOusterMetadata(Ouster("OS-1-32-G_v2.1.1_1024x10.json"));
  ASSERT_TRUE(meta32.ok());
  // A capture cut while being written loses its last record only, with a warning naming it.
  CaptureStats stats;
  auto r = ReadOusterPcap(cut, meta32.value(), &stats);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->size(), 1u);
  ASSERT_EQ(stats.warnings.size(), 1u);
  EXPECT_NE(stats.warnings[0].find("cut.pcap: byte "), std::string::npos) << stats.warnings[0];
  EXPECT_NE(stats.warnings[0].find("truncated last record"), std::string::npos)
      << stats.warnings[0];
  // A 64-beam capture read with 32-beam metadata: no packet matches, and the error says what
  // the capture holds.
  auto wrong = ReadOusterPcap(Ouster("OS-1-64_1024x10_fw20.pcap"), meta32.value());
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("to port 7502 of 12608 bytes"), std::string::npos)
      << wrong.message();
  EXPECT_NE(wrong.message().find("6464-byte packets"), std::string::npos) << wrong.message();
  // Not a pcap at all.
  auto junk = ReadPcapUdp(dir.Write("junk.pcap", std::string(100, 'x')));
  ASSERT_FALSE(junk.ok());
  EXPECT_NE(junk.message().find("byte 0: not a pcap or pcapng file"), std::string::npos);
}

}  // namespace
}  // namespace lt
