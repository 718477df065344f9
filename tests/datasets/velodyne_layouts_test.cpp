// Velodyne packets from nebula's bags against the driver's own decode (the answer keys of
// docs/formats/velodyne-robosense-answer-keys.md), and the firing layouts of the VLS-128 and
// VLP-32C on packets made to their manuals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <tuple>

#include "answer_key.h"
#include "capture_files.h"
#include "lidartwin/base/text_file.h"
#include "lidartwin/datasets/point_cloud_readers.h"
#include "lidartwin/datasets/ros_bag.h"
#include "lidartwin/datasets/velodyne.h"
#include "rosbag/bag_packets.h"
#include "test_support.h"

namespace lt {
namespace {

constexpr double kDeg = 3.14159265358979323846 / 180;

// A point as both decoders place it: range, height, horizontal radius, and the azimuth
// (degrees in [0, 360), clockwise from x as Velodyne counts it).
struct Polar {
  double range, z, radius, azimuth;
};

Polar PolarOf(float x, float y, float z) {
  const double radius = std::hypot(double{x}, double{y});
  double az = std::atan2(-double{y}, double{x}) / kDeg;
  if (az < 0) az += 360;
  return {std::sqrt(radius * radius + double{z} * z), z, radius, az};
}

// The laser whose elevation puts a point of range r at height z (nebula's key holds xyz only).
int LaserOf(const Polar& p, const std::vector<double>& elevations) {
  const double e = std::asin(std::clamp(p.z / p.range, -1.0, 1.0));
  int best = 0;
  for (size_t k = 1; k < elevations.size(); ++k)
    if (std::abs(elevations[k] - e) < std::abs(elevations[best] - e)) best = static_cast<int>(k);
  return best;
}

// nebula's documented filters and window, and where its decode and ours differ by rule:
// - it keeps ranges in (0.3, 300) m and azimuths (the firing's and the point's) up to 359 deg:
//   the driver's cloud_min_angle 0 and cloud_max_angle 359, a setting, not the sensor;
// - it cuts a revolution where a point's azimuth passes 0, ours where a firing's does; with
//   the VLS-128's rot_corrections of up to 6.4 deg, points within 7 deg of the cut or the
//   window may fall on either side;
// - it gives the azimuth of its firing to every bank but the last of each firing (a quirk of
//   its loop), ours interpolates each group's azimuth by its firing time (VLS-128 manual,
//   "Firing timing"): the azimuths differ by up to one firing's advance, 0.2 deg at 10 Hz.
// So: away from the cut and the window (7 deg), every point is in both, at the same range and
// height within 1 mm, at an azimuth within one firing's advance.
TEST(VelodyneLayouts, TheVls128BagDecodesToItsAnswerKeyPointForPoint) {
  LT_REQUIRE_REAL_DATA();
  const auto folder = test::RealDataDir() / "nebula" / "velodyne-vls128";
  auto cal = LoadVelodyneCalibration(folder / "VLS128.yaml");
  ASSERT_TRUE(cal.ok()) << cal.message();
  constexpr int64_t kKeyStamp = 1585897255376374245;
  // This bag's messages are stamped with their first packet's time (the key's message holds
  // the revolution that starts at its stamp): the packets up to a revolution (0.1 s) and our
  // reordering window of 16 packets (2.7 ms) past the stamp complete it.
  constexpr int64_t kRevolutionAndWindowNs = 110'000'000;
  CaptureStats stats;
  auto ours = test::FrameCompletedIn(folder, kKeyStamp + kRevolutionAndWindowNs,
                                     [&](const PacketSource& packets, const FrameSink& sink) {
                                       return ForEachVelodyneFrame(packets, *cal, sink, &stats);
                                     });
  ASSERT_TRUE(ours.ok()) << ours.message();
  EXPECT_EQ(stats.bad_packets, 0u);
  auto key = ReadPcd(folder / (std::to_string(kKeyStamp) + ".pcd"));
  ASSERT_TRUE(key.ok()) << key.message();
  ASSERT_EQ(key->size(), 208680u);

  std::vector<double> elevations;
  for (const VelodyneLaser& l : cal->lasers)
    elevations.push_back(l.vert_correction_rad);
  constexpr double kEdgeDeg = 7;
  constexpr double kMostAheadDeg = 0.17, kMostBehindDeg = 0.015;
  auto inside = [](double az, double margin) {
    return az >= kEdgeDeg + margin && az <= 359 - kEdgeDeg - margin;
  };
  // Per laser, nebula's points by azimuth.
  std::map<int, std::multimap<double, Polar>> key_by_laser;
  size_t key_inside = 0;
  for (size_t i = 0; i < key->size(); ++i) {
    const Polar p = PolarOf(key->x_m[i], key->y_m[i], key->z_m[i]);
    if (!inside(p.azimuth, -0.5)) continue;
    key_by_laser[LaserOf(p, elevations)].emplace(p.azimuth, p);
    if (inside(p.azimuth, 0.5)) ++key_inside;
  }
  size_t ours_inside = 0, matched_inside = 0;
  double worst_range = 0, worst_z = 0, worst_radius = 0, worst_azimuth = 0;
  for (size_t i = 0; i < ours->size(); ++i) {
    const Polar p = PolarOf(ours->x_m[i], ours->y_m[i], ours->z_m[i]);
    if (ours->range_m[i] <= 0.3 || ours->range_m[i] >= 300 || !inside(p.azimuth, 0)) continue;
    ++ours_inside;
    ASSERT_EQ(LaserOf(p, elevations), ours->channel[i]) << i;
    auto& candidates = key_by_laser[ours->channel[i]];
    // The same laser's point at the same range (within 1 mm), at an azimuth up to what ours
    // interpolates past nebula's: group g of 16 fires (g + g / 8) x 2.665 us into a 55.3 us
    // firing of 0.19-0.21 deg, so up to 0.162 deg (group 15, where nebula does not
    // interpolate); plus nebula's 0.005 deg rounding to its 0.01 deg grid. A laser's
    // neighbouring firings are 0.19-0.21 deg apart: where two candidates fall in the window,
    // the range tells them apart.
    auto near = candidates.end();
    for (auto c = candidates.lower_bound(p.azimuth - kMostAheadDeg);
         c != candidates.end() && c->first <= p.azimuth + kMostBehindDeg; ++c) {
      if (std::abs(c->second.range - p.range) <= 1e-3 &&
          (near == candidates.end() ||
           std::abs(c->second.range - p.range) < std::abs(near->second.range - p.range))) {
        near = c;
      }
    }
    ASSERT_TRUE(near != candidates.end())
        << "our point " << i << " (laser " << ours->channel[i] << ", " << p.azimuth
        << " deg) has no point of nebula's within a firing";
    const Polar& k = near->second;
    worst_range = std::max(worst_range, std::abs(p.range - k.range));
    worst_z = std::max(worst_z, std::abs(p.z - k.z));
    worst_radius = std::max(worst_radius, std::abs(p.radius - k.radius));
    worst_azimuth = std::max(worst_azimuth, p.azimuth - k.azimuth);
    if (inside(k.azimuth, 0.5)) ++matched_inside;
    candidates.erase(near);  // one to one
  }
  // Every key point well inside the band was taken by one of ours, and no two of ours took
  // one point (the erase above): the same points.
  EXPECT_EQ(matched_inside, key_inside);
  EXPECT_GT(ours_inside, 190000u);
  EXPECT_LE(worst_range, 1e-3) << "m";
  EXPECT_LE(worst_z, 1e-3) << "m";
  EXPECT_LE(worst_radius, 1e-3) << "m";
  EXPECT_GT(worst_azimuth, 0.1) << "deg: ours interpolates where nebula does not";
}

// The VLP-16 bag is dual return. nebula (docs/formats/velodyne-robosense-answer-keys.md):
// - drops a strongest return equal in range to its firing's last return, and marks the last
//   return "identical" (return type 6), as ours does;
// - keeps ranges in (0.3, 300) m and azimuths up to 359 deg (its cloud_max_angle);
// - gives a strongest return the azimuth of the next firing block, and both returns of a
//   packet's last block their block's azimuth, none interpolated (its loop quirk), where ours
//   interpolates each laser by its firing time: those azimuths differ by up to one block's
//   advance (0.4 deg at 10 Hz) either way, the others by its 0.01 deg rounding.
// So: away from the window's ends, the same points at the same range within 1 mm, the same
// intensity and laser, as many identical pairs as the key marks, azimuths within those bounds.
TEST(VelodyneLayouts, TheVlp16DualBagDecodesToItsAnswerKeyPointForPoint) {
  LT_REQUIRE_REAL_DATA();
  const auto folder = test::RealDataDir() / "nebula" / "velodyne-vlp16";
  auto cal = LoadVelodyneCalibration(folder / "VLP16.yaml");
  ASSERT_TRUE(cal.ok()) << cal.message();
  auto bag = OpenRosBag(folder);
  ASSERT_TRUE(bag.ok()) << bag.message();
  std::shared_ptr<RosBag> shared = std::move(bag.value());
  auto topic = ros::ChooseLidarTopic(*shared, "");
  ASSERT_TRUE(topic.ok()) << topic.message();
  auto frames = CollectFrames([&](const FrameSink& sink) {
    return ForEachVelodyneFrame(ros::BagPackets(shared, **topic), *cal, sink);
  });
  ASSERT_TRUE(frames.ok()) << frames.message();
  // The key's message is the bag's last; its revolution ends with the last packet, whose few
  // returns past the wrap make a partial frame of their own.
  ASSERT_GE(frames->size(), 2u);
  ASSERT_LT(frames->back().size(), 200u);
  const Frame& ours = (*frames)[frames->size() - 2];
  // The key: x y z intensity(u8) return_type(u8) channel(u16) azimuth elevation distance
  // time_stamp(u32), 32 bytes a point after "DATA binary".
  auto text = ReadTextFile(folder / "1673400472138016708.pcd", "");
  ASSERT_TRUE(text.ok()) << text.message();
  const std::string& pcd = *text;
  const size_t data = pcd.find("DATA binary\n") + 12;
  const size_t n = (pcd.size() - data) / 32;
  ASSERT_EQ(n, 14831u);
  // nebula's channel: the laser's rank by elevation.
  std::vector<int> rank(cal->lasers.size());
  for (size_t k = 0; k < rank.size(); ++k)
    for (const VelodyneLaser& other : cal->lasers)
      rank[k] += other.vert_correction_rad < cal->lasers[k].vert_correction_rad;
  struct KeyPoint {
    Polar p;
    int channel;
    uint8_t intensity;
    uint8_t return_type;
  };
  std::vector<KeyPoint> key;
  std::map<int, std::multimap<double, size_t>> key_by_channel;  // azimuth -> index in key
  size_t identical = 0;
  constexpr double kEdgeDeg = 1;
  auto inside = [](double az, double margin) {
    return az >= kEdgeDeg + margin && az <= 359 - kEdgeDeg - margin;
  };
  for (size_t i = 0; i < n; ++i) {
    const char* r = pcd.data() + data + 32 * i;
    float xyz[3];
    std::memcpy(xyz, r, 12);
    uint16_t channel;
    std::memcpy(&channel, r + 14, 2);
    identical += r[13] == 6;
    key.push_back({PolarOf(xyz[0], xyz[1], xyz[2]), channel, static_cast<uint8_t>(r[12]),
                   static_cast<uint8_t>(r[13])});
    key_by_channel[channel].emplace(key.back().p.azimuth, i);
  }
  EXPECT_EQ(identical, 14455u);
  // Both returns' intensities of a firing: whether a pair ties in strength.
  std::map<std::pair<uint32_t, uint16_t>, std::vector<float>> pair_intensity;
  for (size_t i = 0; i < ours.size(); ++i) {
    pair_intensity[{ours.column[i], ours.channel[i]}].push_back(ours.intensity[i]);
  }
  // nebula's kind in our terms. Its VLP-16 decoder (at the key's version) takes the farther of
  // two returns for the "first" (`first = current > other`; its VLP-32 decoder's TODO notes the
  // two decoders disagree), so its first and last are swapped against ours, and where the two
  // reflectivities tie its rule "the strongest is the one not first" swaps stronger and weaker
  // too. Identical (one echo twice, or alone) is the same.
  using T = physics::ReturnType;
  auto ours_for_key = [](uint8_t key_code, bool tie) {
    switch (T{key_code}) {
      case T::kFirstStrongest:
        return tie ? T::kLastWeak : T::kLastStrongest;
      case T::kLastStrongest:
        return tie ? T::kFirstWeak : T::kFirstStrongest;
      case T::kFirstWeak:
        return tie ? T::kLastStrongest : T::kLastWeak;
      case T::kLastWeak:
        return tie ? T::kFirstStrongest : T::kFirstWeak;
      default:
        return T{key_code};
    }
  };
  size_t ours_identical = 0;
  std::set<std::tuple<uint32_t, uint16_t, float>> seen;  // column, laser, range
  std::vector<size_t> ours_kept;
  std::vector<Polar> ours_polar(ours.size());
  // Candidate pairs: the same laser, range within 1 mm, the same intensity, and nebula's
  // azimuth one of those its rules give for our point: a last return's ours (interpolated) or
  // its firing block's (a packet's last block), a strongest return's the next block's or its
  // own block's (a packet's last block); a block is 0.4 deg on, our laser fired (s x 55.296 +
  // laser x 2.304) us into its 110.592 us block (VLP-16 manual, "Firing timing"). Assigned one
  // to one, by the usual rule first, nearest first.
  struct Pair {
    int rule;  // 0 the usual one, 1 a packet's last block's (a sixth of the blocks)
    double azimuth_apart;
    size_t ours, key;
  };
  std::vector<Pair> pairs;
  for (size_t i = 0; i < ours.size(); ++i) {
    // A strongest return equal to its firing's last is dropped, as nebula drops it.
    ASSERT_TRUE(seen.insert({ours.column[i], ours.channel[i], ours.range_m[i]}).second)
        << "our point " << i << " repeats its firing's other return";
    ours_identical += T{ours.return_type[i]} == T::kIdentical;
    const Polar p = ours_polar[i] = PolarOf(ours.x_m[i], ours.y_m[i], ours.z_m[i]);
    if (ours.range_m[i] <= 0.3 || ours.range_m[i] >= 300 || !inside(p.azimuth, 0)) continue;
    ours_kept.push_back(i);
    auto& candidates = key_by_channel[rank[ours.channel[i]]];
    constexpr double kBlockDeg = 0.4;
    const double into_block =
        ((ours.column[i] % 2) * 55.296 + ours.channel[i] * 2.304) / 110.592 * kBlockDeg;
    const double block = p.azimuth - into_block;
    const bool strongest = ours.return_index[i] == 1;
    const double rules[2] = {strongest ? block + kBlockDeg : p.azimuth, block};
    for (auto c = candidates.lower_bound(p.azimuth - 0.5);
         c != candidates.end() && c->first <= p.azimuth + 0.5; ++c) {
      const KeyPoint& k = key[c->second];
      if (std::abs(k.p.range - p.range) > 1e-3 || k.intensity != ours.intensity[i]) continue;
      for (int rule = 0; rule < 2; ++rule) {
        const double apart = std::abs(c->first - rules[rule]);
        if (apart <= 0.03) pairs.push_back({rule, apart, i, c->second});
      }
    }
  }
  // The usual rule first: a packet's last block's rule could otherwise take a neighbour's
  // point where three firings in a row have the same range.
  std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
    return std::tie(a.rule, a.azimuth_apart) < std::tie(b.rule, b.azimuth_apart);
  });
  std::map<size_t, size_t> ours_to_key;
  std::vector<bool> key_taken(key.size(), false);
  for (const Pair& pair : pairs) {
    if (ours_to_key.count(pair.ours) || key_taken[pair.key]) continue;
    ours_to_key[pair.ours] = pair.key;
    key_taken[pair.key] = true;
  }
  double worst_range = 0, worst_z = 0, worst_rule = 0;
  ASSERT_EQ(ours.return_type.size(), ours.size());
  std::map<int, int> types;  // nebula's code -> points of ours with it
  for (size_t i : ours_kept) {
    const auto found = ours_to_key.find(i);
    ASSERT_TRUE(found != ours_to_key.end())
        << "our point " << i << " (laser " << ours.channel[i] << ", return "
        << int{ours.return_index[i]} << ", " << ours_polar[i].azimuth << " deg, "
        << ours_polar[i].range << " m) has no point of nebula's";
    const Polar& k = key[found->second].p;
    // The same kind as nebula's (identical, or nearer/farther and stronger/weaker).
    const auto& strengths = pair_intensity[{ours.column[i], ours.channel[i]}];
    const bool tie = strengths.size() == 2 && strengths[0] == strengths[1];
    ASSERT_EQ(T{ours.return_type[i]}, ours_for_key(key[found->second].return_type, tie))
        << "our point " << i << " (laser " << ours.channel[i] << ", return "
        << int{ours.return_index[i]} << ", nebula's code " << int{key[found->second].return_type}
        << ")";
    ++types[ours.return_type[i]];
    worst_range = std::max(worst_range, std::abs(ours_polar[i].range - k.range));
    worst_z = std::max(worst_z, std::abs(ours_polar[i].z - k.z));
    (void)k;
  }
  // Every key point well inside the window was taken.
  for (size_t j = 0; j < key.size(); ++j)
    if (inside(key[j].p.azimuth, 0.5) && key[j].p.range > 0.3)
      ASSERT_TRUE(key_taken[j]) << "nebula's point " << j << " at " << key[j].p.azimuth
                                << " deg has none of ours";
  EXPECT_GT(ours_kept.size(), 14000u);
  // Every kind of a dual pair occurs: mostly one echo reported twice.
  EXPECT_GT(types[6], 14000);
  for (int code : {4, 5, 9, 10})
    EXPECT_GT(types[code], 50) << code;
  EXPECT_NEAR(static_cast<double>(ours_identical), 14455, 14455 * 0.01);
  EXPECT_LE(worst_range, 1e-3) << "m";
  EXPECT_LE(worst_z, 1e-3) << "m";
  for (const Pair& pair : pairs)
    if (ours_to_key.count(pair.ours) && ours_to_key[pair.ours] == pair.key)
      worst_rule = std::max(worst_rule, pair.azimuth_apart);
  EXPECT_LE(worst_rule, 0.03) << "deg from nebula's rule";
}

// A data packet of `model` (product id) and `mode` (0x37 strongest, 0x39 dual): block b's flag
// is `flags[b]`, its azimuth azimuths[b] (0.01 deg), every laser at `raw` distance units with
// reflectivity b + 1; the timestamp `us` past the hour.
std::vector<uint8_t> Packet(uint8_t model, uint8_t mode, const std::vector<uint16_t>& flags,
                            const std::vector<uint16_t>& azimuths, uint16_t raw, uint32_t us) {
  std::vector<uint8_t> p(1206, 0);
  for (size_t b = 0; b < 12; ++b) {
    uint8_t* blk = p.data() + 100 * b;
    blk[0] = static_cast<uint8_t>(flags[b]), blk[1] = static_cast<uint8_t>(flags[b] >> 8);
    blk[2] = static_cast<uint8_t>(azimuths[b]), blk[3] = static_cast<uint8_t>(azimuths[b] >> 8);
    for (int k = 0; k < 32; ++k) {
      blk[4 + 3 * k] = static_cast<uint8_t>(raw), blk[5 + 3 * k] = static_cast<uint8_t>(raw >> 8);
      blk[6 + 3 * k] = static_cast<uint8_t>(b + 1);
    }
  }
  for (int i = 0; i < 4; ++i)
    p[1200 + i] = static_cast<uint8_t>(us >> (8 * i));
  p[1204] = mode, p[1205] = model;
  return p;
}

VelodyneCalibration Flat(size_t lasers) {
  VelodyneCalibration c;
  c.file = "flat.yaml";
  c.lasers.resize(lasers);
  // Elevations from -25 to +15 deg (a VLP-32C's and VLS-128's span): the model by its table.
  for (size_t k = 0; k < lasers; ++k)
    c.lasers[k].vert_correction_rad = (-25 + 40.0 * k / (lasers - 1)) * kDeg;
  return c;
}

// Frames of packets (the first completed and the flushed rest).
std::vector<Frame> Decode(const std::vector<std::vector<uint8_t>>& packets,
                          const VelodyneCalibration& cal, CaptureStats* stats) {
  auto frames = CollectFrames([&](const FrameSink& sink) {
    return ForEachVelodyneFrame(test::Datagrams(2368, packets), cal, sink, stats);
  });
  EXPECT_TRUE(frames.ok()) << frames.message();
  return frames.ok() ? std::move(frames.value()) : std::vector<Frame>{};
}

// VLP-32C manual, "Firing timing": 32 lasers fire in pairs every 2.304 us, one 55.296 us
// firing a block; a laser's azimuth moves on with its pair's time.
TEST(VelodyneLayouts, AVlp32cFiresItsLasersInPairs) {
  std::vector<std::vector<uint8_t>> packets;
  for (uint32_t n = 0; n < 30; ++n) {  // 0.2 deg a block, 55.296 us apart (663.552 us a packet)
    std::vector<uint16_t> az;
    for (uint16_t b = 0; b < 12; ++b)
      az.push_back(static_cast<uint16_t>(1000 + 20 * (12 * n + b)));
    packets.push_back(Packet(0x28, 0x37, std::vector<uint16_t>(12, 0xEEFF), az, 2500,
                             1'000'000 + static_cast<uint32_t>(std::lround(663.552 * n))));
  }
  CaptureStats stats;
  auto frames = Decode(packets, Flat(32), &stats);
  ASSERT_EQ(frames.size(), 1u);
  const Frame& f = frames[0];
  ASSERT_EQ(f.size(), 30u * 12 * 32);
  for (size_t i = 0; i < 64; ++i) {  // the first two blocks
    const int laser = f.channel[i];
    const size_t block = i / 32;
    const double offset_s = (laser / 2) * 2.304e-6;
    EXPECT_NEAR(f.timestamp_s[i], 1.0 + block * 55.296e-6 + offset_s, 1e-9) << i;
    const double azimuth = (10.0 + 0.2 * block + 0.2 * offset_s / 55.296e-6) * kDeg;
    const double radius = 5.0 * std::cos(f.z_m[i] / 5.0 > 1 ? 0 : std::asin(f.z_m[i] / 5.0));
    EXPECT_NEAR(f.x_m[i], radius * std::cos(azimuth), 2e-6) << i;
    EXPECT_NEAR(f.y_m[i], -radius * std::sin(azimuth), 2e-6) << i;
    EXPECT_NEAR(f.range_m[i], 5.0, 1e-6);  // 2500 x 2 mm
  }
}

// A motor that stopped (every packet at one azimuth): frames are cut after a second rather than
// growing without bound.
TEST(VelodyneLayouts, AStoppedMotorsPacketsAreCutIntoFramesOfASecond) {
  std::vector<std::vector<uint8_t>> packets;
  for (uint32_t n = 0; n < 4000; ++n)  // 2.65 s at 663.552 us a packet, azimuth 12.34 deg
    packets.push_back(Packet(0x28, 0x37, std::vector<uint16_t>(12, 0xEEFF),
                             std::vector<uint16_t>(12, 1234), 2500,
                             1'000'000 + static_cast<uint32_t>(std::lround(663.552 * n))));
  CaptureStats stats;
  auto frames = Decode(packets, Flat(32), &stats);
  ASSERT_EQ(frames.size(), 3u);
  for (const Frame& f : frames) {
    EXPECT_LE(f.end_time_s - f.start_time_s, 1.001);
    // Mode 0x37: every return the strongest.
    ASSERT_EQ(f.return_type.size(), f.size());
    EXPECT_EQ(std::count(f.return_type.begin(), f.return_type.end(), 3), f.size());
  }
}

// VLS-128 manual, "Data packet format": in dual return a packet holds one firing, its four
// banks' last then strongest blocks (0xFFEE twice, 0xFFDD twice, ...), and blocks 8-11 carry
// none; distances are in 4 mm whatever the table says.
TEST(VelodyneLayouts, AVls128DualPacketIsOneFiringOfFourBanksTwice) {
  const std::vector<uint16_t> dual_flags = {0xEEFF, 0xEEFF, 0xDDFF, 0xDDFF, 0xCCFF, 0xCCFF,
                                            0xBBFF, 0xBBFF, 0,      0,      0,      0};
  std::vector<std::vector<uint8_t>> packets;
  for (uint32_t n = 0; n < 30; ++n) {  // one 55.3 us firing a packet, 0.2 deg apart
    const auto az = static_cast<uint16_t>(3000 + 20 * n);
    packets.push_back(Packet(0xA1, 0x39, dual_flags, std::vector<uint16_t>(12, az), 1000,
                             2'000'000 + static_cast<uint32_t>(std::lround(55.3 * n))));
  }
  CaptureStats stats;
  VelodyneCalibration cal = Flat(128);
  cal.distance_resolution_m = 0.007;  // the nominal VLS128.yaml's, which the unit ignores
  auto frames = Decode(packets, cal, &stats);
  EXPECT_EQ(stats.bad_packets, 0u);
  ASSERT_EQ(frames.size(), 1u);
  const Frame& f = frames[0];
  // Both returns at one range: one echo reported twice, so each firing's strongest-return
  // blocks (1, 3, 5, 7) repeat its last-return blocks (0, 2, 4, 6) and are dropped.
  ASSERT_EQ(f.size(), 30u * 4 * 32);
  for (size_t i = 0; i < 128; ++i) {  // the first packet: blocks 0, 2, 4, 6
    const size_t block = 2 * (i / 32);
    EXPECT_EQ(f.channel[i], (block / 2) * 32 + i % 32) << i;
    EXPECT_EQ(f.return_index[i], 0) << i;
    EXPECT_EQ(physics::ReturnType{f.return_type[i]}, physics::ReturnType::kIdentical) << i;
    EXPECT_EQ(f.intensity[i], block + 1) << i;
    EXPECT_NEAR(f.range_m[i], 4.0, 1e-6) << i;  // 1000 x 4 mm
    // Group g of 8 lasers fires (g + g / 8) x 2.665 us into the firing.
    const int g = f.channel[i] / 8;
    EXPECT_NEAR(f.timestamp_s[i], 2.0 + (g + g / 8) * 2.665e-6, 1e-9) << i;
  }
  // A bank's flag out of place is a bad packet, named with its offset.
  std::vector<uint16_t> swapped = dual_flags;
  std::swap(swapped[1], swapped[2]);
  packets[5] = Packet(0xA1, 0x39, swapped, std::vector<uint16_t>(12, 3100), 1000, 2'000'277);
  CaptureStats odd;
  Decode(packets, cal, &odd);
  EXPECT_EQ(odd.bad_packets, 1u);
  ASSERT_FALSE(odd.warnings.empty());
  EXPECT_NE(odd.warnings[0].find("byte 10100: block flag 0xDDFF where a VLS-128's block 1 has "
                                 "0xEEFF"),
            std::string::npos)
      << odd.warnings[0];
}

}  // namespace
}  // namespace lt
